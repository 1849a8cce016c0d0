/**
 * Phase 2, validate: every contract file against its meta-schema, every schema against JSON Schema
 * 2020-12 and the contract's own rules (allowed keywords, $ref form, $id mirroring the path).
 * Semantic checks that need the whole model (cross references, examples) run after normalize,
 * in validateModel. Problems are collected, not thrown one by one, so a user fixes them in one go.
 */
import type Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv";
import { ContractError, type ContractProblem } from "../contract-error";
import type { ParsedContract, ParsedFile } from "./load";
import type { ContractModel, FileKind, KernelCommandModel, ToolModel } from "../model";
import { FORBIDDEN_KEYWORDS, isVendorKeyword } from "../vendor-keywords";
import { SUPPORTED_FORMATS } from "../support/formats";
import { JSON_SCHEMA_2020, metaSetKey, precompiled, precompiledMetaSet } from "../support/precompiled";
import { diskText, memo } from "../support/memo";
import { validationKey } from "../support/validation-key";
import { ajvErrorPointer, describeAjvError } from "../support/ajv-errors";
import { walkSchema } from "../support/schema-walk";
import { getAtPointer, joinPointer, splitPointer } from "../../common/json-pointer";
import type { Position } from "../support/json-source";
import { checkMessagePlaceholders } from "./message-placeholders";

const JSON_SCHEMA_KEYWORDS = new Set([
  "$schema",
  "$id",
  "$ref",
  "$defs",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "contentMediaType",
  "contentEncoding",
]);

const META_BY_KIND: Partial<Record<FileKind, string>> = {
  manifest: "meta/manifest.schema.json",
  tool: "meta/tool.schema.json",
  kernel: "meta/kernel-command.schema.json",
  schema: "meta/schema-file.schema.json",
};

export function classifyFile(path: string): FileKind | undefined {
  if (path === "contract.json") return "manifest";
  if (/^meta\/[a-z0-9-]+\.schema\.json$/.test(path)) return "meta";
  if (/^tools\/[a-z0-9_.]+\.tool\.json$/.test(path)) return "tool";
  if (/^kernel\/[A-Za-z0-9_.]+\.command\.json$/.test(path)) return "kernel";
  if (/^(model|envelope|catalog|kernel)\/[a-z0-9-]+\.schema\.json$/.test(path)) return "schema";
  return undefined;
}

/** The position of pointer, or of its nearest ancestor that has one. */
export function positionOf(file: ParsedFile, pointer: string): Position | undefined {
  let tokens = pointer === "" ? [] : splitPointer(pointer);
  for (;;) {
    const p = tokens.length === 0 ? "" : joinPointer("", ...tokens);
    const found = file.positions.get(p);
    if (found || tokens.length === 0) return found;
    tokens = tokens.slice(0, -1);
  }
}

/**
 * The problems of a schema against its meta-schema, or null when it is valid: 2020-12 (named by
 * $schema, or the default) by the precompiled validator, any other by ajv's validateSchema.
 */
function jsonSchemaProblems(json: unknown, ajv?: () => Ajv2020): ErrorObject[] | null {
  const declared = (json as { $schema?: unknown }).$schema;
  if (declared === undefined || declared === JSON_SCHEMA_2020) {
    const validate = precompiled("jsonSchema2020");
    return validate(json) ? null : [...(validate.errors ?? [])];
  }
  const other = (ajv ?? contractAjv)();
  return other.validateSchema(json as object) ? null : [...(other.errors ?? [])];
}

function problemsFromAjv(file: ParsedFile, errors: ErrorObject[] | null | undefined, prefix = ""): ContractProblem[] {
  return (errors ?? []).map((e) => {
    const pointer = prefix + ajvErrorPointer(e);
    return { file: file.path, pointer, message: describeAjvError(e), position: positionOf(file, pointer) };
  });
}

/**
 * ajv's compiler, loaded only when a schema must be compiled: the meta-schemas of this repository's
 * contracts and JSON Schema 2020-12 are precompiled (support/precompiled.ts), so a run over them
 * (`mnote-tools diff` on contract/ and a release) does not load it.
 */
