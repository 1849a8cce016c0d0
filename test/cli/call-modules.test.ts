/**
 * What a one-call process loads (issue 33, cold start): `mnote-tools call` answers with the
 * precompiled validators, so neither Ajv (loaded only when a policy condition value is checked,
 * runtime/approval/condition-values.ts) nor the OpenTelemetry API (loaded only once something
 * registers with it, common/telemetry/otel.ts) is in its module list. Each was a tenth to a fifth
 * of a call's CPU (bench/, coldStart); this keeps them from coming back through an eager import.
 * Nor does a call load another verb's module, the generator or the contract diff: cli/main.ts loads
 * a verb's implementation only when it runs. Nor does it search for SQLite's native addon: the
 * `bindings` package (and its file-uri-to-path) is what better-sqlite3 searches with when it is not
 * told where its addon is (common/sqlite.ts tells it). Nor commander, nor node:child_process: a
 * call's options are read without commander (cli/fast-options.ts), and the kernel client loads
 * node:child_process only to spawn an adapter (generated/kernel/transport.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { makeRequest } from "../support/requests";

/** Runs one page.get through `call` with a preloaded hook that lists every loaded module at exit. */
function callListingModules(): { stdout: string; modules: string[] } {
  const p = seededProject([{ session: "sess_1", actor: "user_1" }]);
  const hook = join(p.dir, "list-modules.js");
  const list = join(p.dir, "modules.json");
  writeFileSync(
    hook,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, JSON.stringify([...Object.keys(require.cache), ...process.moduleLoadList])));\n`,
  );
  // no OTEL_* variable: with one, telemetry starts and loading the API is the point
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  const run = runCli(["call", "--db", p.db, "--state", p.state], {
    input: JSON.stringify(makeRequest("mnote.page.get")),
    env: { ...env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require ${JSON.stringify(hook)}` },
  });
  if (run.status !== 0) throw new Error(`call exited ${run.status}: ${run.stderr}`);
  return { stdout: run.stdout, modules: JSON.parse(readFileSync(list, "utf8")) as string[] };
}

describe("mnote-tools call, one page.get", () => {
  it("answers without loading Ajv, the OpenTelemetry API, the native addon's search, commander or node:child_process", () => {
    const { stdout, modules } = callListingModules();
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, toolName: "mnote.page.get" });
    // the list is real: the registry, the validators it answers with and SQLite are in it
    const loaded = (fragment: string) => modules.some((m) => m.split("\\").join("/").includes(fragment));
    expect(["registry.js", "validators/index.js", "/better-sqlite3/"].filter(loaded)).toHaveLength(3);
    const unwanted = [
      "/node_modules/ajv/",
      "/node_modules/ajv-formats/",
      "/node_modules/@opentelemetry/api/",
      "/node_modules/bindings/",
      "/node_modules/file-uri-to-path/",
      "/node_modules/commander/",
      "NativeModule child_process",
    ];
    expect(unwanted.filter(loaded)).toEqual([]);
  });

  it("loads no other verb's module, nor the generator or the contract diff", () => {
    const { stdout, modules } = callListingModules();
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, toolName: "mnote.page.get" });
    const dist = modules.map((m) => m.split("\\").join("/")).filter((m) => m.includes("/dist/"));
    const commands = dist.filter((m) => m.includes("/dist/cli/commands/")).map((m) => m.replace(/.*\//, ""));
    expect(commands).toEqual(["call.js"]);
    expect(dist.filter((m) => /\/dist\/(codegen|diff)\//.test(m))).toEqual([]);
  });
});
