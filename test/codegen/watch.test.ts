/**
 * `generate --watch` keeps hearing the contract however it is changed: saved by rename (how most
 * editors save), saved by rename again (the old watcher went deaf after the first), deleted and
 * written anew, a whole folder removed and recreated, the contract folder itself removed and
 * recreated. Each change must reach generated/ (polled with a wide timeout: CI runs on loaded cores).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliPath } from "../support/paths";
import { scratchProject } from "../support/tmp";

const TOOL = join("tools", "page.get.tool.json");
const DOC = join("docs", "tools", "mnote.page.get.md");
const TIMEOUT_MS = 60_000;

let watcher: ChildProcess | undefined;
let output = "";
afterEach(async () => {
  if (watcher && watcher.exitCode === null) {
    const exited = new Promise((r) => watcher!.once("exit", r));
    watcher.kill("SIGTERM");
    await exited;
  }
  watcher = undefined;
});

/** Starts generate --watch in the project and waits for its first generation. */
async function startWatch(root: string): Promise<void> {
  output = "";
  watcher = spawn(process.execPath, [cliPath, "generate", "--watch"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  watcher.stdout!.on("data", (d: Buffer) => (output += d.toString("utf8")));
  watcher.stderr!.on("data", (d: Buffer) => (output += d.toString("utf8")));
  await until(() => output.includes("watching"), "the watcher to start");
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the watcher said:\n${output}`);
    if (watcher && watcher.exitCode !== null)
      throw new Error(`the watcher exited with ${watcher.exitCode}:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The tool file with its description ending in a marker, so the generated doc shows which save arrived. */
function toolWithMarker(original: string, marker: string): string {
  const tool = JSON.parse(original) as { "x-mnote-tool": { description: string } };
  tool["x-mnote-tool"].description = `${tool["x-mnote-tool"].description} ${marker}`;
  return JSON.stringify(tool, null, 2) + "\n";
}

function docShows(generated: string, marker: string): () => boolean {
  return () => existsSync(join(generated, DOC)) && readFileSync(join(generated, DOC), "utf8").includes(marker);
}

describe("generate --watch", () => {
  it("regenerates after rename-saves, delete-and-write, and deleted and recreated folders", async () => {
    const p = scratchProject();
    const file = join(p.contract, TOOL);
    const original = readFileSync(file, "utf8");
    await startWatch(p.root);

    // an editor's save: write a temporary file beside it, rename it over the original
    for (const marker of ["MARK_RENAME_ONE", "MARK_RENAME_TWO", "MARK_RENAME_THREE"]) {
      writeFileSync(`${file}.swp`, toolWithMarker(original, marker));
      renameSync(`${file}.swp`, file);
      await until(docShows(p.generated, marker), `the rename-save ${marker} to reach generated/`);
    }

    // deleted, then written anew
    unlinkSync(file);
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(file, toolWithMarker(original, "MARK_REWRITTEN"));
    await until(docShows(p.generated, "MARK_REWRITTEN"), "the rewritten file to reach generated/");

    // a whole folder removed and recreated (a git checkout of another branch does this)
    const tools = join(p.contract, "tools");
    const saved = join(p.root, "tools-saved");
    cpSync(tools, saved, { recursive: true });
    rmSync(tools, { recursive: true });
    await new Promise((r) => setTimeout(r, 300));
    cpSync(saved, tools, { recursive: true });
    writeFileSync(file, toolWithMarker(original, "MARK_FOLDER_BACK"));
    await until(docShows(p.generated, "MARK_FOLDER_BACK"), "the recreated folder to reach generated/");

    // the contract folder itself removed and recreated
    const contractSaved = join(p.root, "contract-saved");
    cpSync(p.contract, contractSaved, { recursive: true });
    rmSync(p.contract, { recursive: true });
    await new Promise((r) => setTimeout(r, 300));
    cpSync(contractSaved, p.contract, { recursive: true });
    writeFileSync(file, toolWithMarker(original, "MARK_CONTRACT_BACK"));
    await until(docShows(p.generated, "MARK_CONTRACT_BACK"), "the recreated contract folder to reach generated/");

    // and it still hears a plain save afterwards
    writeFileSync(file, toolWithMarker(original, "MARK_LAST"));
    await until(docShows(p.generated, "MARK_LAST"), "a plain save to reach generated/");
  });
});
