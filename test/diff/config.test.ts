/**
 * What a team configures for `mnote-tools diff` and what CI tools read from it: the severity file
 * and the categories (and how they change the exit code), the schemas of the two configuration
 * files, SARIF, stable fingerprints and --baseline.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { runDiff, type DiffOptions } from "../../cli/commands/diff";
import { CliExit } from "../../cli/exit";
import { CATEGORIES, RULES } from "../../diff/rules";
import { FINGERPRINT_KEY } from "../../diff/report/sarif";
import { contractWith } from "../support/fixtures";
import { contractDir, repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";
import rulesSchema from "../../codegen/diff-rules.schema.json";
import ignoreSchema from "../../codegen/diff-ignore.schema.json";

const SAVE = "tools/page.save.tool.json";
const TITLE = "tools/page.update_title.tool.json";
const saveText = readFileSync(join(contractDir, SAVE), "utf8");

function withVersion(dir: string, version: string): string {
  const manifest = join(dir, "contract.json");
  const json = JSON.parse(readFileSync(manifest, "utf8"));
  json.version = version;
  writeFileSync(manifest, JSON.stringify(json, null, 2));
  return dir;
}
/** page.save's mode loses "replace": request-enum-narrowed (breaking; wire, source). */
const narrowed = () =>
  withVersion(contractWith(SAVE, saveText.replace('"enum": ["replace", "append"]', '"enum": ["append"]')), "1.0.0");
/** A description of page.save's args changes: description-changed (warning; model). */
const described = () =>
  withVersion(
    contractWith(SAVE, saveText.replace('"The blocks to write, in order', '"The blocks to send, in order')),
    "1.0.0",
  );
const base = () => {
  const dir = join(tempDir("mnote-release-"), "1.0.0");
  cpSync(contractDir, dir, { recursive: true });
  return withVersion(dir, "1.0.0");
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(opts: Partial<DiffOptions> & { contract: string }): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const out = jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = jest.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    stderr += args.join(" ") + "\n";
  });
  try {
    await runDiff({ releases: join(repoRoot, "contract-releases"), format: "human", base: base(), ...opts });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (e instanceof CliExit) return { code: e.code, stdout, stderr };
    throw e;
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

function file(name: string, json: unknown): string {
  const path = join(tempDir("mnote-diff-config-"), name);
  writeFileSync(path, typeof json === "string" ? json : JSON.stringify(json, null, 2));
  return path;
}
const rules = (json: unknown) => file("diff-rules.json", json);

describe("the configuration files' schemas", () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv, ["date"]);

  it("are valid JSON Schema 2020-12 and compile in strict mode", () => {
    expect(ajv.validateSchema(rulesSchema)).toBe(true);
    expect(ajv.validateSchema(ignoreSchema)).toBe(true);
    ajv.addSchema(rulesSchema);
    expect(() => ajv.compile(ignoreSchema)).not.toThrow();
  });

  it("list exactly the rules of rules.ts and the four categories", () => {
    expect(rulesSchema.$defs.RuleId.enum).toEqual(RULES.map((r) => r.id));
    expect(rulesSchema.$defs.Category.enum).toEqual([...CATEGORIES]);
  });

  it("accept the files committed in contract-releases/", () => {
    const committed = (name: string) => JSON.parse(readFileSync(join(repoRoot, "contract-releases", name), "utf8"));
    expect(ajv.getSchema(rulesSchema.$id)!(committed("diff-rules.json"))).toBe(true);
    expect(ajv.getSchema(ignoreSchema.$id)!(committed("diff-ignore.json"))).toBe(true);
  });
});

