/**
 * The tool registry: per tool every fact the runtime and the agent surfaces need (names,
 * capability, effect, kernel command, the model-facing parameters, the validators), plus the error
 * catalog, the capabilities, the request fields, and the facts a kernel needs (named limits, how
 * strings are cut, option sets with their runtimeSupport and defaults). The runtime reads tools from here and only
 * from here, which is what lets a seventh tool need no runtime change.
 */
import type { Target } from "./target";
import type { ContractModel } from "../model";
import { banner } from "../support/banner";
import { tsLiteral, tsString } from "../support/ts-literal";
import { camelCase } from "../support/names";
import { validatorName } from "./validators";

export const registryTarget: Target = {
  name: "registry",
  emit(model) {
    const content = [
      `${banner(model, "ts")}\n`,
      contractHeader(model),
      DESCRIPTOR_TYPES,
      `export const tools = {\n${model.tools.map(toolEntry).join("\n")}\n} as const satisfies Record<RegisteredToolName, ToolDescriptor>;\n\n`,
      `export const kernelCommands = {\n${model.kernelCommands.map(commandEntry).join("\n")}\n} as const satisfies Record<KernelCommandName, KernelCommandDescriptor>;\n\n`,
      LOOKUPS,
      catalogs(model),
    ].join("");
    return [{ path: "registry.ts", content }];
  },
};

/** The imports, the contract's identity and the name unions. */
function contractHeader(model: ContractModel): string {
  const union = (xs: string[]) => xs.map(tsString).join(" | ") || "never";
  return `import type * as T from "./types";
import * as V from "./validators";
import type { Validator } from "./validators/runtime/validator";

export const contract = {
  name: ${tsString(model.name)},
  version: ${tsString(model.version)},
  hash: ${tsString(model.hash)},
} as const;

/** The canonical name of every tool in this contract. */
export type RegisteredToolName = ${union(model.tools.map((t) => t.name))};
/** The name of every kernel command in this contract. */
export type KernelCommandName = ${union(model.kernelCommands.map((k) => k.name))};

`;
}

/**
 * One tool's descriptor. Its two schemas, most of the registry's bytes, are JSON text handed to
 * JSON.parse (V8 reads JSON faster than the same object literal, and the module is smaller: a
 * one-shot process loading the registry pays less), asserted to the type `as const` gave the
 * literal, so the package's types do not change.
 */
function toolEntry(t: ContractModel["tools"][number]): string {
  return `  ${tsString(t.name)}: {
    name: ${tsString(t.name)},
    providerName: ${tsString(t.providerName)},
    title: ${tsString(t.title)},
    description: ${tsString(t.modelDescription)},
    effect: ${tsString(t.effect)},
    capability: ${tsString(t.capability)},
    kernelCommand: ${tsString(t.kernelCommand)},
    idempotency: ${tsString(t.idempotency)},
    dryRun: ${tsString(t.dryRun)},
    semantics: ${tsLiteral(t.semantics, 2)},
    approval: ${tsLiteral(t.approval, 2)},
    budget: ${t.budget === null ? "null" : tsLiteral(t.budget, 2)},
    revisionField: ${t.revisionField === null ? "null" : tsString(t.revisionField)},
    argDefaults: ${tsLiteral(t.argDefaults, 2)},
    messages: ${tsLiteral(t.messages, 2)},
    unwiredFields: ${tsLiteral(t.unwiredFields, 2)},
    parameters: ${parsedJson(t.parameters, 2)},
    responseSchema: ${parsedJson(t.responseSchema, 2)},
    validateRequest: V.${validatorName(t.requestType)},
    validateArgs: V.${validatorName(t.argsType)},
    validateResult: V.${validatorName(t.resultType)},
    validateResponse: V.${validatorName(t.responseType)},
    validateModelArguments: V.${validatorName(t.modelArgumentsType)},
  },`;
}

function commandEntry(k: ContractModel["kernelCommands"][number]): string {
  return `  ${tsString(k.name)}: {
    name: ${tsString(k.name)},
    method: ${tsString(k.methodName)},
    effect: ${tsString(k.effect)},
    description: ${tsString(k.description)},
    validatePayload: V.${validatorName(k.payloadType)},
    validateResult: V.${validatorName(k.resultType)},
  },`;
}

/** Plain data as `JSON.parse("...") as <its const type>`. */
export function parsedJson(value: unknown, depth: number): string {
  return `JSON.parse(${tsString(JSON.stringify(value))}) as ${constType(value, depth)}`;
}

/**
 * The type TypeScript gives a JSON value's literal under `as const`: literal types, readonly
 * properties, readonly tuples. Property names that are identifiers are written bare, as the
 * declaration files print them.
 */
