/** A seeded scratch project: a kernel database and a runtime state file with session grants. */
import { join } from "node:path";
import { repoRoot, runCli } from "./paths";
import { tempDir } from "./tmp";

export interface GrantSpec {
  session: string;
  actor: string;
  document?: string;
  scope?: string;
  trace?: string;
}

export function seededProject(grants: GrantSpec[]): { dir: string; db: string; state: string } {
  const dir = tempDir("mnote-project-");
  const db = join(dir, "kernel.db");
  const state = join(dir, "runtime.db");
  const seed = runCli(["kernel", "seed", join(repoRoot, "examples", "demo-workspace.json"), "--db", db]);
  if (seed.status !== 0) throw new Error(seed.stderr);
  for (const g of grants) {
    const args = [
      "session",
      "grant",
      "--state",
      state,
      "--session",
      g.session,
      "--workspace",
      "ws_1",
      "--document",
      g.document ?? "doc_1",
      "--actor",
      g.actor,
      "--scope",
      g.scope ?? "page.read,page.write,artifact.write",
    ];
    if (g.trace) args.push("--trace", g.trace);
    const run = runCli(args);
    if (run.status !== 0) throw new Error(run.stderr);
  }
  return { dir, db, state };
}
