// A private PostgreSQL server for the suites that need one (test/support/postgres.ts): initdb in a
// temp folder, pg_ctl start on a free loopback port, trust authentication for one user "mnote",
// stopped and deleted after. Like the private redis-server (redis-server.js), but per suite: the
// multi-process suite restarts its server mid-run, which must not disturb any other suite.
//
// PostgreSQL refuses to run as root. Under root (CI containers) the server runs as the "postgres"
// user that the distribution's package creates (runuser -u postgres), owning its temp folder.
// Binaries: initdb and pg_ctl on PATH, else the newest /usr/lib/postgresql/<version>/bin (Debian
// and Ubuntu keep them there). Without them, postgresMissing() says why and how to install.
// Plain JavaScript, like the Redis one, so it can also serve a Jest global setup.
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} = require("node:fs");
const { createServer } = require("node:net");
const { tmpdir } = require("node:os");
const { delimiter, join } = require("node:path");

const INSTALL = "apt-get install postgresql";
const USER = "mnote";

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder holding initdb and pg_ctl, or null. */
function findPostgresBin(env = process.env) {
  for (const dir of (env.PATH || "").split(delimiter))
    if (dir && executable(join(dir, "initdb")) && executable(join(dir, "pg_ctl"))) return dir;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (executable(join(root, v, "bin", "initdb"))) return join(root, v, "bin");
  return null;
}

/** The uid/gid to run the server as when we are root ("postgres"), or null when we are not root. */
function serverUser() {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const found = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  if (found.status !== 0) return undefined;
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  return { name: "postgres", uid: Number(found.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Why a private server cannot be started here, or undefined. */
function postgresMissing() {
  if (!findPostgresBin()) return `PostgreSQL server binaries (initdb, pg_ctl) not found (${INSTALL})`;
  if (serverUser() === undefined)
    return `running as root and there is no "postgres" user to run the server as (${INSTALL} creates it)`;
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary, as "postgres" under root; throws with its output when it fails. */
function run(bin, tool, args, user) {
  const command = user ? "runuser" : join(bin, tool);
  const argv = user ? ["-u", user.name, "--", join(bin, tool), ...args] : args;
  try {
    return execFileSync(command, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  } catch (e) {
    throw new Error(`${tool} ${args.join(" ")} failed: ${(e.stderr || "") + (e.stdout || "") || e.message}`);
  }
}

/**
 * Starts a private server; resolves to { url, port, stop(mode), start(), restart() }. stop("immediate")
 * is a crash (no shutdown checkpoint: recovery replays the WAL on the next start). Tests run with
 * fsync off (a crash of the server process loses nothing committed; only the machine's would);
 * { durable: true } keeps Postgres's default, for the bench.
 */
async function startPostgres(options = {}) {
  const bin = findPostgresBin();
  if (!bin) throw new Error(postgresMissing());
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "mnote-test-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  run(bin, "initdb", ["-D", data, "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"], user);
  let port;
  let started = false;
  let running = false;
  const ctl = (args) => run(bin, "pg_ctl", ["-D", data, ...args], user);
  const start = async () => {
    // a port taken between choosing and binding: choose again (only the first time: a restarted
    // server keeps its port, which the runtimes' URLs name)
    for (let attempt = 0; ; attempt++) {
      port ??= await freePort();
      try {
        ctl([
          "-l",
          log,
          "-w",
          "-t",
          "60",
          "-o",
          `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${options.durable ? "" : " -c fsync=off"} -c max_connections=200`,
          "start",
        ]);
        running = started = true;
        return;
      } catch (e) {
        if (attempt >= 2) throw new Error(`${e.message}\n${existsSync(log) ? readFileSync(log, "utf8") : ""}`);
        if (!started) port = undefined;
        else await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  const stop = (mode = "fast") => {
    if (!running) return;
    running = false;
    ctl(["-w", "-t", "60", "-m", mode, "stop"]);
  };
  await start();
  // if the test process ends without stopping it, the server must not outlive it
  const onExit = () => {
    try {
      stop("immediate");
    } catch {
      // already gone
    }
  };
  process.once("exit", onExit);
  return {
    get port() {
      return port;
    },
    url: (database = "postgres") => `postgres://${USER}@127.0.0.1:${port}/${database}`,
    start,
    stop,
    async restart(mode = "fast") {
      stop(mode);
      await start();
    },
    async destroy() {
      process.removeListener("exit", onExit);
      try {
        stop("immediate");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

module.exports = { startPostgres, postgresMissing, findPostgresBin, INSTALL };
