/**
 * Phase 3, normalize: the validated files become one plain ContractModel that every target reads.
 * Names are derived here, once: type names, provider-safe names, method names; the per-tool
 * request and response schemas are composed here from the envelope and the tool's own schemas.
 */
import type {
  CapabilityModel,
  ContractModel,
  ErrorModel,
  ExampleModel,
  JsonSchema,
  KernelCommandModel,
  Messages,
  NamedSchema,
  RequestFieldModel,
  SchemaFile,
  ToolModel,
  UnwiredField,
  ApprovalLevel,
  ApprovalModel,
  BudgetModel,
  LimitModel,
  TruncationModel,
  OptionSetModel,
} from "../model";
import type { ParsedContract } from "./load";
import { classifyFile } from "./validate";
import { RefIndex } from "../support/refs";
import { camelCase, pascalCase, providerSafeName, toolTypePrefix } from "../support/names";
import { joinPointer } from "../../common/json-pointer";
import { modelArgumentsSchema } from "../providers/model-arguments";
import { isPlainObject } from "../../common/values";
import { walkSchema } from "../support/schema-walk";
import { byKey } from "../../common/sort";

const SCHEMA_URI = "https://json-schema.org/draft/2020-12/schema";

interface ToolFacts {
  name: string;
  providerName?: string;
  title: string;
  description: string;
  effect: "read" | "write";
  capability: string;
  kernelCommand: string;
  idempotency: "required" | "none";
  dryRun: "required" | "none";
  semantics: { destructive: boolean; idempotent: boolean };
  approval?: ApprovalLevel | { default: ApprovalLevel; when?: ApprovalModel["when"] };
  messages?: Record<string, Messages>;
  guideRole?: string;
  budget?: BudgetModel;
}

interface CommandFacts {
  name: string;
  effect: "read" | "write";
  description: string;
}

interface Manifest {
  name: string;
  version: string;
  title: string;
  baseUri: string;
  toolsetDescription?: string;
}

/**
 * What the walk over the schema files gathers, file by file (the arrays are sorted into the model
 * at the end). `tools` is the array the model returns: a tool's lazy model-facing schemas read it
 * when they are first built, once every tool is in.
 */
interface Gathering {
  manifest: Manifest;
  schemaFiles: SchemaFile[];
  index: RefIndex;
  envelopeId: string;
  responseId: string;
  requestFields: RequestFieldModel[];
  schemas: NamedSchema[];
  tools: ToolModel[];
  kernelCommands: KernelCommandModel[];
  composedFiles: SchemaFile[];
  examples: ExampleModel[];
}

/** The phases: read the manifest and the schema files, gather what each file holds, assemble the model. */
export function normalize(parsed: ParsedContract): ContractModel {
  const manifest = manifestOf(parsed);
  const g = startGathering(manifest, schemaFilesOf(parsed));
  for (const file of g.schemaFiles) {
    const prefix = typePrefixOf(file);
    for (const rule of FILE_RULES) rule(g, file, prefix);
  }
  return assemble(parsed, g);
}

function manifestOf(parsed: ParsedContract): Manifest {
  return parsed.files.find((f) => f.path === "contract.json")!.json as Manifest;
}

/** The files that hold schemas (tools, kernel commands, shared schemas), in the contract's file order. */
function schemaFilesOf(parsed: ParsedContract): SchemaFile[] {
  const schemaFiles: SchemaFile[] = [];
  for (const f of parsed.files) {
    const kind = classifyFile(f.path)!;
    if (kind === "tool" || kind === "kernel" || kind === "schema") {
      schemaFiles.push({ path: f.path, id: (f.json as { $id: string }).$id, kind, json: f.json as JsonSchema });
    }
  }
  return schemaFiles;
}

function startGathering(manifest: Manifest, schemaFiles: SchemaFile[]): Gathering {
  const index = new RefIndex(schemaFiles);
  const envelopeId = manifest.baseUri + "envelope/request.schema.json";
  return {
    manifest,
    schemaFiles,
    index,
    envelopeId,
    responseId: manifest.baseUri + "envelope/response.schema.json",
    requestFields: requestFieldsOf(index.resolve("#/$defs/ToolRequest", envelopeId).schema),
    schemas: [],
    tools: [],
    kernelCommands: [],
    composedFiles: [],
    examples: [],
  };
}

