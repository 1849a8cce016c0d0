/**
 * Precompiled validators: ajv standalone code for every named schema, typed as guards of the
 * generated types, plus the small runtime folder it imports. Nothing is compiled at start-up.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ContractModel, JsonSchema } from "../model";
import { mapSchema } from "../support/schema-walk";
import { absoluteRef } from "../support/refs";
import { isVendorKeyword } from "../vendor-keywords";
import type { GeneratedFile, Target } from "./target";
import { banner } from "../support/banner";
import { createContractAjv } from "../support/contract-ajv";
import { standaloneModule, type StandaloneExport } from "../support/standalone";
import { storedText } from "../support/memo";
import { assetsDir } from "../support/templates";
import { prepareForAjv } from "../support/ajv-compat";

const typeId = (typeName: string) => `urn:mnote:type:${typeName}`;

/**
 * Every named schema as its own document, $refs rewritten to those documents' ids. ajv compiles a
 * $ref target once per root document, so with the contract's files (or one bundle) as roots a
 * shared definition would be compiled, and emitted, once for every schema that uses it.
 *
 * Two rewrites keep the meaning and make the code faster (measured in bench/, validators): a
 * oneOf of distinct constants is an enum (ajv would build an error object per failed branch on
 * every valid value), and a $ref to an alias (a schema that is only a $ref, like WorkspaceId to
 * Identifier) points at its target, so ajv can inline it instead of calling a function.
 */
export function validatorSchemas(model: ContractModel): JsonSchema[] {
  const nameByRef = new Map(model.schemas.map((s) => [s.ref, s.typeName]));
  const mapped = model.schemas.map((named) => {
    const baseId = named.ref.slice(0, named.ref.indexOf("#"));
    const schema = mapSchema(named.schema, (node) => {
      const out: JsonSchema = {};
      for (const [k, v] of Object.entries(node)) {
        if (isVendorKeyword(k) || k === "description" || k === "title" || k === "default") continue;
        out[k] = v;
      }
      if (typeof out.$ref === "string") {
        const target = nameByRef.get(absoluteRef(out.$ref, baseId));
        if (!target) throw new Error(`no definition for $ref ${out.$ref} in ${named.typeName}`);
        out.$ref = typeId(target);
      }
      return constantsAsEnum(out);
    }) as JsonSchema;
    return { typeName: named.typeName, schema };
  });
  const aliases = new Map(
    mapped
      .filter((m) => Object.keys(m.schema).length === 1 && typeof m.schema.$ref === "string")
      .map((m) => [typeId(m.typeName), m.schema.$ref as string]),
  );
  const resolveAlias = (id: string): string => {
    for (let hops = 0; aliases.has(id) && hops < 64; hops++) id = aliases.get(id)!;
    return id;
  };
  return mapped.map(({ typeName, schema }) => {
    const direct = mapSchema(schema, (node) =>
      node !== schema && typeof node.$ref === "string" ? { ...node, $ref: resolveAlias(node.$ref) } : node,
    ) as JsonSchema;
    return { $schema: "https://json-schema.org/draft/2020-12/schema", $id: typeId(typeName), ...direct };
  });
}

/** oneOf: [{const: a}, {const: b}] with distinct scalar constants is enum: [a, b]. */
function constantsAsEnum(node: JsonSchema): JsonSchema {
  const branches = node.oneOf;
  if (!Array.isArray(branches) || branches.length === 0) return node;
  const isScalarConst = (b: unknown) =>
    b !== null &&
    typeof b === "object" &&
    Object.keys(b).length === 1 &&
    "const" in b &&
    (b.const === null || typeof b.const !== "object");
  if (!branches.every(isScalarConst)) return node;
  const values = branches.map((b) => (b as { const: unknown }).const);
  if (new Set(values).size !== values.length) return node;
  const { oneOf: _oneOf, ...rest } = node;
  return { ...rest, enum: values };
}

export function validatorName(typeName: string): string {
  return `validate${typeName}`;
}

export const validatorsTarget: Target = {
  name: "validators",
  emit(model) {
    const schemas = validatorSchemas(model);
    const entries = model.schemas.map((s) => ({
      name: validatorName(s.typeName),
      ref: typeId(s.typeName),
      type: s.typeName,
    }));
    // the code depends on the schemas (descriptions already dropped) and the exports only, so an
    // edit to a description reuses it (in memory in watch mode, on disk across runs); the banner
    // (the contract's hash) goes on after
    const code = storedText("validators", { schemas, entries }, () => validatorsModule(schemas, entries));
    return [{ path: "validators/index.ts", content: `${banner(model, "ts")}\n${code}` }, ...runtimeFiles(model)];
  },
};

/** The standalone module of the schemas, without its banner: each distinct schema compiled once. */
function validatorsModule(schemas: readonly JsonSchema[], entries: readonly StandaloneExport[]): string {
  const { distinct, canonical } = distinctSchemas(schemas);
  const ajv = createContractAjv({ source: true });
  for (const schema of distinct) {
    const ready = prepareForAjv(schema, schema.$id as string);
    for (const resource of ready.resources) ajv.addSchema(resource);
    ajv.addSchema(ready.root as object);
  }
  return standaloneModule(
    ajv,
    entries.map((e) => ({ ...e, ref: canonical.get(e.ref) ?? e.ref })),
    { typesModule: "../types" },
  );
}

/**
 * The schemas with those that say the same thing merged: two schemas whose JSON is the same but
 * for their $id (once every $ref names the first of the schemas equal to its target) are one
 * schema, compiled once and exported under both names. In the 200-tool synthetic contract 1,459
 * schemas are 1,255 (bench/, codegen). Recursive schemas are merged only when equal as written.
 */
export function distinctSchemas(schemas: readonly JsonSchema[]): {
  distinct: JsonSchema[];
  canonical: Map<string, string>;
} {
  const idOf = (s: JsonSchema) => s.$id as string;
  const withRefs = (schema: JsonSchema, to: ReadonlyMap<string, string>) =>
    mapSchema(schema, (node) =>
      typeof node.$ref === "string" && to.has(node.$ref) ? { ...node, $ref: to.get(node.$ref)! } : node,
    ) as JsonSchema;
  let canonical = new Map(schemas.map((s) => [idOf(s), idOf(s)]));
  // each round merges schemas equal once the previous round's merges are applied; at most one per schema
  for (let round = 0; round <= schemas.length; round++) {
    const first = new Map<string, string>();
    const next = new Map<string, string>();
    for (const schema of schemas) {
      const { $id: _id, ...rest } = withRefs(schema, canonical);
      const key = JSON.stringify(rest);
      if (!first.has(key)) first.set(key, idOf(schema));
      next.set(idOf(schema), first.get(key)!);
    }
    const settled = [...next].every(([id, to]) => canonical.get(id) === to);
    canonical = next;
    if (settled) break;
  }
  const distinct = schemas.filter((s) => canonical.get(idOf(s)) === idOf(s)).map((s) => withRefs(s, canonical));
  return { distinct, canonical };
}

export function runtimeFiles(model: ContractModel): GeneratedFile[] {
  const dir = assetsDir("validator-runtime");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .sort()
    .map((f) => ({
      path: `validators/runtime/${f}`,
      content: banner(model, "ts") + readFileSync(join(dir, f), "utf8"),
    }));
}
