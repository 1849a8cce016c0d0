import { cpSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { contractDir, repoRoot } from "./paths";
import { tempDir } from "./tmp";

export const seventhToolFixture = join(repoRoot, "test", "fixtures", "seventh-tool");

/** contract/ plus the seventh tool, in a temporary folder. */
export function contractWithSeventhTool(): string {
  const dir = join(tempDir("mnote-seventh-"), "contract");
  cpSync(contractDir, dir, { recursive: true });
  for (const sub of ["tools", "kernel"]) cpSync(join(seventhToolFixture, sub), join(dir, sub), { recursive: true });
  return dir;
}

/** A copy of contract/ with one file replaced (or added), for breaking it on purpose. */
export function contractWith(path: string, text: string): string {
  const dir = join(tempDir("mnote-broken-"), "contract");
  cpSync(contractDir, dir, { recursive: true });
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
  return dir;
}