function ajv2020(options: ConstructorParameters<typeof Ajv2020>[0]): Ajv2020 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when something must be compiled
  const { default: Ajv } = require("ajv/dist/2020") as { default: typeof Ajv2020 };
  return new Ajv(options);
}

/** The contract's ajv (its validateSchema for a file naming another meta-schema than 2020-12), loaded on demand. */
function contractAjv(): Ajv2020 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when something must be compiled
  return (require("../support/contract-ajv") as typeof import("../support/contract-ajv")).createContractAjv();
}

/**
 * The contract's meta-schemas. Each value is checked by a validator that stops at its first
 * problem: precompiled for the meta-schema sets this repository holds, else compiled here (about
 * half the compile time of one that lists every problem). Only a value that fails is checked again
 * by one that lists every problem, compiled then, so the report is the same either way.
 */
class MetaSchemas {
  private readonly precompiled: Map<string, ValidateFunction> | undefined;
  private quickAjv: Ajv2020 | undefined;
  private full: Ajv2020 | undefined;
  private readonly added: object[] = [];

  constructor(key: string) {
    this.precompiled = precompiledMetaSet(key);
  }

  add(schema: object): void {
    this.added.push(schema);
    if (!this.precompiled) this.quick().addSchema(schema);
  }

  errorsText(errors: ErrorObject[]): string {
    return (this.quickAjv ?? ajv2020({})).errorsText(errors);
  }

  /** The problems of data against the schema at ref; null when valid; undefined when there is no such schema. */
  problems(ref: string, data: unknown): ErrorObject[] | null | undefined {
    const quick = this.precompiled ? this.precompiled.get(ref) : this.quick().getSchema(ref);
    if (!quick) return undefined;
    if (quick(data)) return null;
    if (!this.full) {
      this.full = ajv2020({ strict: true, allErrors: true, validateSchema: false });
      for (const schema of this.added) this.full.addSchema(schema);
    }
    const full = this.full.getSchema(ref)!;
    return full(data) ? [] : [...(full.errors ?? [])];
  }

  private quick(): Ajv2020 {
    return (this.quickAjv ??= ajv2020({ strict: true, allErrors: false, validateSchema: false }));
  }
}

/** The meta-schemas last compiled (keyed by their JSON), and an ajv used only for validateSchema. */
let lastMeta: { key: string; ajv: MetaSchemas } | undefined;
let metaSchemaAjv: Ajv2020 | undefined;

type FileReport = (file: ParsedFile, pointer: string, message: string) => void;

export function validateFiles(parsed: ParsedContract): void {
  const problems: ContractProblem[] = [];
  const byPath = new Map(parsed.files.map((f) => [f.path, f]));
  const report: FileReport = (file, pointer, message) =>
    problems.push({ file: file.path, pointer, message, position: positionOf(file, pointer) });
  const fail = () => {
    if (problems.length > 0) throw new ContractError(problems);
  };

  const manifest = byPath.get("contract.json");
  if (!manifest) {
    throw new ContractError([
      {
        file: "contract.json",
        pointer: "",
        message: "missing: the contract needs a contract.json with its name and version",
      },
    ]);
  }
  const metaAjv = metaSchemas(parsed, byPath, report, problems);
  fail();
  const ids = checkAgainstMetaSchemas(parsed, byPath, metaAjv, report, problems);
  fail();
  checkRequiredDefinitions(byPath, report, problems);
  fail();
  for (const file of parsed.files) checkKeywords(file, metaAjv, ids, report, problems);
  fail();
  checkUnguardedRecursion(parsed.files, ids, report);
  fail();
}

/**
 * The contract's meta-schemas, each checked against 2020-12, and a problem for each that is
 * invalid or missing. Compiling them is most of this phase's time, and `diff` validates two
 * contracts that almost always share them: the last valid set is reused.
 */
