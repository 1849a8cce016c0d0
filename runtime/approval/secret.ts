/**
 * Where the approval tokens' HMAC key comes from: MNOTE_APPROVAL_SECRET (given by the host: the
 * only choice for several instances that do not share a state file), else one generated once and
 * kept in the runtime's state file, so `call` (one process per call), a restarted `serve`, and every
 * process on the same state file verify each other's tokens. Decision recorded in docs/APPROVAL.md.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "../../common/sqlite";
import { MIN_SECRET_BYTES } from "./token";

/** A secret as the host gives it (text, used as its UTF-8 bytes), refused when too short to be a key. */
export function secretFromText(text: string): Buffer {
  const secret = Buffer.from(text, "utf8");
  if (secret.length < MIN_SECRET_BYTES)
    throw new Error(`MNOTE_APPROVAL_SECRET must be at least ${MIN_SECRET_BYTES} bytes (it is ${secret.length})`);
  return secret;
}

/** The state file's own secret: created on first use (the first writer wins), the same ever after. */
export function stateSecret(state: Db): Buffer {
  state.exec(`CREATE TABLE IF NOT EXISTS approval_secret (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret BLOB NOT NULL
  )`);
  state.prepare("INSERT OR IGNORE INTO approval_secret (id, secret) VALUES (1, ?)").run(randomBytes(32));
  const row = state.prepare("SELECT secret FROM approval_secret WHERE id = 1").get() as { secret: Buffer };
  return row.secret;
}
