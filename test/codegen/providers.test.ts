/**
 * The provider variants: each passes its provider's rules (codegen/providers/check.ts, the same
 * ids as docs/PROVIDERS.md), each rule can fail, the preflight names what it cannot lower, and
 * two properties hold for every tool and variant (fast-check):
 *   - a value valid under the variant is, once raised, valid canonical args, or fails only on rules
 *     the variant lists as enforced elsewhere (a clear invalid_input, never a surprise);
 *   - a canonical call survives lowering (as the provider's model would send it) and raising unchanged.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import Ajv2020 from "ajv/dist/2020";
import { PROVIDERS, providerTools, type ProviderName } from "../../generated/providers";
import { raiseCall, raiseFacts } from "../../generated/raise";
import { toolByName, toolList } from "../../generated/registry";
import { checkVariant, PROVIDER_RULES } from "../../codegen/providers/check";
import { lowerCall, lowerTools, ProviderLoweringError } from "../../codegen/providers/lower";
import { portablePattern, PatternNotLowerable } from "../../codegen/providers/regex";
import { contractModel } from "../support/contract";
import { generatedDir, repoRoot } from "../support/paths";
import { contractWith } from "../support/fixtures";
import { readContractDir } from "../../codegen/phases/load";
import { buildModel } from "../../codegen/pipeline";
import { providersTarget } from "../../codegen/targets/providers";

const model = contractModel();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
type Schema = Record<string, any>;

describe("every variant follows its provider's rules", () => {
  it.each(PROVIDERS.map((p) => [p]))("%s", (provider) => {
    expect(providerTools[provider].map((t) => t.name).sort()).toEqual(toolList.map((t) => t.providerName).sort());
    expect(checkVariant(provider, providerTools[provider])).toEqual([]);
    for (const t of providerTools[provider]) expect(ajv.validateSchema(t.parameters)).toBe(true);
  });

  it("docs/PROVIDERS.md lists every rule the checker enforces, with its source", () => {
    const doc = readFileSync(join(repoRoot, "docs", "PROVIDERS.md"), "utf8");
    for (const rule of PROVIDER_RULES) expect([rule.id, doc.includes("`" + rule.id + "`")]).toEqual([rule.id, true]);
  });

  it("the canonical schemas break rules the other variants exist for (so the checks can fail)", () => {
    const canonical = providerTools.canonical;
    const rulesBroken = (p: ProviderName) => new Set(checkVariant(p, canonical).map((v) => v.rule));
    // the block conditionals (if/then/else) are outside what Hermes' Gemini sanitizer keeps
    expect(rulesBroken("portable")).toEqual(new Set(["llamacpp/pattern", "portable/hermes-gemini-safe"]));
    expect([...rulesBroken("openai-strict")]).toEqual(
      expect.arrayContaining(["openai-strict/shape", "openai-strict/all-required", "openai-strict/keywords"]),
    );
    expect([...rulesBroken("gemini")]).toEqual(expect.arrayContaining(["gemini/keys"]));
    expect([...rulesBroken("anthropic")]).toEqual(expect.arrayContaining(["anthropic/shape"]));
  });

  const bad: Record<string, Schema> = {
    "common/name": {
      name: "mnote.page.get",
      description: "a long enough description",
      parameters: { type: "object", properties: {} },
    },
    "common/root-object": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "array", items: {} },
    },
    "common/description": { name: "x", description: "short", parameters: { type: "object", properties: {} } },
    "anthropic/no-root-combinator": {
      name: "x",
      description: "a long enough description",
      input_schema: { type: "object", properties: {}, anyOf: [{}] },
    },
    "anthropic/shape": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "object", properties: {} },
    },
    "llamacpp/pattern": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "object", properties: { a: { type: "string", pattern: "^\\d+$" } } },
    },
    "portable/single-type": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "object", properties: { a: { type: ["string", "null"] } } },
    },
    "portable/hermes-gemini-safe": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "object", properties: { a: { const: "v" } } },
    },
    "openai-strict/shape": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "object", properties: {} },
    },
    "openai-strict/all-required": {
      type: "function",
      function: {
        name: "x",
        description: "a long enough description",
        strict: true,
        parameters: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
      },
    },
    "openai-strict/closed-objects": {
      type: "function",
      function: {
        name: "x",
        description: "a long enough description",
        strict: true,
        parameters: { type: "object", properties: {}, required: [] },
      },
    },
    "openai-strict/keywords": {
      type: "function",
      function: {
        name: "x",
        description: "a long enough description",
        strict: true,
        parameters: {
          type: "object",
          properties: { a: { type: "string", maxLength: 3 } },
          required: ["a"],
          additionalProperties: false,
        },
      },
    },
    "openai-strict/limits": {
      type: "function",
      function: {
        name: "x",
        description: "a long enough description",
        strict: true,
        parameters: Array.from({ length: 11 }).reduce<Schema>(
          (inner) => ({ type: "object", properties: { a: inner }, required: ["a"], additionalProperties: false }),
          {
            type: "string",
          },
        ),
      },
    },
    "gemini/keys": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "object", properties: {}, additionalProperties: false },
    },
    "gemini/enum-strings": {
      name: "x",
      description: "a long enough description",
      parameters: { type: "object", properties: { a: { type: "integer", enum: [1, 2] } } },
    },
    "gemini/shape": {
      name: "x",
      description: "a long enough description",
      input_schema: { type: "object", properties: {} },
    },
  };
  it.each(PROVIDER_RULES.map((r) => [r.id, r]))("rule %s fails on a definition that breaks it", (id, rule) => {
    expect(bad[id]).toBeDefined();
    expect(rule.check(bad[id]!).length).toBeGreaterThan(0);
  });
});

describe("the preflight", () => {
  const tool = (parameters: Schema) => ({ ...model.tools[0]!, name: "mnote.test.tool", parameters });
  it("fails with the tool, the pointer and the rule, for each provider that cannot carry a construct", () => {
    const cases: Array<[ProviderName, Schema, string, RegExp]> = [
      [
        "portable",
        { type: "object", properties: { a: { type: "string", pattern: "^[^\\S]$" } } },
        "/properties/a/pattern",
        /inside a character class/,
      ],
      [
        "portable",
        { type: "object", properties: { a: { type: "string", pattern: "^(?=a)" } } },
        "/properties/a/pattern",
        /group/,
      ],
      ["gemini", { type: "object", properties: { a: { const: 3 } } }, "/properties/a/const", /const/],
      [
        "gemini",
        {
          type: "object",
          properties: { a: { type: "object", properties: {}, additionalProperties: { type: "string" } } },
        },
        "/properties/a/additionalProperties",
        /schema/,
      ],
      [
        "openai-strict",
        {
          type: "object",
          properties: { a: { type: "object", properties: { b: { type: "string" } } } },
          additionalProperties: false,
        },
        "/properties/a",
        /additionalProperties false/,
      ],
      [
        "anthropic",
        { type: "object", properties: { a: { oneOf: [{ type: "string" }] } } },
        "/properties/a/oneOf",
        /no lowering rule/,
      ],
      [
        "portable",
        { type: "object", properties: { a: { type: "string", "x-unknown": 1 } } },
        "/properties/a/x-unknown",
        /no lowering rule/,
      ],
    ];
    for (const [provider, parameters, pointer, rule] of cases) {
      let error: unknown;
      try {
        lowerTools(provider, [tool(parameters)]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ProviderLoweringError);
      const problem = (error as ProviderLoweringError).problems[0]!;
      expect([provider, problem.tool, problem.pointer]).toEqual([provider, "mnote.test.tool", pointer]);
      expect(problem.rule).toMatch(rule);
      expect((error as Error).message).toContain(`mnote.test.tool at ${pointer}`);
    }
  });

  it("a rewritten pattern matches exactly the strings the contract's matches", () => {
    const original = "^[^\\r\\n]*\\S[^\\r\\n]*$";
    const [a, b] = [new RegExp(original, "u"), new RegExp(portablePattern(original), "u")];
    const ws = fc.constantFrom(
      " ",
      "\t",
      "\n",
      "\r",
      "\u000b",
      "\u000c",
      "\u00a0",
      "\u1680",
      "\u2000",
      "\u200a",
      "\u200b",
      "\u2028",
      "\u2029",
      "\u202f",
      "\u205f",
      "\u3000",
      "\ufeff",
      "\u0085",
      "x",
      "字",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 6 }),
          fc.array(ws, { maxLength: 5 }).map((xs) => xs.join("")),
        ),
        (s) => a.test(s) === b.test(s),
      ),
      { numRuns: 3000 },
    );
    expect(() => portablePattern("\\bword")).toThrow(PatternNotLowerable);
    expect(portablePattern("^(?:ab)+\\d\\w$")).toBe("^(ab)+[0-9][A-Za-z0-9_]$");
  });
});

/** Values a schema accepts (the keyword subset the variants use), with extra keys where an object is open. */
function arbitrary(schema: Schema, canonical: boolean): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const options = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 50, 50) });
      case "string": {
        const re = typeof schema.pattern === "string" ? new RegExp(schema.pattern, "u") : undefined;
        const pool = fc.constantFrom("", " ", "a", "blk_1", "Plan", "x y", "\n", "两段");
        const max = Math.min(schema.maxLength ?? 30, 30);
        return fc
          .oneof(pool, fc.string({ minLength: Math.min(schema.minLength ?? 0, max), maxLength: max }))
          .filter(
            (s) =>
              (!re || re.test(s)) &&
              (!canonical || (s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity))),
          );
      }
      case "array":
        return fc.array(arbitrary(schema.items, canonical), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 3, 3),
        });
      case "object": {
        const props = Object.fromEntries(
          Object.entries(schema.properties ?? {}).map(([k, v]) => [k, arbitrary(v as Schema, canonical)]),
        );
        const record = fc.record(props, { requiredKeys: schema.required ?? [] });
        if (schema.additionalProperties === false) return record;
        return fc
          .tuple(record, fc.option(fc.constant({ extraField: "x" }), { nil: undefined }))
          .map(([r, extra]) => ({ ...(r as object), ...(extra ?? {}) }));
      }
      default:
        throw new Error(`no arbitrary for ${JSON.stringify(schema)}`);
    }
  });
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

