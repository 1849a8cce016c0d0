/**
 * This package's version, from its package.json: the version of the OpenTelemetry instrumentation
 * scope and of the service resource, and part of the generator's fingerprint. Found by walking up
 * from this file, so it holds from the sources (tests), from dist/ (the CLI) and from an installed
 * package alike; from @mnote/runtime or @mnote/diff installed beside the CLI (its dependencies,
 * docs/PACKAGES.md) it is the CLI's, found as Node finds a package; read once.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

let cached: string | undefined;

/** The version in the nearest package.json named mnote-tools above this file, else the installed mnote-tools ("0.0.0" if none). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  cached = "0.0.0";
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
    if (manifest.name === "mnote-tools" && typeof manifest.version === "string") {
      cached = manifest.version;
      return cached;
    }
  }
  try {
    const file = require.resolve("mnote-tools/package.json", { paths: [__dirname] });
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown };
    if (typeof manifest.version === "string") cached = manifest.version;
  } catch {
    // no CLI installed: a package on its own keeps "0.0.0"
  }
  return cached;
}
