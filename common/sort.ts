/**
 * The one ordering for names and paths: by UTF-16 code units, never by locale, so generated
 * output is byte-for-byte the same on every machine.
 */

/** Compares two strings by code units (what `<` does). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A comparator over a string key of each item, e.g. `files.sort(byKey((f) => f.path))`. */
export function byKey<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => compareStrings(key(a), key(b));
}

/** Sorts items with a `path` by it (contract files in, generated files out). */
export const byPath: <T extends { path: string }>(a: T, b: T) => number = (a, b) => compareStrings(a.path, b.path);
