/**
 * The generator's costly steps, remembered in memory by the content hash of exactly what each one
 * reads, for `generate --watch`: an edit to one tool's description leaves the compiled validators,
 * the types and the examples' ajv as they were, so they are not made again. Off by default: a
 * one-shot run would only fill the memory; the steps whose result is text (storedText) are also kept on
 * disk across processes when the CLI turns that on (disk-cache.ts). Each step computes the same value with or without it
 * (test/codegen/incremental.test.ts compares an incremental run after edits with a clean one).
 */
import { sha256Hex } from "../../common/hash";
import { diskCacheOn, readEntry, writeEntry } from "./disk-cache";

/** Results kept per step: the current contract and a few before it (an edit, then its undo). */
const KEEP = 4;

const steps = new Map<string, Map<string, unknown>>();
const counts = new Map<string, { hits: number; misses: number }>();
let on = false;

/** Turns remembering on (watch mode) or off; what is remembered stays until forgetResults. */
export function rememberResults(enabled: boolean): void {
  on = enabled;
}

/** Forgets every result and count. */
export function forgetResults(): void {
  steps.clear();
  counts.clear();
}

/** Whether results are remembered (a caller may skip computing a key when not). */
export function remembering(): boolean {
  return on;
}

/** How often each step was found in memory or computed, since forgetResults. */
export function memoCounts(): Record<string, { hits: number; misses: number }> {
  return Object.fromEntries([...counts].map(([step, c]) => [step, { ...c }]));
}

/** The hash a key is stored under: of the text itself, or of the value as JSON. */
export function contentKey(value: unknown): string {
  return sha256Hex(typeof value === "string" ? value : JSON.stringify(value));
}

/**
 * compute(), or what it returned before for the same key (a value whose JSON is the key, or its
 * contentKey). A promise that rejects is forgotten, so a failure is never remembered.
 */
export function memo<T>(step: string, key: unknown, compute: () => T): T {
  if (!on) return compute();
  const hash = contentKey(key);
  let kept = steps.get(step);
  if (!kept) steps.set(step, (kept = new Map()));
  const count = counts.get(step) ?? { hits: 0, misses: 0 };
  counts.set(step, count);
  if (kept.has(hash)) {
    count.hits++;
    const value = kept.get(hash) as T;
    kept.delete(hash);
    kept.set(hash, value); // most recently used last
    return value;
  }
  count.misses++;
  const value = compute();
  kept.set(hash, value);
  if (value instanceof Promise) value.catch(() => kept.delete(hash));
  if (kept.size > KEEP) kept.delete(kept.keys().next().value as string);
  return value;
}

/**
 * A step whose result is text, kept in memory (watch mode) and on disk (disk-cache.ts) under the
 * content hash of its key: compute() runs only when neither holds it. The key is hashed once, and
 * only when something keeps the result.
 */
export function storedText(step: string, key: unknown, compute: () => string): string {
  if (!on && !diskCacheOn()) return compute();
  const hash = contentKey(key);
  return memo(step, hash, () => {
    const found = readEntry(step, hash);
    if (found !== undefined) return found;
    const value = compute();
    writeEntry(step, hash, value);
    return value;
  });
}

/** storedText for a step that computes asynchronously; a failure is neither remembered nor stored. */
export function storedTextAsync(step: string, key: unknown, compute: () => Promise<string>): Promise<string> {
  if (!on && !diskCacheOn()) return compute();
  const hash = contentKey(key);
  return memo(step, hash, async () => {
    const found = readEntry(step, hash);
    if (found !== undefined) return found;
    const value = await compute();
    writeEntry(step, hash, value);
    return value;
  });
}

/**
 * A step whose result is text, kept on disk only (disk-cache.ts): for a step whose parts memory
 * keeps already in watch mode (the examples' compiled validators).
 */
export function diskText(step: string, key: unknown, compute: () => string): string {
  if (!diskCacheOn()) return compute();
  const hash = contentKey(key);
  const found = readEntry(step, hash);
  if (found !== undefined) return found;
  const value = compute();
  writeEntry(step, hash, value);
  return value;
}
