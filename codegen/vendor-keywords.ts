/**
 * The contract's own keywords. JSON Schema tools ignore them (ajv is told they are annotations);
 * the generator reads them. Anything else starting with "x-" is a contract error, so a typo
 * cannot silently drop a rule.
 */
export const VENDOR_KEYWORDS = [
  "x-mnote-tool",
  "x-mnote-kernel-command",
  "x-mnote-examples",
  "x-mnote-filledBy",
  "x-mnote-runtimeSupport",
  "x-mnote-unsetValue",
  "x-mnote-error",
  "x-mnote-capability",
] as const;

export type VendorKeyword = (typeof VENDOR_KEYWORDS)[number];

export function isVendorKeyword(key: string): key is VendorKeyword {
  return (VENDOR_KEYWORDS as readonly string[]).includes(key);
}

/** Keywords the contract may not use: json-schema-to-typescript cannot express them. */
export const FORBIDDEN_KEYWORDS = [
  "unevaluatedProperties",
  "unevaluatedItems",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "prefixItems",
  "$anchor",
] as const;
