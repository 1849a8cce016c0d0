/**
 * The validator contenders, all checking the same schema: the mnote.page.save request envelope
 * (PageSaveRequest = ToolRequest + toolName "mnote.page.save" + PageSaveArgs).
 *
 * - generated: the standalone validator the generator emits (generated/validators).
 * - ajv: ajv compiling, at run time, the very schemas the standalone code is emitted from
 *   (codegen's validatorSchemas, with codegen's createContractAjv configuration).
 * - zod: zod 4, a hand translation of the schema (strict objects, patterns, lengths, enums).
 * - typebox: TypeBox's TypeCompiler on a hand translation of the schema.
 * - hand: a hand-written check, the ceiling.
 *
 * Two differences of meaning, both in zod's and TypeBox's favour: their string lengths count UTF-16
 * code units (String.length), where JSON Schema counts code points (ajv, and the hand check, which
 * counts code points only when .length is over the limit). The inputs hold no astral characters
 * near a limit, so all five agree on every input; the bench checks that they do.
 */
import { z } from "zod";
import { Type, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { contractDir } from "./paths";

export type Check = (value: unknown) => boolean;

export const CONTENDERS = ["generated", "ajv", "zod", "typebox", "hand"] as const;
export type Contender = (typeof CONTENDERS)[number];

// ---- the patterns and limits of the contract (contract/model/common.schema.json, block.schema.json) ----

const IDENTIFIER = "^[A-Za-z0-9][A-Za-z0-9._:-]*$";
const IDEMPOTENCY_KEY = "^[!-~]+$";
const BLOCK_ID = "^[A-Za-z0-9_-]+$";
const BLOCK_TYPES = [
  "paragraph",
  "heading",
  "bulleted_list_item",
  "numbered_list_item",
  "to_do",
  "quote",
  "code",
  "divider",
] as const;
const SCOPES = ["page.read", "page.write", "artifact.write"] as const;
const LOCALES = ["zh-CN", "en"] as const;
const MAX_REVISION = 9007199254740991;

// ---- generated ----

export async function generatedCheck(): Promise<Check> {
  const { validatePageSaveRequest } = await import("../generated/validators");
  return (v) => validatePageSaveRequest(v);
}

// ---- ajv at run time, from the schemas the generator compiles ----

/** ajv (createContractAjv, as the generator configures it) with every validator schema added. */
export async function contractAjv() {
  const { readContractDir } = await import("../codegen/phases/load");
  const { buildModel } = await import("../codegen/pipeline");
  const { validatorSchemas } = await import("../codegen/targets/validators");
  const { createContractAjv } = await import("../codegen/support/contract-ajv");
  const { prepareForAjv } = await import("../codegen/support/ajv-compat");
  const ajv = createContractAjv();
  for (const schema of validatorSchemas(buildModel(readContractDir(contractDir)))) {
    const ready = prepareForAjv(schema, schema.$id as string);
    for (const resource of ready.resources) ajv.addSchema(resource);
    ajv.addSchema(ready.root as object);
  }
  return ajv;
}

export async function ajvCheck(): Promise<Check> {
  const ajv = await contractAjv();
  const validate = ajv.getSchema("urn:mnote:type:PageSaveRequest");
  if (!validate) throw new Error("ajv has no PageSaveRequest");
  return (v) => validate(v) as boolean;
}

// ---- zod 4 ----

export function zodSchema() {
  const identifier = z.string().min(1).max(128).regex(new RegExp(IDENTIFIER, "u"));
  const blockInput = z.strictObject({
    id: z.string().min(1).max(64).regex(new RegExp(BLOCK_ID, "u")).optional(),
    type: z.enum(BLOCK_TYPES),
    text: z.string().max(20000),
    level: z.number().int().min(1).max(3).optional(),
    checked: z.boolean().optional(),
    language: z.string().max(32).optional(),
  });
  return z.strictObject({
    toolName: z.literal("mnote.page.save"),
    workspaceId: identifier,
    documentId: identifier,
    actorId: identifier,
    sessionId: identifier,
    runId: identifier,
    toolCallId: identifier,
    traceId: identifier,
    idempotencyKey: z.string().min(1).max(256).regex(new RegExp(IDEMPOTENCY_KEY, "u")),
    dryRun: z.boolean(),
    capabilityScope: z
      .array(z.enum(SCOPES))
      .min(1)
      .max(8)
      .refine((a) => new Set(a).size === a.length, "must not have duplicate items"),
    locale: z.enum(LOCALES).optional(),
    args: z.strictObject({
      content: z.array(blockInput).max(500),
      mode: z.enum(["replace", "append"]).optional(),
      baseRevision: z.number().int().min(0).max(MAX_REVISION).optional(),
    }),
  });
}

export async function zodCheck(): Promise<Check> {
  const schema = zodSchema();
  return (v) => schema.safeParse(v).success;
}

// ---- TypeBox ----

export function typeboxSchema(): TSchema {
  const identifier = Type.String({ minLength: 1, maxLength: 128, pattern: IDENTIFIER });
  const literalUnion = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
  const blockInput = Type.Object(
    {
      id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: BLOCK_ID })),
      type: literalUnion(BLOCK_TYPES),
      text: Type.String({ maxLength: 20000 }),
      level: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
      checked: Type.Optional(Type.Boolean()),
      language: Type.Optional(Type.String({ maxLength: 32 })),
    },
    { additionalProperties: false },
  );
  return Type.Object(
    {
      toolName: Type.Literal("mnote.page.save"),
      workspaceId: identifier,
      documentId: identifier,
      actorId: identifier,
      sessionId: identifier,
      runId: identifier,
      toolCallId: identifier,
      traceId: identifier,
      idempotencyKey: Type.String({ minLength: 1, maxLength: 256, pattern: IDEMPOTENCY_KEY }),
      dryRun: Type.Boolean(),
      capabilityScope: Type.Array(literalUnion(SCOPES), { minItems: 1, maxItems: 8, uniqueItems: true }),
      locale: Type.Optional(literalUnion(LOCALES)),
      args: Type.Object(
        {
          content: Type.Array(blockInput, { maxItems: 500 }),
          mode: Type.Optional(literalUnion(["replace", "append"])),
          baseRevision: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_REVISION })),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  );
}