/** The prefix of every type name a file's definitions get: the tool's or kernel command's name; none for a shared schema. */
function typePrefixOf(file: SchemaFile): string {
  if (file.kind === "tool") return toolTypePrefix((file.json["x-mnote-tool"] as ToolFacts).name);
  if (file.kind === "kernel") return pascalCase((file.json["x-mnote-kernel-command"] as CommandFacts).name);
  return "";
}

type FileRule = (g: Gathering, file: SchemaFile, prefix: string) => void;

/** What each schema file contributes, in this order: each rule a named function. */
const FILE_RULES: readonly FileRule[] = [gatherDefinitions, gatherExamples, gatherKernelCommand, gatherTool];

/** Every $defs entry of a file is a named type. */
function gatherDefinitions(g: Gathering, file: SchemaFile, prefix: string): void {
  const defs = file.json.$defs as Record<string, JsonSchema>;
  for (const key of Object.keys(defs)) {
    g.schemas.push({
      typeName: prefix + key,
      ref: `${file.id}#/$defs/${key}`,
      file: file.path,
      schema: defs[key]!,
      composed: false,
    });
  }
}

/** A file's x-mnote-examples, each with the pointer it sits at. */
function gatherExamples(g: Gathering, file: SchemaFile): void {
  const fileExamples = file.json["x-mnote-examples"];
  if (Array.isArray(fileExamples)) {
    fileExamples.forEach((e: Omit<ExampleModel, "file" | "pointer">, i) =>
      g.examples.push({ file: file.path, pointer: joinPointer("/x-mnote-examples", i), ...e }),
    );
  }
}

function gatherKernelCommand(g: Gathering, file: SchemaFile, prefix: string): void {
  if (file.kind !== "kernel") return;
  const facts = file.json["x-mnote-kernel-command"] as CommandFacts;
  g.kernelCommands.push({
    name: facts.name,
    methodName: camelCase(facts.name),
    typePrefix: prefix,
    file: file.path,
    effect: facts.effect,
    description: facts.description,
    payloadType: prefix + "Payload",
    resultType: prefix + "Result",
  });
}

/** A tool file: its composed schemas (a file of their own, and named types) and its ToolModel. */
function gatherTool(g: Gathering, file: SchemaFile, prefix: string): void {
  if (file.kind !== "tool") return;
  const defs = file.json.$defs as Record<string, JsonSchema>;
  const facts = file.json["x-mnote-tool"] as ToolFacts;
  const composedId = `${g.manifest.baseUri}composed/${facts.name}.json`;
  const args = g.index.inline(defs.Args!, file.id);
  const parameters = modelParameters(args, facts, g.requestFields, g.index, g.envelopeId);
  const composed: Record<string, JsonSchema> = {
    ...composeToolSchemas(facts, file.id, g.envelopeId, g.responseId),
    // what a model's raw arguments are checked against before the raise step (self-contained)
    ModelArguments: modelArgumentsSchema(parameters, facts.name),
  };
  const composedFile: SchemaFile = {
    path: `composed/${facts.name}.json`,
    id: composedId,
    kind: "schema",
    json: { $schema: SCHEMA_URI, $id: composedId, $defs: composed },
  };
  g.composedFiles.push(composedFile);
  for (const key of Object.keys(composed)) {
    g.schemas.push({
      typeName: prefix + key,
      ref: `${composedId}#/$defs/${key}`,
      file: "",
      schema: composed[key]!,
      composed: true,
    });
  }
  const tool = toolModelOf(g, file, prefix, facts, args);
  // The self-contained schemas (every $ref inlined) are for the model-facing targets only:
  // resolved (response: built) on first use, so `mnote-tools diff`, which never reads them, does
  // not pay for them. The parameters themselves are built above: ModelArguments is made from them
  // (it keeps no description, so resolving placeholders in place later cannot change it).
  const modelFacing = (schema: JsonSchema) => resolvePlaceholders(g.tools, schema);
  lazy(tool, "parameters", () => modelFacing(parameters));
  lazy(tool, "responseSchema", () =>
    modelFacing(new RefIndex([...g.schemaFiles, composedFile]).inline(composed.Response!, composedId)),
  );
  g.tools.push(tool);
}

