/**
 * Preloaded into a child the bench times (`node --require dist/bench/cpu-usage.js ...`): when the
 * process exits, it writes its own process.cpuUsage() (user and system µs, every thread of the
 * process) to the file MNOTE_BENCH_CPU_FILE names. The parent reads it: the child's CPU time to the
 * microsecond, which waiting for a busy core does not inflate (bench/proc.ts).
 */
import { writeFileSync } from "node:fs";

const file = process.env.MNOTE_BENCH_CPU_FILE;
if (file) {
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, JSON.stringify({ user, system }));
  });
}
