/** Test sizes: bounded for npm test, larger under npm run soak (MNOTE_SOAK=1). */
export const SOAK = process.env.MNOTE_SOAK === "1";

export function scaled(normal: number, soak: number): number {
  return SOAK ? soak : normal;
}