function metaSchemas(
  parsed: ParsedContract,
  byPath: ReadonlyMap<string, ParsedFile>,
  report: FileReport,
  problems: ContractProblem[],
): MetaSchemas {
  const metaFiles = parsed.files.filter((f) => classifyFile(f.path) === "meta");
  const metaKey = JSON.stringify(metaFiles.map((f) => [f.path, f.json]));
  let metaAjv = lastMeta?.key === metaKey ? lastMeta.ajv : undefined;
  if (!metaAjv) {
    // Each meta-schema is checked against 2020-12 by the precompiled validator (as addSchema would,
    // with the same message), so no instance compiles the 2020-12 meta-schema.
    metaAjv = new MetaSchemas(metaSetKey(metaFiles));
    const before = problems.length;
    for (const file of metaFiles) {
      try {
        const invalid = jsonSchemaProblems(file.json);
        if (invalid) throw new Error(`schema is invalid: ${metaAjv.errorsText(invalid)}`);
        metaAjv.add(file.json as object);
      } catch (e) {
        report(file, "", `not a valid meta-schema: ${(e as Error).message}`);
      }
    }
    lastMeta = problems.length === before ? { key: metaKey, ajv: metaAjv } : undefined;
  }
  for (const [kind, path] of Object.entries(META_BY_KIND)) {
    if (!byPath.has(path))
      problems.push({ file: path, pointer: "", message: `missing: the meta-schema for ${kind} files` });
  }
  return metaAjv;
}

/**
 * Every file against the meta-schema of its kind, and every schema file against JSON Schema
 * 2020-12 with an $id that mirrors its path; returns the schema files by $id.
 */
function checkAgainstMetaSchemas(
  parsed: ParsedContract,
  byPath: ReadonlyMap<string, ParsedFile>,
  metaAjv: MetaSchemas,
  report: FileReport,
  problems: ContractProblem[],
): Map<string, ParsedFile> {
  const baseUri = (byPath.get("contract.json")!.json as { baseUri?: unknown }).baseUri;
  // Only validateSchema is used, for files that name another meta-schema than 2020-12 (it compiles
  // that meta-schema once per instance); 2020-12 itself is checked by a precompiled validator.
  const schemaAjv = () => (metaSchemaAjv ??= contractAjv());
  const ids = new Map<string, ParsedFile>();
  for (const file of parsed.files) {
    const kind = classifyFile(file.path);
    if (!kind) {
      report(
        file,
        "",
        "unexpected file: contract files are contract.json, meta/*.schema.json, tools/*.tool.json, kernel/*.command.json or {model,envelope,catalog,kernel}/*.schema.json",
      );
      continue;
    }
    const metaPath = META_BY_KIND[kind];
    if (metaPath) {
      const metaId = (byPath.get(metaPath)!.json as { $id: string }).$id;
      const invalid = metaAjv.problems(metaId, file.json);
      if (invalid) {
        problems.push(...problemsFromAjv(file, invalid));
        continue;
      }
    }
    if (kind === "manifest") continue;
    const invalid = jsonSchemaProblems(file.json, schemaAjv);
    if (invalid) {
      problems.push(...problemsFromAjv(file, invalid));
      continue;
    }
    if (kind === "meta") continue;
    const id = (file.json as { $id: string }).$id;
    if (typeof baseUri === "string" && id !== baseUri + file.path) {
      report(
        file,
        "/$id",
        `must be "${baseUri + file.path}": an $id mirrors the file's path, so ajv (by $id) and file-based tools (by path) resolve $refs alike`,
      );
    }
    ids.set(id, file);
  }
  return ids;
}

const KEYWORDS_FILE = "https://mnote.dev/contract/meta/keywords.schema.json";

