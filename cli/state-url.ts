/**
 * What `--state` names: a SQLite file (a path, or ":memory:") or a PostgreSQL database
 * (postgres:// or postgresql://). Anything else that looks like a URL (a scheme of two letters or
 * more, then ":") is refused with exit 3 instead of becoming a folder named "redis:" or "postgres:";
 * a one-letter "scheme" is a Windows drive (C:\state.db), a path.
 */
import { environmentError } from "./exit";
import { nonEmpty } from "./options";

export type StateLocation = { kind: "file"; path: string } | { kind: "postgres"; url: string };

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):/;
const POSTGRES = new Set(["postgres", "postgresql"]);

export function stateLocation(text: string): StateLocation {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: "file", path: text };
  if (!POSTGRES.has(scheme))
    throw environmentError(
      `--state ${scheme}: URLs are not supported: give a file path (the embedded SQLite state) or postgres://user@host:5432/db`,
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw environmentError("--state: not a valid postgres:// URL (postgres://user:password@host:5432/db)");
  }
  if (url.pathname.replace(/^\//, "") === "")
    throw environmentError("--state: the postgres:// URL names no database (postgres://user@host:5432/db)");
  return { kind: "postgres", url: text };
}

/** The --state option's parser: refuses what stateLocation refuses, when the option is read. */
export function parseState(text: string): string {
  stateLocation(nonEmpty(text));
  return text;
}