describe("severities and categories change the exit code", () => {
  it("default: a breaking change is an error and fails without a new major version", async () => {
    const r = await run({ contract: narrowed() });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL: breaking changes need version 2.0.0");
  });

  it("a breaking rule set to warn is reported and passes, unless --fail-on warning", async () => {
    const file = rules({ rules: { "request-enum-narrowed": "warn" } });
    const r = await run({ contract: narrowed(), rules: file });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("[severity warn] request-enum-narrowed  mnote.page.save  /args/properties/mode/enum");
    expect(r.stdout).toContain("OK: no errors (1 breaking change(s) below severity error, 0 warning, 0 safe)");
    const strict = await run({ contract: narrowed(), rules: file, failOn: "warning" });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain("FAIL: 1 warning(s), and --fail-on warning fails on warnings");
    expect(strict.stdout).not.toMatch(/^OK/m);
  });

  it("a rule set to off is not reported at all", async () => {
    const r = await run({
      contract: narrowed(),
      rules: rules({ rules: { "request-enum-narrowed": "off" } }),
      format: "json",
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).changes).toEqual([]);
  });

  it("a warning rule set to error fails like a breaking change", async () => {
    const passes = await run({ contract: described() });
    expect(passes.code).toBe(0);
    const r = await run({ contract: described(), rules: rules({ rules: { "description-changed": "error" } }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL: changes of severity error need version 2.0.0: 1 change(s) of severity error");
  });

  it("levels set the severity of every rule of a level", async () => {
    const r = await run({ contract: narrowed(), rules: rules({ levels: { breaking: "info" } }), format: "json" });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.severities).toEqual({ error: 0, warn: 0, info: 1 });
    expect(report.changes[0]).toMatchObject({ rule: "request-enum-narrowed", level: "breaking", severity: "info" });
  });

  it("--category judges only those categories: a wire change is not a model change, but a wire break is judged until except names wire", async () => {
    const model = await run({ contract: narrowed(), category: "model", format: "json" });
    expect(model.code).toBe(1);
    expect(JSON.parse(model.stdout)).toMatchObject({
      categories: ["model"],
      changes: [{ rule: "request-enum-narrowed", level: "breaking" }],
    });
    expect(model.stderr).toContain("1 wire break(s) judged although the categories judged (model) leave wire out");
    const unjudged = await run({
      contract: narrowed(),
      category: "model",
      rules: rules({ except: ["wire"] }),
      format: "json",
    });
    expect(unjudged.code).toBe(0);
    expect(JSON.parse(unjudged.stdout)).toMatchObject({ categories: ["model"], changes: [] });
    // a change that is no wire break stays out of categories that leave it out
    const warned = await run({ contract: described(), category: "kernel", format: "json" });
    expect(JSON.parse(warned.stdout).changes).toEqual([]);
    const wire = await run({ contract: narrowed(), category: "wire,kernel" });
    expect(wire.code).toBe(1);
    const described_ = await run({ contract: described(), category: "model", failOn: "warning" });
    expect(described_.code).toBe(1);
  });

  it("use and except in the file select categories and rules; except wins", async () => {
    // a wire break is judged whatever use says, until except names wire (or the rule)
    expect((await run({ contract: narrowed(), rules: rules({ use: ["model"] }) })).code).toBe(1);
    expect((await run({ contract: narrowed(), rules: rules({ use: ["model"], except: ["wire"] }) })).code).toBe(0);
    expect((await run({ contract: narrowed(), rules: rules({ use: ["model", "request-enum-narrowed"] }) })).code).toBe(
      1,
    );
    expect((await run({ contract: narrowed(), rules: rules({ except: ["source"] }) })).code).toBe(0);
    expect((await run({ contract: narrowed(), rules: rules({ except: ["request-enum-narrowed"] }) })).code).toBe(0);
  });

  it("a kernel payload change concerns the kernel (and the generated client), not the wire", async () => {
    const path = "kernel/page.head.updateTitle.command.json";
    const text = readFileSync(join(contractDir, path), "utf8");
    const kernel = withVersion(
      contractWith(path, text.replace('"dryRun": { "type": "boolean" }', '"dryRun": { "const": false }')),
      "1.0.0",
    );
    const r = await run({ contract: kernel, format: "json" });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).changes[0]).toMatchObject({
      rule: "request-enum-narrowed",
      subject: "kernel:page.head.updateTitle",
      categories: ["source", "kernel"],
    });
    expect((await run({ contract: kernel, category: "wire" })).code).toBe(0);
    expect((await run({ contract: kernel, category: "kernel" })).code).toBe(1);
  });

  it("a bad --category is a usage error (exit 2); a bad severity file a configuration error (exit 3)", async () => {
    const bad = await run({ contract: contractDir, category: "wire,bogus" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--category takes a comma-separated list of wire, source, model, kernel, not "wire,bogus"',
    );
    for (const [json, message] of [
      [{ rules: { "no-such-rule": "error" } }, /diff-rules\.json: rules: no rule "no-such-rule"/],
      [
        { rules: { "request-enum-narrowed": "fatal" } },
        /rules\.request-enum-narrowed: "fatal" must be one of "error", "warn", "info", "off"/,
      ],
      [{ use: ["wires"] }, /use\[0\]: "wires" is neither a category \(wire, source, model, kernel\) nor a rule/],
      [{ levels: { breaking: "error", fatal: "error" } }, /levels: unknown key "fatal"/],
      ["{", /diff-rules\.json: not JSON/],
    ] as const) {
      const r = await run({ contract: contractDir, rules: rules(json) });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
    }
  });
});

describe("SARIF", () => {
  it("--format sarif writes a SARIF 2.1.0 log: rules with metadata, results with locations and fingerprints", async () => {
    const r = await run({ contract: narrowed(), format: "sarif" });
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    expect(log).toMatchObject({ version: "2.1.0", $schema: expect.stringContaining("sarif-2.1.0") });
    expect(log.runs).toHaveLength(1);
    const run0 = log.runs[0];
    const driver = run0.tool.driver;
    expect(driver.name).toBe("mnote-tools diff");
    expect(driver.rules.map((x: { id: string }) => x.id)).toEqual(RULES.map((x) => x.id));
    for (const rule of driver.rules) {
      expect(rule.shortDescription.text.length).toBeGreaterThan(10);
      expect(["error", "warning", "note"]).toContain(rule.defaultConfiguration.level);
    }
    const saveLines = saveText.split("\n");
    const line = saveLines.findIndex((l) => l.includes('"enum": ["replace", "append"]')) + 1;
    expect(run0.results).toEqual([
      {
        ruleId: "request-enum-narrowed",
        ruleIndex: RULES.findIndex((x) => x.id === "request-enum-narrowed"),
        level: "error",
        message: {
          text: 'mnote.page.save /args/properties/mode/enum: value(s) removed: "replace" (for callers, plugin code)',
        },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: expect.stringMatching(/tools\/page\.save\.tool\.json$/) },
              region: { startLine: line, startColumn: saveLines[line - 1]!.indexOf('"enum"') + 1 },
            },
            logicalLocations: [{ fullyQualifiedName: "mnote.page.save#/args/properties/mode/enum", kind: "member" }],
          },
        ],
        partialFingerprints: { [FINGERPRINT_KEY]: expect.stringMatching(/^[0-9a-f]{32}$/) },
        properties: expect.objectContaining({
          level: "breaking",
          severity: "error",
          tags: ["wire", "source"],
          audiences: ["callers", "plugin code"],
        }),
      },
    ]);
  });

  // The SARIF 2.1.0 schema (draft-04) ships in test/fixtures/sarif (from an npm package: its
  // README.md); MNOTE_SARIF_SCHEMA names another copy (the OASIS sarif-schema-2.1.0.json). A log with
  // every kind of result is validated against it: never skipped.
  const sarifSchema =
    process.env.MNOTE_SARIF_SCHEMA ?? join(__dirname, "..", "fixtures", "sarif", "sarif-schema-2.1.0-rtm.5.json");
  it("is valid against the SARIF 2.1.0 schema (test/fixtures/sarif, or MNOTE_SARIF_SCHEMA)", async () => {
    const schema = JSON.parse(readFileSync(sarifSchema, "utf8"));
    // draft-04's "id" is draft-07's "$id"; the schema uses nothing else draft-07 reads otherwise.
    schema.$id = schema.id;
    delete schema.id;
    schema.$schema = "http://json-schema.org/draft-07/schema#";
    const { default: Ajv } = await import("ajv");
    // unicodeRegExp off: the schema's language pattern ("[a-zA-Z]{2}]?") is not valid with the u flag
    const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    const ignore = file("diff-ignore.json", {
      ignore: [
        {
          rule: "request-enum-narrowed",
          tool: "mnote.page.save",
          pointer: "/args/properties/mode/enum",
          reason: "never shipped",
          expires: "2099-12-31",
        },
      ],
    });
    const previous = file("previous.json", JSON.parse((await run({ contract: described(), format: "json" })).stdout));
    const r = await run({ contract: narrowed(), format: "sarif", ignore, baseline: previous });
    expect(validate(JSON.parse(r.stdout)) ? [] : validate.errors).toEqual([]);
  });

  it("an ignored change is a suppressed result with its reason; a warn is a warning", async () => {
    const ignore = file("diff-ignore.json", {
      ignore: [
        {
          rule: "request-enum-narrowed",
          tool: "mnote.page.save",
          pointer: "/args/properties/mode/enum",
          reason: "never shipped",
          expires: "2099-12-31",
        },
      ],
    });
    const r = await run({ contract: narrowed(), format: "sarif", ignore });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).runs[0].results[0].suppressions).toEqual([
      { kind: "external", status: "accepted", justification: "never shipped (until 2099-12-31)" },
    ]);
    const warned = await run({ contract: described(), format: "sarif" });
    expect(JSON.parse(warned.stdout).runs[0].results[0]).toMatchObject({
      ruleId: "description-changed",
      level: "warning",
    });
  });
});