/** The contract's own rules for every schema in a file: its keywords, formats, $ids and $refs. */
function checkKeywords(
  file: ParsedFile,
  metaAjv: MetaSchemas,
  ids: ReadonlyMap<string, ParsedFile>,
  report: FileReport,
  problems: ContractProblem[],
): void {
  const kind = classifyFile(file.path);
  if (kind === "manifest" || kind === "meta") return;
  walkSchema(file.json, "", (schema, pointer) => {
    for (const key of Object.keys(schema)) {
      // the pointer is built only for a problem: most keywords have none
      const at = () => joinPointer(pointer, key);
      if ((FORBIDDEN_KEYWORDS as readonly string[]).includes(key)) {
        report(
          file,
          at(),
          `keyword "${key}" is not allowed in the contract: json-schema-to-typescript cannot express it`,
        );
      } else if (isVendorKeyword(key)) {
        const invalid = metaAjv.problems(`${KEYWORDS_FILE}#/$defs/${key}`, schema[key]);
        if (invalid === undefined) report(file, at(), `no definition for ${key} in meta/keywords.schema.json`);
        else if (invalid) problems.push(...problemsFromAjv(file, invalid, at()));
      } else if (!JSON_SCHEMA_KEYWORDS.has(key)) {
        report(
          file,
          at(),
          `unknown keyword "${key}"` + (key.startsWith("x-") ? " (vendor keywords are x-mnote-*)" : ""),
        );
      }
    }
    if (schema.format !== undefined && !(SUPPORTED_FORMATS as readonly string[]).includes(String(schema.format))) {
      report(
        file,
        joinPointer(pointer, "format"),
        `format "${String(schema.format)}" is not supported (supported: ${SUPPORTED_FORMATS.join(", ")})`,
      );
    }
    if (pointer !== "" && schema.$id !== undefined)
      report(file, joinPointer(pointer, "$id"), "only a file's root may have an $id");
    if (typeof schema.$ref === "string") {
      const problem = checkRef(schema.$ref, (file.json as { $id: string }).$id, ids);
      if (problem) report(file, joinPointer(pointer, "$ref"), problem);
    }
  });
}

/** Keywords that descend into a part of the value: a $ref below one of them recurses on smaller data. */
const GUARDS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "contains",
  "propertyNames",
  "dependentSchemas",
]);

/**
 * A definition may refer to itself (a block tree, an outline) only through a property or an item:
 * `A: {anyOf: [{$ref: A}, …]}` or `A: {$ref: B}, B: {allOf: [{$ref: A}]}` validate a value against
 * itself forever (the generated validator overflows its stack, the TS type is circular). Reported
 * at the $ref that closes the cycle.
 */
function checkUnguardedRecursion(
  files: readonly ParsedFile[],
  ids: Map<string, ParsedFile>,
  report: (file: ParsedFile, pointer: string, message: string) => void,
): void {
  // node: "<file $id>#/$defs/<Name>"; edges: the $refs reached without passing a guard.
  const edges = new Map<string, Array<{ to: string; file: ParsedFile; at: string }>>();
  const visit = (file: ParsedFile, node: unknown, pointer: string, from: string): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((n, i) => visit(file, n, joinPointer(pointer, i), from));
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (
        GUARDS.has(key) ||
        key === "$defs" ||
        key === "enum" ||
        key === "const" ||
        key === "default" ||
        key === "examples" ||
        key.startsWith("x-")
      )
        continue;
      if (key === "$ref" && typeof value === "string") {
        const id = (file.json as { $id: string }).$id;
        const target = new URL(value, id).href;
        (edges.get(from) ?? edges.set(from, []).get(from)!).push({
          to: target,
          file,
          at: joinPointer(pointer, "$ref"),
        });
      } else visit(file, value, joinPointer(pointer, key), from);
    }
  };
  for (const file of files) {
    const defs = (file.json as { $defs?: Record<string, unknown> }).$defs;
    if (!defs || typeof defs !== "object" || !ids.has((file.json as { $id?: string }).$id ?? "")) continue;
    for (const [name, schema] of Object.entries(defs))
      visit(file, schema, joinPointer("", "$defs", name), `${(file.json as { $id: string }).$id}#/$defs/${name}`);
  }
  const state = new Map<string, "open" | "done">();
  const reported = new Set<string>();
  const dfs = (node: string): void => {
    state.set(node, "open");
    for (const edge of edges.get(node) ?? []) {
      const s = state.get(edge.to);
      if (s === "open") {
        const key = `${edge.file.path}${edge.at}`;
        if (!reported.has(key)) {
          reported.add(key);
          report(
            edge.file,
            edge.at,
            `recursive $ref to ${edge.to.slice(edge.to.indexOf("#") + 1)} that passes through no property or item: a value would be validated against itself forever (recurse through properties or items)`,
          );
        }
      } else if (s === undefined) dfs(edge.to);
    }
    state.set(node, "done");
  };
  for (const node of edges.keys()) if (!state.has(node)) dfs(node);
}