export async function typeboxCheck(): Promise<Check> {
  const compiled = TypeCompiler.Compile(typeboxSchema());
  return (v) => compiled.Check(v);
}

// ---- hand-written ----

const idRe = new RegExp(IDENTIFIER);
const keyRe = new RegExp(IDEMPOTENCY_KEY);
const blockIdRe = new RegExp(BLOCK_ID);
const blockTypes = new Set<string>(BLOCK_TYPES);

/** Code points, as JSON Schema counts a string's length. */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    n++;
  }
  return n;
}

/** maxLength in code points; code points never outnumber UTF-16 units, so most strings need no count. */
function within(s: string, max: number): boolean {
  return s.length <= max || codePoints(s) <= max;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): boolean {
  return typeof v === "string" && v.length >= 1 && within(v, 128) && idRe.test(v);
}

function isInt(v: unknown, min: number, max: number): boolean {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
}

function isBlock(b: unknown): boolean {
  if (!isObject(b)) return false;
  if (b.type === undefined || b.text === undefined) return false;
  for (const k in b) {
    const v = b[k];
    switch (k) {
      case "id":
        if (!(typeof v === "string" && v.length >= 1 && within(v, 64) && blockIdRe.test(v))) return false;
        break;
      case "type":
        if (typeof v !== "string" || !blockTypes.has(v)) return false;
        break;
      case "text":
        if (typeof v !== "string" || !within(v, 20000)) return false;
        break;
      case "level":
        if (!isInt(v, 1, 3)) return false;
        break;
      case "checked":
        if (typeof v !== "boolean") return false;
        break;
      case "language":
        if (typeof v !== "string" || !within(v, 32)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function isArgs(a: unknown): boolean {
  if (!isObject(a) || a.content === undefined) return false;
  for (const k in a) {
    const v = a[k];
    switch (k) {
      case "content": {
        if (!Array.isArray(v) || v.length > 500) return false;
        for (let i = 0; i < v.length; i++) if (!isBlock(v[i])) return false;
        break;
      }
      case "mode":
        if (v !== "replace" && v !== "append") return false;
        break;
      case "baseRevision":
        if (!isInt(v, 0, MAX_REVISION)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function isScopes(v: unknown): boolean {
  if (!Array.isArray(v) || v.length < 1 || v.length > 8) return false;
  for (let i = 0; i < v.length; i++) {
    const s = v[i];
    if (s !== "page.read" && s !== "page.write" && s !== "artifact.write") return false;
    for (let j = 0; j < i; j++) if (v[j] === s) return false;
  }
  return true;
}

const REQUIRED = [
  "toolName",
  "workspaceId",
  "documentId",
  "actorId",
  "sessionId",
  "runId",
  "toolCallId",
  "traceId",
  "capabilityScope",
  "args",
  "idempotencyKey",
  "dryRun",
];

export async function handCheck(): Promise<Check> {
  return (r) => {
    if (!isObject(r)) return false;
    for (let i = 0; i < REQUIRED.length; i++) if (r[REQUIRED[i]!] === undefined) return false;
    for (const k in r) {
      const v = r[k];
      switch (k) {
        case "toolName":
          if (v !== "mnote.page.save") return false;
          break;
        case "workspaceId":
        case "documentId":
        case "actorId":
        case "sessionId":
        case "runId":
        case "toolCallId":
        case "traceId":
          if (!isId(v)) return false;
          break;
        case "idempotencyKey":
          if (!(typeof v === "string" && v.length >= 1 && within(v, 256) && keyRe.test(v))) return false;
          break;
        case "dryRun":
          if (typeof v !== "boolean") return false;
          break;
        case "capabilityScope":
          if (!isScopes(v)) return false;
          break;
        case "locale":
          if (v !== "zh-CN" && v !== "en") return false;
          break;
        case "args":
          if (!isArgs(v)) return false;
          break;
        default:
          return false;
      }
    }
    return true;
  };
}

export function contenderCheck(name: Contender): Promise<Check> {
  switch (name) {
    case "generated":
      return generatedCheck();
    case "ajv":
      return ajvCheck();
    case "zod":
      return zodCheck();
    case "typebox":
      return typeboxCheck();
    case "hand":
      return handCheck();
  }
}
