/**
 * mnote-tools.config.json: targets as plugins. The config selects targets, their folders and
 * options; an outside module is a target; --check covers exactly the configured outputs; a broken
 * config stops with exit 2 and a message that says what to change. (The generator runs as a
 * subprocess: json-schema-to-typescript's prettier import fails inside Jest.)
 */
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync, mkdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { generatedDir, runCli as runCliOnce } from "../support/paths";
import { scratchProject } from "../support/tmp";
import { TARGETS } from "../../codegen/phases/emit";
import { GENERATED_TS, typeCheck } from "../support/tsc";

/** The generator as a subprocess, with a wide timeout: CI has 2 loaded cores. */
const runCli = (args: readonly string[], options: { cwd: string }) =>
  runCliOnce(args, { ...options, timeoutMs: 300_000 });

jest.setTimeout(900_000);

/** Every built-in target, by name, as the generator declares them (a new target joins the list by itself). */
const BUILT_IN = TARGETS.map((t) => t.name);

/** Every generated file of a folder (without the package build in dist/), path -> text. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/");
    if (entry.isFile() && !path.startsWith("dist/"))
      out[path] = readFileSync(join(entry.parentPath, entry.name), "utf8");
  }
  return out;
}

function writeConfig(root: string, config: unknown): void {
  writeFileSync(join(root, "mnote-tools.config.json"), JSON.stringify(config, null, 2));
}

/** An outside target, as a plugin author would publish it: plain CommonJS, nothing from this repository. */
const OUTSIDE_TARGET = `
module.exports = {
  name: "tool-list",
  options: { type: "object", additionalProperties: false, properties: { prefix: { type: "string", default: "- " } } },
  emit(model, context) {
    const lines = model.tools.map((t) => context.options.prefix + t.name + " (" + t.providerName + ")");
    return [{ path: "tools.txt", content: lines.join("\\n") + "\\n" }];
  },
};
`;