describe("fingerprints and --baseline", () => {
  const report = async (contract: string, extra: Partial<DiffOptions> = {}) => {
    const r = await run({ contract, format: "json", ...extra });
    return { code: r.code, json: JSON.parse(r.stdout), stderr: r.stderr };
  };

  it("a fingerprint does not depend on line numbers, key order or the order of the report", async () => {
    const first = await report(narrowed());
    // The same edit in a file laid out otherwise: reindented, its keys in another order.
    const json = JSON.parse(saveText.replace('"enum": ["replace", "append"]', '"enum": ["append"]'));
    const reordered = Object.fromEntries(Object.entries(json).reverse());
    const moved = withVersion(contractWith(SAVE, "\n\n" + JSON.stringify(reordered, null, 4)), "1.0.0");
    const second = await report(moved);
    expect(second.json.changes[0].line).not.toBe(first.json.changes[0].line);
    expect(second.json.changes[0].fingerprint).toBe(first.json.changes[0].fingerprint);
    expect(first.json.changes[0].fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });

  it("marks what is new since a previous JSON report, and lists what was resolved", async () => {
    const previous = file("previous.json", (await report(narrowed())).json);
    // Now the enum narrowing stays, and the title's maxLength is tightened too.
    const dir = narrowed();
    const titlePath = join(dir, TITLE);
    writeFileSync(titlePath, readFileSync(titlePath, "utf8").replace('"maxLength": 500', '"maxLength": 400'));
    const now = await report(dir, { baseline: previous });
    expect(now.code).toBe(1);
    const byRule = Object.fromEntries(now.json.changes.map((c: { rule: string; new: boolean }) => [c.rule, c.new]));
    expect(byRule).toEqual({ "request-enum-narrowed": false, "request-constraint-tightened": true });
    expect(now.json.baseline).toEqual({ source: previous, new: 1, unchanged: 1, resolved: [] });

    const human = await run({ contract: dir, baseline: previous });
    expect(human.stdout).toContain("[new] request-constraint-tightened  mnote.page.update_title");
    expect(human.stdout).toContain(`since ${previous}: 1 new, 1 unchanged, 0 resolved`);
    const markdown = await run({ contract: dir, baseline: previous, format: "markdown" });
    expect(markdown.stdout).toContain("**1 new**, 1 unchanged, 0 resolved");
    const sarif = await run({ contract: dir, baseline: previous, format: "sarif" });
    expect(
      JSON.parse(sarif.stdout).runs[0].results.map((x: { ruleId: string; baselineState: string }) => [
        x.ruleId,
        x.baselineState,
      ]),
    ).toEqual([
      ["request-enum-narrowed", "unchanged"],
      ["request-constraint-tightened", "new"],
    ]);

    // Back to the contract itself: the narrowing is resolved.
    const fixed = await report(contractDir, { baseline: previous });
    expect(fixed.json.baseline).toMatchObject({
      new: 0,
      unchanged: 0,
      resolved: [
        {
          rule: "request-enum-narrowed",
          subject: "mnote.page.save",
          pointer: "/args/properties/mode/enum",
          fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
        },
      ],
    });
  });

  it("a baseline that is missing or not a report of this diff is a configuration error (exit 3)", async () => {
    const missing = await run({ contract: contractDir, baseline: join(tempDir(), "none.json") });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/none\.json: not found/);
    const bad = await run({ contract: contractDir, baseline: file("b.json", { changes: [{ fingerprint: "x" }] }) });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/b\.json: changes\[0\]: "rule" is missing/);
  });
});
