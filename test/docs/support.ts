/**
 * The fenced shell blocks of README.md and docs/*.md, and a scratch clone to run them in (see
 * "The docs are tested" in README.md for the markers).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

export type Marker = { kind: "runnable" } | { kind: "servers" } | { kind: "not"; reason: string } | { kind: "none" };

export interface ShellBlock {
  /** The document, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  marker: Marker;
  /** The block's text (its lines, without the fences). */
  text: string;
}

/** README.md and every docs/*.md. */
export function documents(): string[] {
  const docs = readdirSync(join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

/** Every ```sh block of a document with the marker on the line before it. */
export function shellBlocks(file: string): ShellBlock[] {
  const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})(\S*)/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence[1]!) && l.trim() === fence[1]);
    if (end < 0) throw new Error(`${file}:${i + 1}: a fence that is never closed`);
    if (fence[2] === "sh" || fence[2] === "bash") {
      // the marker is the last line before the fence that is not blank (Prettier puts a blank line after a comment)
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === "") before--;
      blocks.push({
        file,
        line: i + 1,
        marker: markerOf(lines[before] ?? ""),
        text: lines.slice(i + 1, end).join("\n"),
      });
    }
    i = end;
  }
  return blocks;
}

function markerOf(line: string): Marker {
  const m = /^<!--\s*(.*?)\s*-->$/.exec(line.trim());
  if (!m) return { kind: "none" };
  if (m[1] === "runnable") return { kind: "runnable" };
  if (m[1] === "runnable: servers") return { kind: "servers" };
  const not = /^not runnable:\s*(.+)$/.exec(m[1]!);
  return not ? { kind: "not", reason: not[1]! } : { kind: "none" };
}

/**
 * A scratch clone: the repository's files as git lists them (tracked and new, not ignored), a git
 * repository with one commit (for `diff --base HEAD`), the built dist/ and generated/dist/ when
 * asked, and the repository's node_modules linked in (nothing is installed).
 */
export function scratchClone(options: { withBuild: boolean }): string {
  const clone = join(tempDir("mnote-clone-"), "mnote-tools");
  mkdirSync(clone);
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    try {
      cpSync(join(repoRoot, file), join(clone, file));
    } catch {
      // listed but deleted in the working tree
    }
  }
  if (options.withBuild) {
    cpSync(join(repoRoot, "dist"), join(clone, "dist"), { recursive: true });
    cpSync(join(repoRoot, "generated", "dist"), join(clone, "generated", "dist"), { recursive: true });
  }
  symlinkSync(join(repoRoot, "node_modules"), join(clone, "node_modules"));
  const git = (...args: string[]) => {
    const run = spawnSync("git", args, { cwd: clone, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  };
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=docs test", "-c", "user.email=docs@test.invalid", "commit", "-qm", "scratch clone");
  return clone;
}

/** Whether a private network namespace with its own loopback can be had (for the documented fixed ports). */
export function networkNamespace(): string[] | null {
  for (const flags of [["-n"], ["-r", "-n"]]) {
    const probe = spawnSync("unshare", [...flags, "sh", "-c", "ip link set lo up"], { encoding: "utf8" });
    if (probe.status === 0) return flags;
  }
  return null;
}
