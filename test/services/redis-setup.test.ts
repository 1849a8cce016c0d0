/**
 * The tests bring their own Redis: Jest's global setup starts a private redis-server on a free
 * port when none is configured, hands the port to the workers and stops it afterwards; without the
 * binary it names the reason the Redis suites are skipped with. Driven in a child process, as Jest
 * runs it: once with redis-server hidden from PATH, once with it (when this machine has it).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

const { findRedisServer, removeStaleFolders, MISSING } = require("../support/redis-server.js") as {
  findRedisServer: (env: NodeJS.ProcessEnv) => string | null;
  removeStaleFolders: (dir: string) => void;
  MISSING: string;
};

/** Runs global setup and teardown in a fresh node; prints what a worker would see, and whether the server answered. */
function runSetup(env: NodeJS.ProcessEnv) {
  const script = `
    const net = require("node:net");
    const { globalSetup, globalTeardown } = require(${JSON.stringify(join(repoRoot, "test/support/redis-server.js"))});
    const ping = (port) => new Promise((resolve) => {
      const s = net.createConnection({ host: "127.0.0.1", port });
      s.once("error", () => resolve(false));
      s.once("connect", () => s.write("PING\\r\\n"));
      s.once("data", (d) => { s.destroy(); resolve(d.toString().startsWith("+PONG")); });
    });
    (async () => {
      await globalSetup();
      const port = process.env.MNOTE_TEST_REDIS_PORT;
      const during = port ? await ping(Number(port)) : null;
      await globalTeardown();
      const after = port ? await ping(Number(port)) : null;
      console.log(JSON.stringify({ port: port ?? null, skip: process.env.MNOTE_TEST_REDIS_SKIP ?? null, during, after }));
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  const run = spawnSync(process.execPath, ["-e", script], { env, encoding: "utf8", timeout: 60_000 });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as {
    port: string | null;
    skip: string | null;
    during: boolean | null;
    after: boolean | null;
  };
}

/** A PATH with every program of the given one except redis-server (symlinks in a scratch folder). */
function pathWithoutRedis(): string {
  const bin = join(tempDir("mnote-path-"), "bin");
  mkdirSync(bin);
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name.startsWith("redis-")) continue;
      try {
        symlinkSync(join(dir, name), join(bin, name));
      } catch {
        // an earlier folder's program of the same name wins, as on PATH
      }
    }
  }
  return bin;
}

function envWithout(...names: string[]): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const n of names) delete env[n];
  return env;
}

const unconfigured = () => envWithout("MNOTE_TEST_REDIS_PORT", "MNOTE_TEST_REDIS_HOST", "MNOTE_TEST_REDIS_SKIP");

describe("Jest's global setup for Redis", () => {
  it("finds no redis-server on an empty PATH", () => {
    expect(findRedisServer({ PATH: "" })).toBeNull();
  });

  it("without redis-server on PATH: starts nothing and names the reason, with the install line", () => {
    const env = { ...unconfigured(), PATH: pathWithoutRedis() };
    expect(findRedisServer(env)).toBeNull();
    const seen = runSetup(env);
    expect(seen).toEqual({ port: null, skip: MISSING, during: null, after: null });
    expect(MISSING).toContain("apt-get install redis-server");
  });

  it("a configured MNOTE_TEST_REDIS_PORT is used as it is: nothing is started", () => {
    const seen = runSetup({ ...unconfigured(), MNOTE_TEST_REDIS_PORT: "1" });
    expect(seen).toEqual({ port: "1", skip: null, during: false, after: false });
  });

  const binary = findRedisServer(process.env);
  (binary ? it : it.skip)(
    binary ? "with redis-server: starts one on a free port that answers, and stops it" : `skipped: ${MISSING}`,
    () => {
      const seen = runSetup(unconfigured());
      expect(seen.skip).toBeNull();
      expect(Number(seen.port)).toBeGreaterThan(0);
      expect(seen.during).toBe(true);
      expect(seen.after).toBe(false);
    },
  );

  it("a run killed before its teardown leaves a folder the next run's setup removes; a running one's stays", () => {
    const dir = tempDir("mnote-stale-");
    // a pid that ran and has exited, and one that runs (this test's parent)
    const gone = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
    const deadPid = Number(gone.stdout.trim());
    const killed = join(dir, `mnote-test-redis-${deadPid}-abc123`);
    const running = join(dir, `mnote-test-redis-${process.ppid}-def456`);
    const other = join(dir, "mnote-test-redisish");
    for (const d of [killed, running, other]) mkdirSync(d);
    removeStaleFolders(dir);
    expect(readdirSync(dir).sort()).toEqual([`mnote-test-redis-${process.ppid}-def456`, "mnote-test-redisish"]);
  });
});
