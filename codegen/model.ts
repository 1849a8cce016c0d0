/** The normalized contract: plain data every target reads. Built by phases/normalize.ts. */

export type JsonSchema = Record<string, unknown>;

export type FileKind = "manifest" | "meta" | "tool" | "kernel" | "schema";

export interface SchemaFile {
  path: string;
  id: string;
  kind: FileKind;
  json: JsonSchema;
}

export interface NamedSchema {
  /** The TypeScript type name, unique in the contract. */
  typeName: string;
  /** Absolute reference: file $id + "#/$defs/<key>". */
  ref: string;
  /** Contract file it comes from ("" for composed schemas). */
  file: string;
  schema: JsonSchema;
  composed: boolean;
}

export interface Messages {
  "zh-CN": string;
  en: string;
}

export interface UnwiredField {
  /** Pointer inside the tool's args, e.g. /options/showToc. */
  pointer: string;
  /** The last token, the field's name. */
  field: string;
  runtimeSupport: string;
  /** The value page.get reports for an unwired field (its x-mnote-initialValue, since the kernel never stores it), meaning "leave it as it is" (absent when the contract gives none). */
  unsetValue?: unknown;
}

export type ApprovalLevel = "allow" | "ask" | "deny";

/** A tool's approval fact (x-mnote-tool approval), normalized: a bare level is {default: level, when: []}. */
export interface ApprovalModel {
  default: ApprovalLevel;
  /** The first condition whose top-level args all equal the given values wins. */
  when: Array<{ args: Record<string, string | number | boolean | null>; approval: ApprovalLevel }>;
}

/** A tool's budget (x-mnote-tool budget): calls counted per window, per session, principal and page. */
export interface BudgetModel {
  windowSeconds: number;
  perSession: number;
  perActor: number;
  perPage: number;
}

export interface ToolModel {
  name: string;
  providerName: string;
  typePrefix: string;
  file: string;
  title: string;
  /** As written in the contract: tools named [[canonical name]] (what mnote-tools diff compares). */
  description: string;
  /** What the model reads: placeholders replaced by provider names. Every model-facing target uses this. */
  modelDescription: string;
  effect: "read" | "write";
  capability: string;
  kernelCommand: string;
  idempotency: "required" | "none";
  dryRun: "required" | "none";
  semantics: { destructive: boolean; idempotent: boolean };
  /** Whether a call needs a person's approval (absent in the contract: allow). */
  approval: ApprovalModel;
  /**
   * The top-level args field holding the revision a write is planned against (the one whose schema
   * is the contract's Revision), or null: where an approved write carries the previewed revision.
   */
  revisionField: string | null;
  /** Per top-level args field, its schema default where it has one (what an absent field means to an approval condition). */
  argDefaults: Record<string, unknown>;
  messages: Record<string, Messages>;
  argsType: string;
  resultType: string;
  requestType: string;
  responseType: string;
  /** The type of a model's raw arguments, checked before the raise step (codegen/providers/model-arguments.ts). */
  modelArgumentsType: string;
  /** The schema the model fills in: the args' fields, plus dryRun when the tool takes it. Self-contained. */
  parameters: JsonSchema;
  /** The response envelope as one self-contained schema (for MCP outputSchema and docs). */
  responseSchema: JsonSchema;
  unwiredFields: UnwiredField[];
  /** The part the tool plays in the agent's guide (x-mnote-tool guideRole), if any. */
  guideRole?: string;
  /** How many calls count per window (x-mnote-tool budget): the ceilings a host policy may lower; null: none. */
  budget: BudgetModel | null;
}

export interface KernelCommandModel {
  name: string;
  methodName: string;
  typePrefix: string;
  file: string;
  effect: "read" | "write";
  description: string;
  payloadType: string;
  resultType: string;
}

export interface ErrorModel {
  code: string;
  /** As written in the catalog. */
  description: string;
  /** Placeholders replaced by provider names (SKILL.md, docs). */
  modelDescription: string;
  retryable: boolean;
  messages: Messages;
  reasons: Record<string, Messages>;
  /** Message templates per JSON Schema keyword ({field}, {limit}); empty unless the code has them. */
  rules: Record<string, Messages>;
}

export interface CapabilityModel {
  scope: string;
  description: string;
  requires: string[];
  deniedReason: string;
}

export interface ExampleModel {
  file: string;
  pointer: string;
  name: string;
  of: string;
  source: string;
  added: string[];
  value: unknown;
}

export interface RequestFieldModel {
  name: string;
  filledBy: "model" | "host";
}

/** A limit the contract names (x-mnote-limit): the number its schema states. */
export interface LimitModel {
  name: string;
  value: number;
  file: string;
  pointer: string;
}

/** How a string is cut (x-mnote-truncate). */
export interface TruncationModel {
  name: string;
  length: number;
  marker: string;
  file: string;
  pointer: string;
}

/** A named object schema whose fields carry x-mnote-runtimeSupport (PageOptions): per field, its support and initial value. */
export interface OptionSetModel {
  typeName: string;
  fields: Array<{ name: string; runtimeSupport: string; initialValue: unknown }>;
}

export interface ContractModel {
  name: string;
  /** contract.json's toolsetDescription (tool placeholders resolved), or a sentence naming the tools. Model-facing. */
  toolsetDescription: string;
  version: string;
  title: string;
  baseUri: string;
  hash: string;
  fileHashes: Record<string, string>;
  /** Contract schema files (not meta, not the manifest), by path. */
  schemaFiles: SchemaFile[];
  /** Schemas the generator composes (per-tool request and response), as files with their own $id. */
  composedFiles: SchemaFile[];
  /** Every named schema, sorted by typeName. */
  schemas: NamedSchema[];
  tools: ToolModel[];
  kernelCommands: KernelCommandModel[];
  errors: ErrorModel[];
  capabilities: CapabilityModel[];
  requestFields: RequestFieldModel[];
  examples: ExampleModel[];
  limits: LimitModel[];
  truncations: TruncationModel[];
  optionSets: OptionSetModel[];
}
