/**
 * Every JSON example of the design note is stored in the contract, and validates against the
 * schema it illustrates. The note abbreviates some (its §4 examples leave out envelope fields
 * that §3 defines); each stored example lists the fields filled in, and removing them must give
 * back the note's JSON exactly.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { contractModel, validatorBuilds } from "../support/contract";
import { sharedResource } from "../support/paths";
import { splitPointer } from "../../common/json-pointer";

const note = sharedResource("seed", "the design note");

function seedJsonBlocks(dir: string): unknown[] {
  const file = readdirSync(dir).find((f) => f.endsWith(".txt"))!;
  // The note was copied from a web page that put "|" and "||" lines between its lines.
  const text = readFileSync(join(dir, file), "utf8")
    .split("\n")
    .filter((line) => !/^\|{1,2}$/.test(line))
    .join("\n");
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
}

const isSchema = (v: unknown) =>
  typeof v === "object" && v !== null && "properties" in v && (v as { type?: unknown }).type === "object";

function withoutPointers(value: unknown, pointers: string[]): unknown {
  const copy = structuredClone(value);
  for (const pointer of pointers) {
    const tokens = splitPointer(pointer);
    let parent = copy as Record<string, unknown>;
    for (const t of tokens.slice(0, -1)) parent = parent[t] as Record<string, unknown>;
    delete parent[tokens[tokens.length - 1]!];
  }
  return copy;
}

describe("the design note's examples", () => {
  const model = contractModel();

  if (!note.found) it.skip(note.skipName, () => undefined);
  else noteExamples(note.path);

  describe.each(validatorBuilds())("validate against the type they illustrate: %s", (_build, validatorFor) => {
    it.each(model.examples.map((e) => [`${e.file} ${e.name}`, e.of, e.value]))("%s is a valid %s", (_n, of, value) => {
      expect(validatorFor(of as string)(value)).toBe(true);
    });
  });
});

/** The checks that compare the stored examples with the note's own JSON. */
function noteExamples(dir: string): void {
  const model = contractModel();
  const seedInstances = seedJsonBlocks(dir).filter((b) => !isSchema(b));

  it("finds the note's example instances (request, responses)", () => {
    expect(seedInstances).toHaveLength(10);
    expect(model.examples).toHaveLength(10);
  });

  it.each(seedInstances.map((s, i) => [i, s]))(
    "note example %i is stored, abbreviations filled in and listed",
    (_i, seed) => {
      const matches = model.examples.filter(
        (e) => JSON.stringify(sortKeys(withoutPointers(e.value, e.added))) === JSON.stringify(sortKeys(seed)),
      );
      expect(matches.map((m) => `${m.file}#${m.name}`)).toHaveLength(1);
    },
  );
}

describe("the note's input schemas (§4) against the contract's requests", () => {
  if (!note.found) {
    it.skip(note.skipName, () => undefined);
    return;
  }
  const model = contractModel();
  const seedSchemas = seedJsonBlocks(note.path).filter(isSchema) as Array<{
    required: string[];
    properties: Record<string, { type?: string; enum?: unknown[]; minLength?: number }>;
  }>;
  const envelope = model.schemas.find((s) => s.typeName === "ToolRequest")!.schema as {
    required: string[];
    properties: Record<string, unknown>;
  };

  it("has one input schema per tool", () => {
    expect(seedSchemas).toHaveLength(model.tools.length);
  });

  it.each(seedSchemas.map((s, i) => [i, s]))(
    "note schema %i: every field it requires is required by one tool's request, envelope or args",
    (_i, seed) => {
      // the tool is the one whose args hold the note's non-envelope fields and require nothing else
      const candidates = model.tools.filter((t) => {
        const args = t.parameters as { required?: string[]; properties: Record<string, { type?: string }> };
        const sameType = (p: string) =>
          seed.properties[p]!.type === undefined || args.properties[p]!.type === seed.properties[p]!.type;
        return (
          Object.keys(seed.properties).every(
            (p) => p in envelope.properties || (p in args.properties && sameType(p)),
          ) && (args.required ?? []).every((r) => r in seed.properties)
        );
      });
      expect(candidates).toHaveLength(1);
      const tool = candidates[0];
      const args = model.schemas.find((s) => s.typeName === tool!.argsType)!.schema as {
        required?: string[];
        properties: Record<string, { minLength?: number }>;
      };
      const requiredByTool = new Set([...envelope.required, ...(args.required ?? [])]);
      if (tool!.idempotency === "required") requiredByTool.add("idempotencyKey");
      if (tool!.dryRun === "required") requiredByTool.add("dryRun");
      for (const field of seed.required) expect([field, requiredByTool.has(field)]).toEqual([field, true]);
      for (const [field, schema] of Object.entries(seed.properties)) {
        if (schema.minLength !== undefined)
          expect(args.properties[field]?.minLength).toBeGreaterThanOrEqual(schema.minLength);
      }
    },
  );
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