/** The model's parameters split the way every surface does: dryRun travels in the envelope. */
function canonicalArgsValid(toolName: string, raised: Record<string, unknown>) {
  const tool = toolByName(toolName)!;
  const { dryRun, ...args } = raised;
  const dryRunOk = dryRun === undefined || typeof dryRun === "boolean";
  const valid = tool.validateArgs(args) && dryRunOk;
  return { valid, errors: tool.validateArgs.errors ?? [], dryRunOk };
}

/** Keywords a variant drops whole (with every rule inside them), held by the validators instead. */
const DROPPED_COMPOSITES = ["if", "then", "else", "allOf", "not"];

describe("properties over every variant and tool (fast-check)", () => {
  const cases = PROVIDERS.flatMap((provider) =>
    providerTools[provider].map((t) => [provider, t.canonicalName, t] as const),
  );

  it.each(cases)(
    "%s %s: a value valid under the variant is, once raised, valid or fails only on rules enforced elsewhere",
    (provider, name, variant) => {
      const validate = ajv.compile(variant.parameters);
      const allowed = new Set(variant.enforcedElsewhere.map((e) => e.keyword));
      // options that only say "leave it as it is" are dropped; options left empty then ask for nothing: at least one is required
      if (JSON.stringify(raiseFacts[name as keyof typeof raiseFacts]).includes('"unchanged"'))
        allowed.add("minProperties");
      const seen = { valid: 0 };
      fc.assert(
        fc.property(arbitrary(variant.parameters, false), (value) => {
          fc.pre(validate(value) === true);
          // validate, then raise: the model-arguments schema takes every value the variant takes,
          // except an undeclared member (Gemini's schema cannot forbid one), which the validators
          // refuse after raising too
          const tool = toolByName(name)!;
          const modelOk = tool.validateModelArguments(value);
          const raised = raiseCall(name, value) as Record<string, unknown>;
          const { valid, errors, dryRunOk } = canonicalArgsValid(name, raised);
          if (!modelOk) {
            expect(tool.validateModelArguments.errors!.map((e) => e.keyword)).toEqual(["additionalProperties"]);
            expect(valid).toBe(false);
          }
          expect(dryRunOk).toBe(true);
          if (valid) {
            seen.valid++;
            return;
          }
          for (const e of errors) {
            expect(typeof e.instancePath).toBe("string");
            // a rule inside a dropped conditional (then/else/allOf/not) fails under its own keyword
            const insideDropped = DROPPED_COMPOSITES.some(
              (k) => allowed.has(k) && new RegExp(`/${k}(/|$)`).test(e.schemaPath),
            );
            expect([e.keyword, allowed.has(e.keyword) || insideDropped]).toEqual([e.keyword, true]);
          }
        }),
        // a fixed seed: the 150 values are the same in every run, so the guard below (at least one
        // value went the whole way) cannot fail by the draw alone; it once drew none for Gemini's
        // page.update_options. The property itself still runs on all of them.
        { numRuns: 150, seed: 20261206 },
      );
      expect(seen.valid).toBeGreaterThan(0);
    },
  );

  it.each(cases)("%s %s: a canonical call survives lowering and raising unchanged", (provider, name, variant) => {
    const tool = toolByName(name)!;
    const canonical = providerTools.canonical.find((t) => t.canonicalName === name)!.parameters;
    const validate = ajv.compile(variant.parameters);
    fc.assert(
      fc.property(arbitrary(canonical, true), (value) => {
        const v = value as Record<string, unknown>;
        // a call the runtime serves: valid args, and no unwired option set (the runtime refuses those)
        fc.pre(
          canonicalArgsValid(name, v).valid &&
            tool.unwiredFields.every((f) => JSON.stringify(v).indexOf(`"${f.field}"`) < 0),
        );
        const lowered = lowerCall(provider, canonical, v);
        expect(validate(lowered)).toBe(true);
        expect(raiseCall(name, lowered)).toEqual(v);
      }),
      // fc.pre is a vacuity guard of its own (fast-check fails the property when more than 100 draws a
      // run are skipped): the same fixed seed as above, so it too cannot fail by the draw alone
      { numRuns: 150, seed: 20261206 },
    );
  });
});

