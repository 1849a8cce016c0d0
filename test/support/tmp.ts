import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contractDir, generatedDir } from "./paths";

const made: string[] = [];

export function tempDir(prefix = "mnote-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A scratch folder holding these files (path relative to it -> text), folders made as needed. */
export function scratchTree(files: Record<string, string>, prefix = "mnote-tree-"): string {
  const root = tempDir(prefix);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A scratch project: a copy of contract/ and generated/ to break freely. */
export function scratchProject(): { root: string; contract: string; generated: string } {
  const root = tempDir("mnote-project-");
  cpSync(contractDir, join(root, "contract"), { recursive: true });
  cpSync(generatedDir, join(root, "generated"), { recursive: true });
  return { root, contract: join(root, "contract"), generated: join(root, "generated") };
}

afterAll(() => {
  // retried: on a loaded machine a child (npm, a server being stopped) may still be writing into a
  // folder when it is removed, and rmdir then fails with ENOTEMPTY or EBUSY
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});