describe("mnote-tools.config.json", () => {
  it("an empty config, and one listing every built-in target, give today's generated/ byte for byte", () => {
    for (const config of [{}, { targets: BUILT_IN }]) {
      const project = scratchProject();
      writeConfig(project.root, config);
      const run = runCli(["generate", "--out", "fresh", "--quiet"], { cwd: project.root });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(snapshot(join(project.root, "fresh"))).toEqual(snapshot(generatedDir));
    }
  });

  it("a config that drops the MCP target regenerates without it, and --check agrees", () => {
    const project = scratchProject();
    writeConfig(project.root, { $schema: "./schema.json", targets: BUILT_IN.filter((t) => t !== "mcp") });
    const before = runCli(["generate", "--check"], { cwd: project.root });
    expect(before.status).toBe(1);
    expect(before.stderr).toContain("extra: generated/mcp/tools.ts (the generator no longer writes it)");
    expect(before.stderr).toContain("stale: generated/index.ts");

    const run = runCli(["generate"], { cwd: project.root });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(existsSync(join(project.generated, "mcp"))).toBe(false);
    expect(readFileSync(join(project.generated, "index.ts"), "utf8")).not.toContain("mcp");
    expect(existsSync(join(project.generated, "registry.ts"))).toBe(true);

    const after = runCli(["generate", "--check"], { cwd: project.root });
    expect(after.stderr).toBe("");
    expect(after.status).toBe(0);
    // and what is left still compiles without the MCP files
    const tsc = typeCheck(project.root, GENERATED_TS, ["generated/**/*.ts"]);
    expect(tsc.output).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("a target from outside the repository runs with its options, into its own folder, and --check covers that folder", () => {
    const project = scratchProject();
    mkdirSync(join(project.root, "plugins"));
    writeFileSync(join(project.root, "plugins", "tool-list.js"), OUTSIDE_TARGET);
    writeConfig(project.root, {
      targets: [...BUILT_IN, { module: "./plugins/tool-list.js", out: "lists", options: { prefix: "* " } }],
    });

    const run = runCli(["generate"], { cwd: project.root });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const list = readFileSync(join(project.root, "lists", "tools.txt"), "utf8");
    expect(list).toContain("* mnote.page.save (mnote_page_save)\n");
    expect(list.trim().split("\n")).toHaveLength(6);
    expect(snapshot(project.generated)).toEqual(snapshot(generatedDir));

    expect(runCli(["generate", "--check", "--quiet"], { cwd: project.root }).status).toBe(0);
    writeFileSync(join(project.root, "lists", "tools.txt"), list.replace("* ", "+ "));
    const drift = runCli(["generate", "--check"], { cwd: project.root });
    expect(drift.status).toBe(1);
    expect(drift.stderr).toContain("stale: lists/tools.txt");
    expect(drift.stdout).toContain("generated is up to date");
  });

  it("an outside target's options default from its schema, and bad options are refused", () => {
    const project = scratchProject();
    writeFileSync(join(project.root, "tool-list.js"), OUTSIDE_TARGET);
    writeConfig(project.root, { out: "out", targets: [{ module: "./tool-list.js" }] });
    expect(runCli(["generate", "--quiet"], { cwd: project.root }).status).toBe(0);
    expect(readFileSync(join(project.root, "out", "tools.txt"), "utf8")).toContain("- mnote.page.get (mnote_page_get)");

    writeConfig(project.root, {
      out: "out",
      targets: [{ module: "./tool-list.js", options: { prefix: 3, color: "red" } }],
    });
    const bad = runCli(["generate"], { cwd: project.root });
    expect(bad.status).toBe(3);
    expect(bad.stderr).toContain("options of target tool-list");
    expect(bad.stderr).toContain("/prefix must be string");
    expect(bad.stderr).toContain("(color)");
  });

  it.each([
    [{ targets: ["types", "mcp"] }, "target mcp needs target registry, which is not selected"],
    [{ targets: ["types", "typescript"] }, 'no built-in target "typescript"'],
    [{ targets: ["types", "types"] }, "target types is selected twice"],
    [{ targets: ["docs", { name: "types", options: { x: 1 } }] }, "target types takes no options"],
    [{ targets: [{ name: "types", out: "." }] }, "holds the project itself"],
    [{ out: "contract" }, "holds the contract"],
    [{ targets: ["docs", { module: "./nowhere.js" }] }, "cannot load target module ./nowhere.js"],
    [{ output: "x" }, "does not match the config schema (mnote-tools/config.schema.json)"],
  ])("a broken config %j stops with exit 3 (configuration) and writes nothing", (config, message) => {
    const project = scratchProject();
    writeConfig(project.root, config);
    const before = snapshot(project.generated);
    const run = runCli(["generate"], { cwd: project.root });
    expect(run.status).toBe(3);
    expect(run.stderr).toContain("invalid config: ");
    expect(run.stderr).toContain(message);
    expect(snapshot(project.generated)).toEqual(before);
  });

  it("--config names a file elsewhere; its paths are relative to it, and its folder is the project", () => {
    const project = scratchProject();
    mkdirSync(join(project.root, "conf"));
    writeFileSync(
      join(project.root, "conf", "gen.json"),
      JSON.stringify({ contract: "../contract", out: "only-types", targets: ["types"] }),
    );
    const run = runCli(["generate", "--config", "conf/gen.json", "--quiet"], { cwd: project.root });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(readdirSync(join(project.root, "conf", "only-types")).sort()).toEqual([".mnote-generated", "types.ts"]);
    expect(runCli(["generate", "--config", "conf/missing.json"], { cwd: project.root }).status).toBe(3);

    // the contract may lie outside the config's folder; an output folder may not
    writeFileSync(
      join(project.root, "conf", "gen.json"),
      JSON.stringify({ contract: "../contract", out: "../only-types", targets: ["types"] }),
    );
    const outside = runCli(["generate", "--config", "conf/gen.json"], { cwd: project.root });
    expect(outside.status).toBe(3);
    const root = realpathSync(project.root);
    expect(outside.stderr).toContain(
      `output folder ${join(root, "only-types")} is outside the project ${join(root, "conf")}`,
    );
  });
});