/** Definitions the generator and the runtime build on; a contract without them cannot be generated. */
const REQUIRED_DEFINITIONS: Record<string, string[]> = {
  "envelope/request.schema.json": ["ToolRequest"],
  "envelope/response.schema.json": ["ToolSuccess", "ToolFailure", "ToolResponse", "Audit", "ToolError"],
  "envelope/session-grant.schema.json": ["SessionGrant"],
  "kernel/envelope.schema.json": ["KernelContext", "KernelWrite", "KernelReply", "KernelRequest"],
  "catalog/errors.schema.json": ["ErrorCode"],
  "catalog/capabilities.schema.json": ["CapabilityScope"],
};

/** Catalogs are oneOf lists of consts, each carrying its facts in a vendor keyword. */
const CATALOGS: Record<string, { def: string; keyword: string }> = {
  "catalog/errors.schema.json": { def: "ErrorCode", keyword: "x-mnote-error" },
  "catalog/capabilities.schema.json": { def: "CapabilityScope", keyword: "x-mnote-capability" },
};

function checkRequiredDefinitions(
  byPath: Map<string, ParsedFile>,
  report: (file: ParsedFile, pointer: string, message: string) => void,
  problems: ContractProblem[],
): void {
  for (const [path, names] of Object.entries(REQUIRED_DEFINITIONS)) {
    const file = byPath.get(path);
    if (!file) {
      problems.push({
        file: path,
        pointer: "",
        message: `missing: the contract needs this file (with ${names.join(", ")})`,
      });
      continue;
    }
    for (const name of names) {
      if (getAtPointer(file.json, `/$defs/${name}`) === undefined) report(file, "/$defs", `missing definition ${name}`);
    }
  }
  for (const [path, { def, keyword }] of Object.entries(CATALOGS)) {
    const file = byPath.get(path);
    const entries = file ? getAtPointer(file.json, `/$defs/${def}/oneOf`) : undefined;
    if (!file || getAtPointer(file.json, `/$defs/${def}`) === undefined) continue;
    if (!Array.isArray(entries)) {
      report(file, `/$defs/${def}`, `a catalog is a oneOf list of {const, description, ${keyword}} entries`);
      continue;
    }
    entries.forEach((entry: Record<string, unknown>, i) => {
      const at = `/$defs/${def}/oneOf/${i}`;
      if (typeof entry?.const !== "string") report(file, at, "each catalog entry needs a string const");
      else if (entry[keyword] === undefined) report(file, at, `catalog entry ${entry.const} needs ${keyword}`);
    });
  }
  const request = byPath.get("envelope/request.schema.json");
  const fields = request ? getAtPointer(request.json, "/$defs/ToolRequest/properties") : undefined;
  if (request && fields && typeof fields === "object") {
    for (const [name, schema] of Object.entries(fields as Record<string, Record<string, unknown>>)) {
      if (schema?.["x-mnote-filledBy"] === undefined) {
        report(
          request,
          `/$defs/ToolRequest/properties/${name}`,
          "every request field says who fills it in (x-mnote-filledBy: model or host)",
        );
      }
    }
  }
}

/** A $ref must be relative (or local) and land on a named definition that exists. */
function checkRef(ref: string, baseId: string, ids: ReadonlyMap<string, ParsedFile>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref))
    return `"${ref}" must be a relative reference (the contract resolves offline, by path)`;
  const target = new URL(ref, baseId);
  const fragment = decodeURIComponent(target.hash.slice(1));
  target.hash = "";
  const file = ids.get(target.href);
  if (!file) return `"${ref}" points to no contract file`;
  if (!/^\/\$defs\/[^/]+$/.test(fragment)) return `"${ref}" must point to a named definition (#/$defs/Name)`;
  if (getAtPointer(file.json, fragment) === undefined)
    return `"${ref}" points to a definition that does not exist in ${file.path}`;
  return undefined;
}