/** A tool's facts and derived names (its model-facing schemas are added lazily by gatherTool). */
function toolModelOf(g: Gathering, file: SchemaFile, prefix: string, facts: ToolFacts, args: JsonSchema): ToolModel {
  const defs = file.json.$defs as Record<string, JsonSchema>;
  return {
    name: facts.name,
    providerName: facts.providerName ?? providerSafeName(facts.name),
    typePrefix: prefix,
    file: file.path,
    title: facts.title,
    description: facts.description,
    modelDescription: facts.description,
    effect: facts.effect,
    capability: facts.capability,
    kernelCommand: facts.kernelCommand,
    idempotency: facts.idempotency,
    dryRun: facts.dryRun,
    semantics: facts.semantics,
    approval: approvalOf(facts.approval),
    budget: facts.budget ?? null,
    revisionField: revisionFieldOf(defs.Args!, file.id, g.manifest.baseUri),
    argDefaults: argDefaultsOf(args),
    messages: facts.messages ?? {},
    argsType: prefix + "Args",
    resultType: prefix + "Result",
    requestType: prefix + "Request",
    responseType: prefix + "Response",
    modelArgumentsType: prefix + "ModelArguments",
    unwiredFields: unwiredFieldsOf(defs.Args!, file.id, g.index),
    ...(facts.guideRole !== undefined ? { guideRole: facts.guideRole } : {}),
  } as ToolModel;
}

/** The model: what was gathered, sorted, with the catalogs (errors, capabilities) and the contract's facts. */
function assemble(parsed: ParsedContract, g: Gathering): ContractModel {
  const { manifest, index, tools } = g;
  const errors = errorsOf(index.resolve("#/$defs/ErrorCode", manifest.baseUri + "catalog/errors.schema.json").schema);
  // before the tools are sorted: the default toolset description lists them in file order
  const toolsetDescription = namesAsTheModelSeesThem(tools, errors, manifest.toolsetDescription);
  return {
    name: manifest.name,
    toolsetDescription,
    version: manifest.version,
    title: manifest.title,
    baseUri: manifest.baseUri,
    hash: parsed.hash,
    fileHashes: Object.fromEntries(parsed.files.map((f) => [f.path, f.sha256])),
    schemaFiles: g.schemaFiles,
    composedFiles: g.composedFiles.sort(byKey((f) => f.path)),
    schemas: g.schemas.sort(byKey((s) => s.typeName)),
    tools: tools.sort(byKey((t) => t.name)),
    kernelCommands: g.kernelCommands.sort(byKey((k) => k.name)),
    errors,
    capabilities: capabilitiesOf(
      index.resolve("#/$defs/CapabilityScope", manifest.baseUri + "catalog/capabilities.schema.json").schema,
    ),
    requestFields: g.requestFields,
    examples: g.examples,
    ...contractFactsOf(g.schemaFiles, g.schemas),
  };
}

const LIMIT_KEYWORDS = ["maxItems", "maxLength", "maximum", "maxProperties"] as const;

/**
 * The facts code on both sides of the contract reads instead of repeating: named limits, how
 * strings are cut, and per option set each field's runtimeSupport and initial value.
 */
function contractFactsOf(
  files: SchemaFile[],
  schemas: NamedSchema[],
): { limits: LimitModel[]; truncations: TruncationModel[]; optionSets: OptionSetModel[] } {
  const limits: LimitModel[] = [];
  const truncations: TruncationModel[] = [];
  for (const file of files) {
    walkSchema(file.json, "", (node, pointer) => {
      const name = node["x-mnote-limit"];
      if (typeof name === "string") {
        const keyword = LIMIT_KEYWORDS.find((k) => typeof node[k] === "number");
        limits.push({ name, value: keyword ? (node[keyword] as number) : NaN, file: file.path, pointer });
      }
      const cut = node["x-mnote-truncate"] as { name: string; length: number; marker: string } | undefined;
      if (isPlainObject(cut))
        truncations.push({ name: cut.name, length: cut.length, marker: cut.marker, file: file.path, pointer });
    });
  }
  const optionSets: OptionSetModel[] = [];
  for (const s of schemas) {
    if (s.composed || !isPlainObject(s.schema.properties)) continue;
    const fields = Object.entries(s.schema.properties as Record<string, JsonSchema>)
      .filter(([, field]) => typeof field["x-mnote-runtimeSupport"] === "string")
      .map(([name, field]) => ({
        name,
        runtimeSupport: field["x-mnote-runtimeSupport"] as string,
        initialValue: field["x-mnote-initialValue"] ?? null,
      }));
    if (fields.length > 0) optionSets.push({ typeName: s.typeName, fields });
  }
  return {
    limits: limits.sort(byKey((l) => l.name)),
    truncations: truncations.sort(byKey((t) => t.name)),
    optionSets: optionSets.sort(byKey((o) => o.typeName)),
  };
}