export function constType(value: unknown, depth = 0): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const pad = padding(depth + 1);
  if (Array.isArray(value)) {
    if (value.length === 0) return "readonly []";
    let out = "readonly [\n";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? pad : ",\n" + pad) + constType(value[i], depth + 1);
    return out + "\n" + padding(depth) + "]";
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 0) return "{}";
  let out = "{\n";
  for (const k of keys)
    out +=
      pad + "readonly " + (IDENTIFIER.test(k) ? k : JSON.stringify(k)) + ": " + constType(record[k], depth + 1) + ";\n";
  return out + padding(depth) + "}";
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Indentation by depth, made once per depth (constType writes some 11 MB of it at 200 tools). */
const pads: string[] = [];
function padding(depth: number): string {
  return (pads[depth] ??= "  ".repeat(depth));
}

/** The error catalog, the capabilities and the facts a kernel needs. */
function catalogs(model: ContractModel): string {
  const errors = Object.fromEntries(
    model.errors.map((e) => [
      e.code,
      { retryable: e.retryable, messages: e.messages, reasons: e.reasons, rules: e.rules },
    ]),
  );
  const errorConstants = Object.fromEntries(
    model.errors.map((e) => [camelCase(e.code.replace(/^mnote_tool_/, "")), e.code]),
  );
  const capabilities = Object.fromEntries(
    model.capabilities.map((c) => [c.scope, { requires: c.requires, deniedReason: c.deniedReason }]),
  );

  return `export const errorCatalog = ${tsLiteral(errors)} as const satisfies Record<T.ErrorCode, { retryable: boolean; messages: LocalizedMessages; reasons: { [reason: string]: LocalizedMessages }; rules: { [keyword: string]: LocalizedMessages } }>;

/** Every error code by a short name, so code never spells a code out. */
export const ERR = ${tsLiteral(errorConstants)} as const satisfies Record<string, T.ErrorCode>;

/** The reasons a code may carry. */
export type ErrorReason<C extends T.ErrorCode> = keyof (typeof errorCatalog)[C]["reasons"] & string;

export const capabilities = ${tsLiteral(capabilities)} as const satisfies Record<T.CapabilityScope, { requires: readonly T.CapabilityScope[]; deniedReason: string }>;

export const capabilityScopes: readonly T.CapabilityScope[] = Object.keys(capabilities) as T.CapabilityScope[];

export interface OptionFieldFacts {
  /** x-mnote-runtimeSupport: only "wired" fields are applied by the kernel. */
  readonly runtimeSupport: string;
  /** What a page reports for a field it never set (x-mnote-initialValue). */
  readonly initialValue: unknown;
}

/** Numbers the contract names (x-mnote-limit), for code on both sides of it. */
export const limits = ${tsLiteral(Object.fromEntries(model.limits.map((l) => [l.name, l.value])))} as const satisfies Record<string, number>;

/** How strings are cut (x-mnote-truncate): at most length characters, then marker when cut. */
export const truncations = ${tsLiteral(Object.fromEntries(model.truncations.map((t) => [t.name, { length: t.length, marker: t.marker }])))} as const satisfies Record<string, { length: number; marker: string }>;

/** Per object type whose fields carry x-mnote-runtimeSupport: each field's support and initial value. */
export const optionSets = ${tsLiteral(Object.fromEntries(model.optionSets.map((o) => [o.typeName, Object.fromEntries(o.fields.map((f) => [f.name, { runtimeSupport: f.runtimeSupport, initialValue: f.initialValue }]))])))} as const satisfies Record<string, Record<string, OptionFieldFacts>>;

/** Who writes each request field: the model (a tool's args, dryRun) or the host (everything else). */
export const requestFields = ${tsLiteral(Object.fromEntries(model.requestFields.map((f) => [f.name, f.filledBy])))} as const satisfies Record<keyof T.ToolRequest, "model" | "host">;
`;
}

