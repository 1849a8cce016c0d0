/**
 * Formats the contract may use; the standalone runtime implements exactly these. Its own module
 * (re-exported by contract-ajv.ts) so code that only needs the list does not load ajv.
 */
export const SUPPORTED_FORMATS = ["date-time"] as const;