type PathReport = (path: string, pointer: string, message: string) => void;

/**
 * Checks that need the whole normalized model: cross references, names, examples. examples: false
 * skips checking the examples' values (the slowest part: it compiles the schemas).
 */
export function validateModel(model: ContractModel, parsed: ParsedContract, examples = true): void {
  const problems: ContractProblem[] = [];
  const byPath = new Map(parsed.files.map((f) => [f.path, f]));
  const report: PathReport = (path, pointer, message) => {
    const file = byPath.get(path);
    problems.push({ file: path, pointer, message, position: file ? positionOf(file, pointer) : undefined });
  };
  const typeNames = checkTypeNames(model, report);
  checkCatalogs(model, report);
  checkTools(model, report);
  checkGuideRoles(model, parsed, report);
  checkContractFacts(model, report);
  checkMessagePlaceholders(model, report);
  for (const tool of model.tools) checkApproval(tool, report);
  if (examples) checkExamples(model, typeNames, report);
  if (problems.length > 0) throw new ContractError(problems);
}

/** Each type name once; returns the file of each. */
function checkTypeNames(model: ContractModel, report: PathReport): Map<string, string> {
  const typeNames = new Map<string, string>();
  for (const s of model.schemas) {
    const previous = typeNames.get(s.typeName);
    if (previous !== undefined)
      report(
        s.file || previous,
        "",
        `type name ${s.typeName} is defined twice (${previous} and ${s.file || "a composed schema"})`,
      );
    typeNames.set(s.typeName, s.file);
  }
  return typeNames;
}

/** The error catalog keeps the design note's codes; a capability requires only known ones. */
function checkCatalogs(model: ContractModel, report: PathReport): void {
  const codes = new Set(model.errors.map((e) => e.code));
  const scopes = new Set(model.capabilities.map((c) => c.scope));
  if (
    !codes.has("mnote_tool_permission_denied") ||
    !codes.has("mnote_tool_conflict") ||
    !codes.has("mnote_tool_idempotency_conflict")
  ) {
    report("catalog/errors.schema.json", "/$defs/ErrorCode", "the catalog must keep the design note's three codes");
  }
  for (const c of model.capabilities) {
    c.requires.forEach((r, i) => {
      if (!scopes.has(r))
        report(
          "catalog/capabilities.schema.json",
          `/$defs/CapabilityScope`,
          `capability ${c.scope} requires unknown capability ${r} (item ${i})`,
        );
    });
  }
}

/** Each tool: a unique name and provider name, a known capability, its kernel command, known error codes. */
function checkTools(model: ContractModel, report: PathReport): void {
  const scopes = new Set(model.capabilities.map((c) => c.scope));
  const codes = new Set(model.errors.map((e) => e.code));
  const toolNames = new Set<string>();
  const providerNames = new Map<string, string>();
  const commands = new Map(model.kernelCommands.map((k) => [k.name, k]));
  const at = "/x-mnote-tool";
  for (const tool of model.tools) {
    if (toolNames.has(tool.name)) report(tool.file, `${at}/name`, `tool ${tool.name} is defined twice`);
    toolNames.add(tool.name);
    const clash = providerNames.get(tool.providerName);
    if (clash) report(tool.file, `${at}/name`, `provider-safe name ${tool.providerName} is also ${clash}'s`);
    providerNames.set(tool.providerName, tool.name);
    if (!scopes.has(tool.capability))
      report(
        tool.file,
        `${at}/capability`,
        `unknown capability "${tool.capability}" (known: ${[...scopes].join(", ")})`,
      );
    checkKernelCommand(model, tool, commands.get(tool.kernelCommand), report);
    for (const code of Object.keys(tool.messages)) {
      if (!codes.has(code)) report(tool.file, `${at}/messages/${code}`, `unknown error code ${code}`);
    }
  }
}

