/**
 * A fingerprint of the generator itself, part of every disk cache entry's name (disk-cache.ts): the
 * package's version, the sha256 of every file of its code (codegen/ and common/, built or source,
 * whichever this runs from), its templates and assets, the versions of the libraries whose output
 * it stores (ajv, json-schema-to-typescript) and Node's. Any change to one is a new fingerprint, so
 * a changed generator never reuses what an older one made. Computed once per process (a few ms:
 * some 150 files, 1.5 MB).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { sha256Hex } from "../../common/hash";
import { compareStrings } from "../../common/sort";
import { packageVersion } from "../../common/version";

let fingerprint: string | undefined;

export function generatorFingerprint(): string {
  return (fingerprint ??= computeFingerprint());
}

function computeFingerprint(): string {
  const codegen = join(__dirname, "..");
  // from dist/, the templates and assets are the sources' (support/templates.ts); not imported
  // from there: it loads handlebars, which the phases that only validate do not need
  const roots = [codegen, join(codegen, "..", "common")];
  if (!existsSync(join(codegen, "templates"))) {
    const sources = join(codegen, "..", "..", "codegen");
    roots.push(join(sources, "templates"), join(sources, "assets"));
  }
  const parts = [`mnote-tools ${packageVersion()}`, `node ${process.version}`];
  for (const lib of ["ajv", "json-schema-to-typescript"]) parts.push(`${lib} ${libraryVersion(lib)}`);
  const seen = new Set<string>();
  for (const root of roots) {
    for (const file of codeFiles(root)) {
      if (seen.has(file)) continue;
      seen.add(file);
      parts.push(`${relative(codegen, file)} ${sha256Hex(readFileSync(file))}`);
    }
  }
  return sha256Hex(parts.join("\n"));
}

function libraryVersion(name: string): string {
  try {
    const manifest = require.resolve(`${name}/package.json`);
    return String((JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown }).version);
  } catch {
    return "unknown";
  }
}

/** Every file under root that can change what the generator makes, sorted (no maps, no declarations). */
function codeFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => compareStrings(a.name, b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && !/\.(map|d\.ts|tsbuildinfo)$/.test(entry.name)) out.push(path);
    }
  };
  walk(root);
  return out;
}
