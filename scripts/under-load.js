#!/usr/bin/env node
/**
 * Runs a command under a CPU hog, to prove that timing-dependent tests pass at the load CI meets
 * (issue 47: the fault matrix failed at load 18 on 2 cores).
 *
 *     node scripts/under-load.js [--hogs N] -- <command> [args...]
 *
 * Starts N busy loops (default 18: with Jest and its children, a load average about 20 on a 2-core
 * machine), runs the command, prints the load average before and after, stops the loops it started
 * (by their process ids) and exits with the command's status.
 */
"use strict";
const { spawn } = require("node:child_process");
const { loadavg } = require("node:os");

const args = process.argv.slice(2);
const dash = args.indexOf("--");
if (dash < 0 || dash === args.length - 1) {
  console.error("usage: node scripts/under-load.js [--hogs N] -- <command> [args...]");
  process.exit(2);
}
const own = args.slice(0, dash);
const command = args.slice(dash + 1);
const at = own.indexOf("--hogs");
const hogs = at >= 0 ? Number(own[at + 1]) : 18;
if (!Number.isInteger(hogs) || hogs < 1 || hogs > 200) {
  console.error("--hogs takes a whole number from 1 to 200");
  process.exit(2);
}

const loops = [];
for (let i = 0; i < hogs; i++) {
  loops.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
}
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
const stop = () => {
  for (const child of loops) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
};
const started = Date.now();
console.error(`under-load: ${hogs} busy loops started; load average ${load()}`);
const child = spawn(command[0], command.slice(1), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    // the command is told, and its exit (below) stops the loops
    if (child.exitCode === null) child.kill(signal);
    else stop();
  });
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, loadavg()[0])), 5_000);
child.on("exit", (code, signal) => {
  clearInterval(sampler);
  peak = Math.max(peak, loadavg()[0]);
  stop();
  const seconds = Math.round((Date.now() - started) / 1000);
  console.error(`under-load: done in ${seconds} s; load average ${load()}, 1-minute peak ${peak.toFixed(1)}`);
  process.exit(code ?? (signal ? 1 : 0));
});
