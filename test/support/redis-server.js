// Jest's global setup and teardown for the suites that need Redis (test/support/redis.ts).
//
// A configured Redis wins: MNOTE_TEST_REDIS_PORT or MNOTE_TEST_REDIS_HOST point at one that runs
// already, and nothing is started. Otherwise a private redis-server is started on a free loopback
// port (nothing on disk), its port handed to the workers through MNOTE_TEST_REDIS_PORT, and it is
// stopped after the run. Without a redis-server binary, MNOTE_TEST_REDIS_SKIP carries the reason,
// and the Redis suites are skipped with it (or fail with it under MNOTE_REQUIRE_REDIS=1, as in CI).
// Plain JavaScript, so Jest runs it without a transform.
"use strict";
const { spawn } = require("node:child_process");
const { accessSync, constants, mkdtempSync, readdirSync, rmSync } = require("node:fs");
const { createConnection, createServer } = require("node:net");
const { tmpdir } = require("node:os");
const { delimiter, join } = require("node:path");

const MISSING = "redis-server not found (apt-get install redis-server)";
const STARTED = Symbol.for("mnote.test.redisServer");

/** The redis-server on PATH, or null. */
function findRedisServer(env = process.env) {
  for (const dir of (env.PATH || "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return null;
}

const PREFIX = "mnote-test-redis-";

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM"; // someone else's process: alive
  }
}

/**
 * Removes the folders of earlier runs that were killed before their teardown (SIGKILL, a CI
 * timeout): each folder carries the pid of the Jest that made it, and only a dead one's is removed.
 */
function removeStaleFolders(dir = tmpdir()) {
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^mnote-test-redis-(\d+)-/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** A port nothing listens on right now (the OS picks it). */
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

/** True once Redis on the port answers PING. */
function answersPing(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString("utf8").startsWith("+PONG")));
  });
}

/** Starts redis-server on a free port and waits until it answers; rejects with its own words if it exits. */
async function startRedis(binary) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d.toString("utf8")));
  let exited = null;
  child.once("exit", (code, signal) => (exited = { code, signal }));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (exited) break;
    if (await answersPing(port)) return { child, port, dir };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  throw new Error(
    `redis-server on port ${port} did not answer${exited ? ` (it exited with ${exited.code ?? exited.signal})` : ""}: ${stderr.trim()}`,
  );
}

async function globalSetup() {
  const env = process.env;
  if (env.MNOTE_TEST_REDIS_PORT || env.MNOTE_TEST_REDIS_HOST) return; // a Redis the caller runs
  removeStaleFolders();
  const binary = findRedisServer(env);
  if (!binary) {
    env.MNOTE_TEST_REDIS_SKIP = MISSING;
    return;
  }
  // a port taken between choosing and binding makes redis-server exit: choose again
  let lastError;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const started = await startRedis(binary);
      globalThis[STARTED] = started;
      // if Jest ends without its teardown (an error, Ctrl-C), the server must not outlive it
      process.once("exit", () => {
        started.child.kill("SIGKILL");
        rmSync(started.dir, { recursive: true, force: true });
      });
      // the workers start after this and inherit the environment
      env.MNOTE_TEST_REDIS_HOST = "127.0.0.1";
      env.MNOTE_TEST_REDIS_PORT = String(started.port);
      return;
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError;
}

async function globalTeardown() {
  const started = globalThis[STARTED];
  if (!started) return;
  globalThis[STARTED] = undefined;
  const { child, dir } = started;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

module.exports = { globalSetup, globalTeardown, findRedisServer, removeStaleFolders, MISSING };