/** A tool's request is the envelope narrowed to its name and args; a write also requires the key and dryRun. */
function composeToolSchemas(
  facts: ToolFacts,
  toolId: string,
  envelopeId: string,
  responseId: string,
): Record<string, JsonSchema> {
  const required = ["toolName", "args"];
  if (facts.idempotency === "required") required.push("idempotencyKey");
  if (facts.dryRun === "required") required.push("dryRun");
  return {
    Request: {
      description: `A request envelope for ${facts.name}.`,
      allOf: [
        { $ref: `${envelopeId}#/$defs/ToolRequest` },
        {
          type: "object",
          required,
          properties: { toolName: { const: facts.name }, args: { $ref: `${toolId}#/$defs/Args` } },
        },
      ],
    },
    Response: {
      description: `A response envelope for ${facts.name}.`,
      anyOf: [
        {
          allOf: [
            { $ref: `${responseId}#/$defs/ToolSuccess` },
            {
              type: "object",
              required: ["toolName", "result"],
              properties: { toolName: { const: facts.name }, result: { $ref: `${toolId}#/$defs/Result` } },
            },
          ],
        },
        {
          allOf: [
            { $ref: `${responseId}#/$defs/ToolFailure` },
            { type: "object", required: ["toolName"], properties: { toolName: { const: facts.name } } },
          ],
        },
      ],
    },
  };
}

function requestFieldsOf(toolRequest: JsonSchema): RequestFieldModel[] {
  const properties = toolRequest.properties as Record<string, JsonSchema>;
  return Object.keys(properties).map((name) => ({
    name,
    filledBy: properties[name]!["x-mnote-filledBy"] === "model" ? "model" : "host",
  }));
}

/**
 * What the model fills in: the tool's args, plus every other envelope field the contract marks as
 * model-written (dryRun) that this tool takes. The plugin splits them apart again.
 */
function modelParameters(
  args: JsonSchema,
  facts: ToolFacts,
  fields: RequestFieldModel[],
  index: RefIndex,
  envelopeId: string,
): JsonSchema {
  const properties: Record<string, JsonSchema> = { ...(args.properties as Record<string, JsonSchema>) };
  const envelope = index.resolve("#/$defs/ToolRequest", envelopeId).schema.properties as Record<string, JsonSchema>;
  for (const field of fields) {
    if (field.filledBy !== "model" || field.name === "args") continue;
    if (field.name === "dryRun" && facts.dryRun !== "required") continue;
    properties[field.name] = { ...index.inline(envelope[field.name]!, envelopeId), default: false };
  }
  const out: JsonSchema = { type: "object", properties, additionalProperties: false };
  if (Array.isArray(args.required) && args.required.length > 0) out.required = args.required;
  return out;
}

/** x-mnote-tool approval as one shape: absent is allow, a bare level has no conditions. */
function approvalOf(fact: ToolFacts["approval"]): ApprovalModel {
  if (fact === undefined) return { default: "allow", when: [] };
  if (typeof fact === "string") return { default: fact, when: [] };
  return { default: fact.default, when: fact.when ?? [] };
}

/**
 * The top-level args field whose schema is the contract's Revision ($ref to
 * model/common.schema.json#/$defs/Revision), if exactly one: an approved write carries the
 * previewed revision there, so the kernel refuses it (conflict) when the page moved since.
 */
function revisionFieldOf(args: JsonSchema, fileId: string, baseUri: string): string | null {
  const revision = `${baseUri}model/common.schema.json#/$defs/Revision`;
  const properties = isPlainObject(args.properties) ? (args.properties as Record<string, JsonSchema>) : {};
  const fields = Object.keys(properties).filter((name) => {
    const ref = properties[name]!.$ref;
    return typeof ref === "string" && new URL(ref, fileId).href === revision;
  });
  return fields.length === 1 ? fields[0]! : null;
}

/** The schema default of each top-level args field that has one (inlined args). */
function argDefaultsOf(args: JsonSchema): Record<string, unknown> {
  const properties = isPlainObject(args.properties) ? (args.properties as Record<string, JsonSchema>) : {};
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(properties).sort()) {
    if (properties[name]!.default !== undefined) out[name] = properties[name]!.default;
  }
  return out;
}