/** A tool's kernel command exists, has the tool's effect, and takes the tool's args unchanged. */
function checkKernelCommand(
  model: ContractModel,
  tool: ToolModel,
  command: KernelCommandModel | undefined,
  report: PathReport,
): void {
  const at = "/x-mnote-tool";
  if (!command) {
    report(tool.file, `${at}/kernelCommand`, `no kernel command "${tool.kernelCommand}" in kernel/`);
    return;
  }
  if (command.effect !== tool.effect)
    report(
      tool.file,
      `${at}/effect`,
      `the tool is a ${tool.effect} but kernel command ${command.name} is a ${command.effect}`,
    );
  const payload = model.schemas.find((s) => s.typeName === command.payloadType)!.schema as {
    properties?: Record<string, { $ref?: string }>;
  };
  const argsRef = payload.properties?.args?.$ref;
  const expected = `../tools/${tool.file.slice("tools/".length)}#/$defs/Args`;
  if (argsRef !== expected)
    report(
      command.file,
      "/$defs/Payload/properties/args/$ref",
      `must be "${expected}": the runtime passes ${tool.name}'s args to ${command.name} unchanged`,
    );
}

/** Each example names a type, its added pointers are in its value, and the type accepts the value. */
function checkExamples(model: ContractModel, typeNames: ReadonlyMap<string, string>, report: PathReport): void {
  const targets = model.examples.map((example) =>
    typeNames.has(example.of) ? model.schemas.find((s) => s.typeName === example.of) : undefined,
  );
  const verdicts = exampleVerdicts(model, targets);
  model.examples.forEach((example, i) => {
    if (!targets[i]) {
      report(example.file, `${example.pointer}/of`, `no type named ${example.of}`);
      return;
    }
    example.added.forEach((pointer, j) => {
      if (getAtPointer(example.value, pointer) === undefined)
        report(example.file, `${example.pointer}/added/${j}`, `${pointer} is not in the example's value`);
    });
    const e = verdicts[i];
    if (e)
      report(
        example.file,
        `${example.pointer}/value${ajvErrorPointer(e)}`,
        `example "${example.name}" is not a valid ${example.of}: ${describeAjvError(e)}`,
      );
  });
}

/**
 * What ajv says of each example whose type exists: null when valid, else its first error. Watch
 * mode keeps the compiled validators while what the schemas accept is unchanged (memo.ts); the
 * verdicts themselves are kept on disk (keyed by that and the examples' values), so a run after
 * an edit no validator sees compiles nothing.
 */
function exampleVerdicts(
  model: ContractModel,
  targets: ReadonlyArray<{ ref: string } | undefined>,
): Array<ErrorObject | null> {
  const files = [...model.schemaFiles, ...model.composedFiles];
  const makeAjv = () => {
    const ajv = contractAjv();
    // validateFiles already checked every contract file against the 2020-12 meta-schema (and the
    // composed files are built from them): checking again would compile that meta-schema a second time.
    for (const f of files) ajv.addSchema(f.json, undefined, undefined, false);
    return ajv;
  };
  const keys = files.map((f) => validationKey(f.json));
  const verdicts = () => {
    const ajv = keys.includes(undefined) ? makeAjv() : memo("examples", keys, makeAjv);
    return model.examples.map((example, i) => {
      const target = targets[i];
      if (!target) return null;
      const validate = ajv.getSchema(target.ref)!;
      return validate(example.value) ? null : validate.errors![0]!;
    });
  };
  if (keys.includes(undefined)) return verdicts();
  const checks = model.examples.map((example, i) => (targets[i] ? [targets[i].ref, example.value] : null));
  return JSON.parse(
    diskText("example verdicts", { keys, checks }, () => JSON.stringify(verdicts())),
  ) as Array<ErrorObject | null>;
}

/**
 * A tool's approval fact must be one the runtime can honour: every condition names top-level args
 * fields the tool has, and ask needs the dry run the runtime previews with (a tool without one can
 * be allowed or denied, not asked about).
 */
