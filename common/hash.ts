/** The one sha256 of the project: contract hashes, idempotency scopes and fingerprints. */
import * as crypto from "node:crypto";

/**
 * Node's one-shot crypto.hash (from Node 20.12) is about twice as fast as createHash for short
 * inputs, and every keyed write hashes two (bench/, runtimeCost); older Node 20 falls back.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Buffer, encoding: "hex") => string }).hash;

/** sha256 of text (UTF-8) or bytes, as 64 lowercase hex digits. */
export function sha256Hex(data: string | Buffer): string {
  return oneShot ? oneShot("sha256", data, "hex") : crypto.createHash("sha256").update(data).digest("hex");
}
