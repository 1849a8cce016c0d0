/** The one sha256 of the project: contract hashes, idempotency scopes and fingerprints. */
import { createHash } from "node:crypto";

/** sha256 of text (UTF-8) or bytes, as 64 lowercase hex digits. */
export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
