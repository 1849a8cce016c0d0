/** Test sizes: bounded for npm test, larger under npm run soak (MNOTE_SOAK=1). */
export const SOAK = process.env.MNOTE_SOAK === "1";

export function scaled(normal: number, soak: number): number {
  return SOAK ? soak : normal;
}

// a soak run is long by design: give each test up to 30 minutes
if (SOAK) jest.setTimeout(30 * 60 * 1000);
