/**
 * `call` reads its options without commander when it can (cli/fast-options.ts): whatever it reads
 * must be what commander would have given the command, and whatever it cannot read with certainty
 * it must leave to commander (help, unknown or repeated flags, values a parser or a choice
 * refuses), so that every message stays commander's.
 */
import type { Command } from "commander";
// the built CLI (dist/), as test/cli/option-sweep.test.ts: it reads package.json and contract/
// beside dist/, and its parsers' errors are the classes its own exitFor knows
/* eslint-disable @typescript-eslint/no-require-imports */
const { programFor } = require("../../dist/cli/main") as typeof import("../../cli/main");
const { exitFor } = require("../../dist/cli/exit") as typeof import("../../cli/exit");
const { fastRuntimeOptions } = require("../../dist/cli/fast-options") as typeof import("../../cli/fast-options");
/* eslint-enable @typescript-eslint/no-require-imports */

/** What commander makes of `call <args>` with env: the action's options, or the exit code it refuses with. */
async function commanderCall(args: string[], env: Record<string, string>): Promise<{ opts?: object; code?: number }> {
  const argv = ["node", "mnote-tools", "call", ...args];
  const program = programFor(argv);
  let opts: object | undefined;
  const quiet = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    if (c.commands.length === 0) c.action((o: object) => void (opts = o));
    c.commands.forEach(quiet);
  };
  quiet(program);
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith("MNOTE_")) delete process.env[k];
  Object.assign(process.env, env);
  try {
    await program.parseAsync(argv);
    return { opts };
  } catch (e) {
    return { code: exitFor(e).code };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** Read without commander: the same options commander gives. */
const READ: Array<[string[], Record<string, string>]> = [
  [[], {}],
  [["--db", "k.db", "--state", "s.db"], {}],
  [["--db=k.db", "--state=s.db", "--budgets", "off"], {}],
  [["--kernel-url", "http://127.0.0.1:8788", "--kernel-token", "t0k", "--kernel-timeout", "2500"], {}],
  [["--kernel-cli", "mnote-cli kernel", "--lease", "900", "--approval-ttl", "60000", "--idempotency-ttl", "1000"], {}],
  [["--store", "redis://127.0.0.1:6379/2", "--grants", "redis://127.0.0.1:6379/3"], {}],
  [["--approval-policy", "policy.json", "--state", "postgres://u@127.0.0.1:5432/db"], {}],
  [[], { MNOTE_TOOLS_DB: "env.db", MNOTE_BUDGETS: "off", MNOTE_KERNEL_TIMEOUT: "42" }],
  // the flag wins over its variable
  [["--db", "flag.db", "--budgets", "on"], { MNOTE_TOOLS_DB: "env.db", MNOTE_BUDGETS: "off" }],
  [["--state", "./x.db"], { MNOTE_TOOLS_STATE: "y.db", MNOTE_KERNEL_URL: "https://kernel.example" }],
];

/** Left to commander, which refuses them (exit 2) or answers them (--help, exit 0). */
const LEFT: Array<[string[], Record<string, string>]> = [
  [["--help"], {}],
  [["-h"], {}],
  [["--nope", "x"], {}],
  [["--db"], {}],
  [["--db", "--state", "s.db"], {}],
  [["--db", ""], {}],
  [["--budgets", "maybe"], {}],
  [["--kernel-timeout", "1.5"], {}],
  [["--store", "http://127.0.0.1:6379"], {}],
  [["--kernel-url=ftp://x"], {}],
  [["positional"], {}],
  [[], { MNOTE_BUDGETS: "sometimes" }],
  [[], { MNOTE_TOOLS_STORE: "nope" }],
  [[], { MNOTE_KERNEL_TIMEOUT: "" }],
];

describe("call's options without commander", () => {
  it.each(READ)("reads %j (env %j) as commander does", async (args, env) => {
    const fast = fastRuntimeOptions(args, env);
    expect(fast).toBeDefined();
    const slow = await commanderCall(args, env);
    expect(slow.code).toBeUndefined();
    expect(fast).toEqual(slow.opts);
  });

  it.each(LEFT)("leaves %j (env %j) to commander", async (args, env) => {
    expect(fastRuntimeOptions(args, env)).toBeUndefined();
    // commander's own verdict stands: a refusal (2), or its help (0, no action run)
    const slow = await commanderCall(args, env);
    expect(slow.opts).toBeUndefined();
    expect([0, 2]).toContain(slow.code);
  });

  it("leaves a repeated flag to commander, which takes the last value", async () => {
    const args = ["--db", "a.db", "--db", "b.db"];
    expect(fastRuntimeOptions(args, {})).toBeUndefined();
    expect((await commanderCall(args, {})).opts).toMatchObject({ db: "b.db" });
  });
});
