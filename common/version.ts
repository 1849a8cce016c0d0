/**
 * This package's version, from its package.json: the version of the OpenTelemetry instrumentation
 * scope and of the service resource. Found by walking up from this file, so it holds from the
 * sources (tests), from dist/ (the CLI) and from an installed package alike; read once.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

let cached: string | undefined;

/** The version in the nearest package.json named mnote-tools above this file ("0.0.0" if none). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  cached = "0.0.0";
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
    if (manifest.name === "mnote-tools" && typeof manifest.version === "string") {
      cached = manifest.version;
      break;
    }
  }
  return cached;
}