function checkApproval(tool: ToolModel, report: (path: string, pointer: string, message: string) => void): void {
  const at = "/x-mnote-tool/approval";
  const fields = Object.keys((tool.parameters.properties as Record<string, unknown> | undefined) ?? {});
  tool.approval.when.forEach((condition, i) => {
    for (const field of Object.keys(condition.args)) {
      if (!fields.includes(field) || field === "dryRun")
        report(
          tool.file,
          `${at}/when/${i}/args/${field}`,
          `${tool.name} has no top-level args field "${field}" (its fields: ${fields.filter((f) => f !== "dryRun").join(", ") || "none"})`,
        );
    }
  });
  const levels = [tool.approval.default, ...tool.approval.when.map((c) => c.approval)];
  if (levels.includes("ask") && tool.dryRun !== "required")
    report(
      tool.file,
      at,
      `${tool.name} has no dry run: "ask" needs one (the runtime shows the dry run's diff to the person asked); use allow or deny`,
    );
}

const GUIDE_ROLE_POINTER = "/$defs/x-mnote-tool/properties/guideRole/enum";

/**
 * The agent's guide (the Hermes SKILL.md) names one tool per role; the roles are the enum of
 * x-mnote-tool guideRole. Each must be held by exactly one tool: a missing or doubled role is a
 * contract error, never a silent pick of some other tool.
 */
function checkGuideRoles(
  model: ContractModel,
  parsed: ParsedContract,
  report: (path: string, pointer: string, message: string) => void,
): void {
  const keywords = parsed.files.find((f) => f.path === "meta/keywords.schema.json");
  const roles = keywords ? getAtPointer(keywords.json, GUIDE_ROLE_POINTER) : undefined;
  if (!Array.isArray(roles)) return;
  const holders = new Map<string, string>();
  for (const tool of model.tools) {
    if (tool.guideRole === undefined) continue;
    const other = holders.get(tool.guideRole);
    if (other)
      report(
        tool.file,
        "/x-mnote-tool/guideRole",
        `guideRole "${tool.guideRole}" is already ${other}'s: each role belongs to exactly one tool`,
      );
    else holders.set(tool.guideRole, tool.name);
  }
  for (const role of roles as string[]) {
    if (!holders.has(role)) {
      report(
        "meta/keywords.schema.json",
        GUIDE_ROLE_POINTER,
        `no tool has guideRole "${role}": the agent's guide (Hermes SKILL.md) names the tool for each role; add "guideRole": "${role}" to one tool's x-mnote-tool`,
      );
    }
  }
}

/** Named limits state a number, names are unique, and a cut string's maxLength holds the cut text plus its marker. */
function checkContractFacts(
  model: ContractModel,
  report: (path: string, pointer: string, message: string) => void,
): void {
  const seen = new Set<string>();
  for (const limit of model.limits) {
    const at = joinPointer(limit.pointer, "x-mnote-limit");
    if (seen.has(limit.name)) report(limit.file, at, `limit "${limit.name}" is named twice`);
    seen.add(limit.name);
    if (!Number.isFinite(limit.value))
      report(
        limit.file,
        at,
        `limit "${limit.name}" names no number: the schema needs maxItems, maxLength, maximum or maxProperties`,
      );
  }
  const cuts = new Set<string>();
  for (const cut of model.truncations) {
    const at = joinPointer(cut.pointer, "x-mnote-truncate");
    if (cuts.has(cut.name)) report(cut.file, at, `truncation "${cut.name}" is named twice`);
    cuts.add(cut.name);
    const file = model.schemaFiles.find((f) => f.path === cut.file)!;
    const maxLength = (getAtPointer(file.json, cut.pointer) as { maxLength?: unknown }).maxLength;
    const needed = cut.length + [...cut.marker].length;
    if (maxLength !== needed)
      report(
        cut.file,
        at,
        `maxLength must be ${needed} (length ${cut.length} plus the marker's ${[...cut.marker].length} characters), not ${String(maxLength)}`,
      );
  }
}