/** The descriptor interfaces (no contract fact in them). */
const DESCRIPTOR_TYPES = `export interface LocalizedMessages {
  readonly "zh-CN": string;
  readonly en: string;
}
export type MessageLocale = keyof LocalizedMessages;

export interface UnwiredField {
  /** Where in the tool's args, as a JSON pointer. */
  readonly pointer: string;
  readonly field: string;
  readonly runtimeSupport: string;
  /** The value that means "leave it as it is" (what page.get reports for a field the kernel does not store). */
  readonly unsetValue?: unknown;
}

export type JsonSchemaObject = { readonly [keyword: string]: unknown };

/** A tool's approval fact (x-mnote-tool approval): the first condition whose args all match wins, else the default. */
export interface ApprovalFact {
  readonly default: T.ApprovalLevel;
  readonly when: ReadonlyArray<{
    readonly args: { readonly [field: string]: string | number | boolean | null };
    readonly approval: T.ApprovalLevel;
  }>;
}

/** A tool's budget (x-mnote-tool budget): calls per window of windowSeconds. */
export interface BudgetFact {
  readonly windowSeconds: number;
  readonly perSession: number;
  readonly perActor: number;
  readonly perPage: number;
}

export interface ToolDescriptor {
  readonly name: RegisteredToolName;
  /** The name model providers accept: ^[a-zA-Z0-9_-]{1,64}$. */
  readonly providerName: string;
  readonly title: string;
  /** Written for the model. */
  readonly description: string;
  readonly effect: "read" | "write";
  readonly capability: T.CapabilityScope;
  readonly kernelCommand: KernelCommandName;
  readonly idempotency: "required" | "none";
  readonly dryRun: "required" | "none";
  readonly semantics: { readonly destructive: boolean; readonly idempotent: boolean };
  /** Whether a call needs a person's approval, before any host policy (docs/APPROVAL.md). */
  readonly approval: ApprovalFact;
  /**
   * How many calls count per window, per session, per principal and per page (x-mnote-tool budget):
   * ceilings a host policy may lower, never raise (docs/RELIABILITY.md, budgets); null: no budget.
   */
  readonly budget: BudgetFact | null;
  /** The args field an approved write carries the previewed revision in (the kernel's conflict check), or null. */
  readonly revisionField: string | null;
  /** Per top-level args field, its schema default: what an absent field means to an approval condition. */
  readonly argDefaults: { readonly [field: string]: unknown };
  /** Per-tool message overrides, by error code. */
  readonly messages: { readonly [code in T.ErrorCode]?: LocalizedMessages };
  /** Args fields whose runtimeSupport is not "wired". */
  readonly unwiredFields: readonly UnwiredField[];
  /** What the model fills in (the args, and dryRun for writes): self-contained JSON Schema. */
  readonly parameters: JsonSchemaObject;
  /** The response envelope: self-contained JSON Schema. */
  readonly responseSchema: JsonSchemaObject;
  readonly validateRequest: Validator<T.ToolRequest>;
  readonly validateArgs: Validator<unknown>;
  readonly validateResult: Validator<unknown>;
  readonly validateResponse: Validator<T.ToolResponse>;
  /**
   * A model's raw arguments, by shape (null where a field is optional): what an agent surface
   * checks before the raise step reads them. The raised request then goes through validateRequest.
   */
  readonly validateModelArguments: Validator<unknown>;
}

export interface KernelCommandDescriptor {
  readonly name: KernelCommandName;
  /** The kernel client's method for it. */
  readonly method: string;
  readonly effect: "read" | "write";
  readonly description: string;
  readonly validatePayload: Validator<unknown>;
  readonly validateResult: Validator<unknown>;
}

`;

/** Lookups over the tables and the model's view of a response (no contract fact in them). */
const LOOKUPS = `const toolsByName: ReadonlyMap<string, ToolDescriptor> = new Map(Object.values(tools).map((t) => [t.name, t]));
const toolsByProviderName: ReadonlyMap<string, ToolDescriptor> = new Map(Object.values(tools).map((t) => [t.providerName, t]));
const commandsByName: ReadonlyMap<string, KernelCommandDescriptor> = new Map(Object.values(kernelCommands).map((k) => [k.name, k]));

/** The tool with this canonical name (safe for any input string). */
export function toolByName(name: string): ToolDescriptor | undefined {
  return toolsByName.get(name);
}

/** The tool with this provider-safe name (safe for any input string). */
export function toolByProviderName(name: string): ToolDescriptor | undefined {
  return toolsByProviderName.get(name);
}

export function kernelCommandByName(name: string): KernelCommandDescriptor | undefined {
  return commandsByName.get(name);
}

export const toolList: readonly ToolDescriptor[] = Object.values(tools);

/**
 * A response as a model reads it (contract/README.md, "What a model reads"): the same envelope,
 * with toolName the name the model calls the tool by (its provider name). Programs (the envelope
 * API, audit, logs) keep the canonical name; agent surfaces show the model this view.
 */
export type ModelToolResponse = Omit<T.ToolResponse, "toolName"> & { toolName: string | null };

/** The model's view of a response: toolName becomes the tool's provider name (null stays null). */
export function modelView(response: T.ToolResponse): ModelToolResponse {
  const tool = response.toolName === null ? undefined : toolsByName.get(response.toolName);
  return { ...response, toolName: tool ? tool.providerName : response.toolName };
}

/**
 * A tool's response schema as the model reads it (MCP outputSchema): every toolName the envelope
 * schema names is the tool's provider name, and the description names the tool so too. Everything
 * else is the tool's responseSchema.
 */
export function modelResponseSchema(tool: ToolDescriptor): JsonSchemaObject {
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" && value !== null && typeof value === "object" && "toolName" in value) {
        const properties = rename(value) as Record<string, unknown>;
        properties.toolName = { description: "The tool, by the name the model calls it.", const: tool.providerName };
        out[key] = properties;
      } else out[key] = rename(value);
    }
    return out;
  };
  const schema = rename(tool.responseSchema) as Record<string, unknown>;
  schema.description = \`The answer of \${tool.providerName}: a success or a failure, told apart by ok.\`;
  return schema;
}

/** Whether a value is a response of this tool as the model reads it (modelView of a valid response). */
export function validateModelResponse(tool: ToolDescriptor, value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const view = value as { toolName?: unknown };
  return view.toolName === tool.providerName && tool.validateResponse({ ...view, toolName: tool.name });
}

`;
