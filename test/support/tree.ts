/**
 * What is on disk under a folder, entry by entry, so a test can assert that a refused run changed
 * nothing: every file by the hash of its bytes, every symlink by where it points, every folder.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Path (relative, forward slashes) -> "dir", "file <sha256>" or "link -> <target>"; symlinks are not followed. */
export function treeState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      const path = relative(dir, full).split(sep).join("/");
      if (entry.isSymbolicLink()) state[path] = `link -> ${readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        state[path] = "dir";
        visit(full);
      } else state[path] = `file ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
    }
  };
  visit(dir);
  return state;
}