describe("the raise step", () => {
  const samples: Array<[string, unknown]> = [
    [
      "mnote.page.save",
      {
        content: [{ type: "paragraph", text: "x", id: null, level: null }],
        mode: null,
        baseRevision: null,
        dryRun: null,
      },
    ],
    ["mnote.page.save", { content: null }],
    [
      "mnote.page.update_options",
      { options: { wideLayout: true, smallText: null, showToc: false, protectEditing: false }, baseRevision: 3 },
    ],
    ["mnote.page.update_options", { options: { showToc: true, protectEditing: 0 } }],
    ["mnote.page.update_title", { title: null, baseRevision: null, extra: null }],
    ["mnote.page.get", "not an object"],
    ["mnote.no.such_tool", { a: null }],
  ];

  it("reads null as absent, and an unwired option at its unset value as 'leave it'; nothing else changes", () => {
    expect(raiseCall(samples[0]![0], samples[0]![1])).toEqual({ content: [{ type: "paragraph", text: "x" }] });
    // a required field's null stays: the validators report it
    expect(raiseCall(samples[1]![0], samples[1]![1])).toEqual({ content: null });
    expect(raiseCall(samples[2]![0], samples[2]![1])).toEqual({ options: { wideLayout: true }, baseRevision: 3 });
    // a real change of an unwired option, and 0 (not false), are kept for the runtime to refuse
    expect(raiseCall(samples[3]![0], samples[3]![1])).toEqual({ options: { showToc: true, protectEditing: 0 } });
    expect(raiseCall(samples[4]![0], samples[4]![1])).toEqual({ title: null, extra: null });
    expect(raiseCall(samples[5]![0], samples[5]![1])).toBe("not an object");
  });

  it("the Python raise (Hermes plugin) reads the same facts and gives the same answers", () => {
    expect(JSON.parse(readFileSync(join(generatedDir, "hermes-plugin", "mnote", "raise.json"), "utf8")).tools).toEqual(
      raiseFacts,
    );
    const script = `import json, sys\nsys.dont_write_bytecode = True\nsys.path.insert(0, sys.argv[1])\nimport raise_args\nprint(json.dumps([raise_args.raise_call(n, v) for n, v in json.load(sys.stdin)]))`;
    const run = spawnSync("python3", ["-c", script, join(generatedDir, "hermes-plugin", "mnote")], {
      input: JSON.stringify(samples),
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual(samples.map(([n, v]) => raiseCall(n, v)));
  });
});

describe("model-facing text names tools as the model sees them", () => {
  const dotted = toolList.map((t) => t.name);
  const offenders = (text: string) => dotted.filter((name) => text.includes(name));

  it.each(PROVIDERS.map((p) => [p]))(
    "%s: no dotted tool name in any definition (descriptions at every depth)",
    (provider) => {
      for (const t of providerTools[provider])
        expect([t.name, offenders(JSON.stringify(t.definition))]).toEqual([t.name, []]);
    },
  );

  it("the Hermes plugin's tools, toolset description and SKILL.md, and the MCP listing", () => {
    const plugin = join(generatedDir, "hermes-plugin", "mnote");
    const tools = JSON.parse(readFileSync(join(plugin, "tools.json"), "utf8")).tools.map((t: Schema) => ({
      description: t.description,
      parameters: t.parameters,
    }));
    expect(offenders(JSON.stringify(tools))).toEqual([]);
    expect(offenders(readFileSync(join(plugin, "SKILL.md"), "utf8"))).toEqual([]);
    const yaml = readFileSync(join(plugin, "plugin.yaml"), "utf8");
    expect(offenders(yaml.split("\n").find((l) => l.startsWith("description:"))!)).toEqual([]);
    for (const t of toolList) expect(offenders(t.description + JSON.stringify(t.parameters))).toEqual([]);
    // the response envelope names its tool canonically (toolName) by contract; its descriptions still resolve placeholders
    for (const t of toolList) expect(JSON.stringify(t.responseSchema)).not.toContain("[[");
  });

  it("a placeholder naming no tool stops generation with the file (the diff can still read such a contract)", () => {
    const path = "tools/page.save.tool.json";
    const text = readFileSync(join(repoRoot, "contract", path), "utf8").replace(
      "[[mnote.page.get]]",
      "[[mnote.page.fetch]]",
    );
    const changed = buildModel(readContractDir(contractWith(path, text)));
    expect(changed.tools.find((t) => t.name === "mnote.page.save")!.modelDescription).toContain("[[mnote.page.fetch]]");
    expect(() => providersTarget.emit(changed, { options: {}, targets: ["providers"] })).toThrow(
      "tools/page.save.tool.json: [[mnote.page.fetch]] names no tool of this contract",
    );
    expect(() => providersTarget.emit(model, { options: {}, targets: ["providers"] })).not.toThrow();
  });
});
