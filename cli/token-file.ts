/**
 * A bearer token the server generated because none was given: written to a file only its owner can
 * read (0600, in a 0700 folder when one has to be made), and only the file's path is printed. The
 * token itself never reaches stderr, which is the log stream under systemd and docker.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { makeFolders } from "../common/make-folder";

/** The folder the token file goes in: beside the state database, or a private temporary one for :memory:. */
function tokenFolder(state: string): string {
  if (state === ":memory:") return mkdtempSync(join(tmpdir(), "mnote-tools-"));
  const dir = resolve(dirname(state));
  makeFolders(dir, 0o700);
  return dir;
}

/** Generates a token, writes it to <state folder>/<service>.token (0600), and returns both. */
export function generateTokenFile(service: string, state: string): { token: string; path: string } {
  const token = randomBytes(18).toString("base64url");
  const path = join(tokenFolder(state), `${service}.token`);
  // a new file made 0600 from the start, then renamed over any old one: never readable by others
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, token + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(partial, 0o600); // the umask may only remove bits; this states the mode whatever it is
  renameSync(partial, path);
  return { token, path };
}