/** Args fields (followed through $refs and properties) whose runtimeSupport is not "wired". */
function unwiredFieldsOf(args: JsonSchema, baseId: string, index: RefIndex): UnwiredField[] {
  const out: UnwiredField[] = [];
  const visit = (schema: JsonSchema, base: string, pointer: string, depth: number): void => {
    if (depth > 16) return;
    let node = schema;
    let nodeBase = base;
    if (typeof node.$ref === "string") {
      const target = index.resolve(node.$ref, base);
      node = { ...target.schema, ...node };
      nodeBase = target.fileId;
      delete node.$ref;
    }
    const support = node["x-mnote-runtimeSupport"];
    if (typeof support === "string" && support !== "wired") {
      const unwired: UnwiredField = { pointer, field: pointer.split("/").pop()!, runtimeSupport: support };
      // an unwired field is never stored, so page.get always reports its initial value for it
      if ("x-mnote-initialValue" in node) unwired.unsetValue = node["x-mnote-initialValue"];
      out.push(unwired);
    }
    if (isPlainObject(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties))
        visit(sub as JsonSchema, nodeBase, joinPointer(pointer, name), depth + 1);
    }
  };
  visit(args, baseId, "", 0);
  return out;
}

/** Defines obj[key] as computed on first read (then a plain value). */
function lazy<T extends object, K extends keyof T>(obj: T, key: K, compute: () => T[K]): void {
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get(): T[K] {
      const value = compute();
      Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      return value;
    },
  });
}

/** Every description in a model-facing schema with its [[tool]] placeholders resolved (in place). */
function resolvePlaceholders(tools: readonly ToolModel[], schema: JsonSchema): JsonSchema {
  const byName = new Map(tools.map((t) => [t.name, t.providerName]));
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isPlainObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "description" && typeof value === "string")
        node[key] = value.replace(TOOL_PLACEHOLDER, (all, name: string) => byName.get(name) ?? all);
      else walk(value);
    }
  };
  walk(schema);
  return schema;
}

/** `[[mnote.page.get]]` in model-facing text: a tool named by its canonical name, shown under its provider name. */
export const TOOL_PLACEHOLDER = /\[\[([^\]]*)\]\]/g;

/**
 * Model-facing text (tool and parameter descriptions, error descriptions, the toolset description)
 * names tools as the model sees them. The provider name is derived, so the contract writes
 * [[<canonical name>]] and it is resolved here, once (the raw text stays in `description` for
 * mnote-tools diff). A placeholder naming no tool is left as it is, and generation refuses to emit
 * it (codegen/targets/providers.ts): a model never sees one, and the diff can still compare a
 * contract with a renamed tool.
 */
function namesAsTheModelSeesThem(tools: ToolModel[], errors: ErrorModel[], toolset: string | undefined): string {
  const byName = new Map(tools.map((t) => [t.name, t.providerName]));
  const resolve = (text: string): string =>
    text.replace(TOOL_PLACEHOLDER, (all, name: string) => byName.get(name) ?? all);
  // The tools' parameters and response schemas (MCP outputSchema: some clients show it to the
  // model) are resolved when they are built (resolvePlaceholders).
  for (const t of tools) t.modelDescription = resolve(t.description);
  for (const e of errors) e.modelDescription = resolve(e.description);
  return toolset === undefined
    ? `The mnote page-AI tools: ${tools.map((t) => t.providerName).join(", ")}.`
    : resolve(toolset);
}

function errorsOf(errorCode: JsonSchema): ErrorModel[] {
  return (errorCode.oneOf as JsonSchema[]).map((entry) => {
    const facts = entry["x-mnote-error"] as {
      retryable: boolean;
      messages: Messages;
      reasons?: Record<string, Messages>;
      rules?: Record<string, Messages>;
    };
    return {
      code: entry.const as string,
      description: (entry.description as string) ?? "",
      modelDescription: (entry.description as string) ?? "",
      retryable: facts.retryable,
      messages: facts.messages,
      reasons: facts.reasons ?? {},
      rules: facts.rules ?? {},
    };
  });
}

function capabilitiesOf(scope: JsonSchema): CapabilityModel[] {
  return (scope.oneOf as JsonSchema[]).map((entry) => {
    const facts = entry["x-mnote-capability"] as { requires: string[]; deniedReason: string };
    return {
      scope: entry.const as string,
      description: (entry.description as string) ?? "",
      requires: facts.requires,
      deniedReason: facts.deniedReason,
    };
  });
}
