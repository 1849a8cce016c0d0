/**
 * npm run demo: the whole path on a fresh clone. Generates the code from contract/, seeds an
 * embedded kernel with the demo workspace, registers two session grants as the mnote app would,
 * starts `mnote-tools serve` on loopback, and drives all six tools through the generated Hermes
 * plugin from python3 (scripts/hermes/demo.py), printing every request and response.
 * Exits 0 only when every step gave the expected result.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(__dirname, "..", "..");
const cli = join(root, "bin", "mnote-tools.js");
const work = join(root, ".mnote", "demo");

function run(title: string, args: string[]): void {
  console.log(`\n$ mnote-tools ${args.join(" ")}`);
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`demo: ${title} failed (exit ${result.status})`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const db = join(work, "kernel.db");
  const state = join(work, "runtime.db");
  prepare(db, state);
  const token = randomBytes(16).toString("hex");
  const { server, url } = await startServer(db, state, token);
  const agent = runAgent(url, token);
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  if (agent.error) console.error(`demo: could not run python3: ${agent.error.message}`);
  process.exit(agent.status === 0 ? 0 : 1);
}

/** Generates the code, seeds the kernel and registers the two session grants, as the mnote app would. */
function prepare(db: string, state: string): void {
  // MNOTE_DEMO_GENERATE=check verifies generated/ instead of rewriting it (the test suite uses it,
  // since other tests read generated/ at the same time)
  run("generate", process.env.MNOTE_DEMO_GENERATE === "check" ? ["generate", "--check"] : ["generate"]);
  run("seeding the kernel", ["kernel", "seed", "examples/demo-workspace.json", "--db", db]);
  run("the owner's session grant", [
    "session",
    "grant",
    "--state",
    state,
    "--session",
    "hermes_demo_owner",
    "--workspace",
    "ws_1",
    "--document",
    "doc_1",
    "--actor",
    "user_1",
    "--scope",
    "page.read,page.write,artifact.write",
    "--trace",
    "trace_demo",
  ]);
  run("an outsider's session grant", [
    "session",
    "grant",
    "--state",
    state,
    "--session",
    "hermes_demo_reader",
    "--workspace",
    "ws_1",
    "--document",
    "doc_secret",
    "--actor",
    "user_2",
    "--scope",
    "page.read",
  ]);
}

/** `mnote-tools serve` on loopback (port 0), and the URL it says it listens on. */
async function startServer(db: string, state: string, token: string): Promise<{ server: ChildProcess; url: string }> {
  console.log("\n$ mnote-tools serve --port 0 --token <random>");
  const server = spawn(
    process.execPath,
    [cli, "serve", "--db", db, "--state", state, "--port", "0", "--token", token],
    // the contract's own approval levels: no host policy (the approval round shows them)
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, MNOTE_APPROVAL_POLICY: undefined } },
  );
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = "";
    server.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.includes('"listening"'));
      if (line) resolveUrl(JSON.parse(line).listening);
    });
    server.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
  console.log(`runtime listening on ${url}\n`);
  return { server, url };
}

/** The generated Hermes plugin driven from python3 (scripts/hermes/demo.py) against the server. */
function runAgent(url: string, token: string): SpawnSyncReturns<Buffer> {
  return spawnSync(
    "python3",
    [
      join(root, "scripts", "hermes", "demo.py"),
      join(root, "generated", "hermes-plugin", "mnote"),
      "hermes_demo_owner",
      "hermes_demo_reader",
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, MNOTE_TOOLS_URL: url, MNOTE_TOOLS_TOKEN: token, PYTHONDONTWRITEBYTECODE: "1" },
    },
  );
}

main().catch((e) => {
  console.error(`demo: ${(e as Error).message}`);
  process.exit(1);
});
