/**
 * The validator contenders, all checking the same schemas of contract 2.0.0:
 *
 * - PageSaveRequest (timed): ToolRequest + toolName "mnote.page.save" + PageSaveArgs, with the
 *   block rules (only heading carries level, only to_do checked, only code language; a divider has
 *   empty text and none of the three);
 * - PageUpdateTitleArgs (agreement only): the title rule (one line, at least one visible character);
 * - SessionGrant (agreement only): an RFC 3339 expiresAt whose seconds are 00 to 59 (no leap second).
 *
 * Contenders:
 * - generated: the standalone validator the generator emits (generated/validators).
 * - ajv: ajv compiling, at run time, the very schemas the standalone code is emitted from
 *   (codegen's validatorSchemas, with codegen's createContractAjv configuration).
 * - zod: zod 4, a hand translation of the schema (strict objects, a discriminated union on the
 *   block type, patterns, lengths, enums, z.iso.datetime).
 * - typebox: TypeBox's TypeCompiler on a hand translation (a union of one object per block type).
 * - hand: a hand-written check, the ceiling.
 *
 * Patterns, limits and enums are read from the contract's files, not copied: a contract change
 * reaches every contender, and the agreement check says which one no longer matches.
 *
 * What zod and TypeBox do differently, and why no input of the bench shows it: their string
 * lengths count UTF-16 code units (String.length) where JSON Schema counts code points (ajv, and
 * the hand check); the inputs hold no astral characters near a limit. zod's z.iso.datetime refuses
 * three spellings RFC 3339 allows (a lower-case "t" or "z", a space for "T", an offset without its
 * colon); the inputs use none of them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { FormatRegistry, Type, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { contractDir } from "./paths";

export type Check = (value: unknown) => boolean;

export const CONTENDERS = ["generated", "ajv", "zod", "typebox", "hand"] as const;
export type Contender = (typeof CONTENDERS)[number];

/** The schemas every contender implements: the first is timed, all are checked for agreement. */
export const SCHEMAS = ["PageSaveRequest", "PageUpdateTitleArgs", "SessionGrant"] as const;
export type SchemaName = (typeof SCHEMAS)[number];
export type Checks = Record<SchemaName, Check>;

// ---- the contract's facts, read from its files ----

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON Schema documents, read by known paths
type Json = Record<string, any>;
const readSchema = (file: string): Json => JSON.parse(readFileSync(join(contractDir, file), "utf8")) as Json;

function contractFacts() {
  const common = readSchema("model/common.schema.json").$defs as Json;
  const block = readSchema("model/block.schema.json").$defs as Json;
  const capabilities = readSchema("catalog/capabilities.schema.json").$defs as Json;
  const title = (readSchema("tools/page.update_title.tool.json").$defs as Json).Args.properties.title as Json;
  const save = (readSchema("tools/page.save.tool.json").$defs as Json).Args.properties as Json;
  const grant = (readSchema("envelope/session-grant.schema.json").$defs as Json).SessionGrant.properties as Json;
  const input = block.ContentBlockInput.properties as Json;
  return {
    identifier: common.Identifier as { pattern: string; minLength: number; maxLength: number },
    idempotencyKey: common.IdempotencyKey as { pattern: string; minLength: number; maxLength: number },
    maxRevision: common.Revision.maximum as number,
    locales: common.Locale.enum as string[],
    blockId: block.BlockId as { pattern: string; minLength: number; maxLength: number },
    blockTypes: block.BlockType.enum as string[],
    blockText: block.BlockText.maxLength as number,
    level: input.level as { minimum: number; maximum: number },
    language: input.language.maxLength as number,
    scopes: (capabilities.CapabilityScope.oneOf as Array<{ const: string }>).map((s) => s.const),
    maxBlocks: save.content.maxItems as number,
    modes: save.mode.enum as string[],
    title: title as { pattern: string; minLength: number; maxLength: number },
    expiresAt: grant.expiresAt as { pattern: string; maxLength: number },
  };
}

/** The contract's facts the hand translations use (also the SDK-only MCP server's zod schemas). */
export const C = contractFacts();
/** Which optional field a block type may carry (the if/then/else chain of ContentBlockInput). */
const FIELD_OF: Record<string, "level" | "checked" | "language" | undefined> = {
  heading: "level",
  to_do: "checked",
  code: "language",
};
const DIVIDER = "divider";
const PLAIN_TYPES = C.blockTypes.filter((t) => !FIELD_OF[t] && t !== DIVIDER);

// ---- generated ----

async function generatedChecks(): Promise<Checks> {
  const v = await import("../generated/validators");
  return {
    PageSaveRequest: (x) => v.validatePageSaveRequest(x),
    PageUpdateTitleArgs: (x) => v.validatePageUpdateTitleArgs(x),
    SessionGrant: (x) => v.validateSessionGrant(x),
  };
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

async function ajvChecks(): Promise<Checks> {
  const ajv = await contractAjv();
  const get = (name: SchemaName): Check => {
    const validate = ajv.getSchema(`urn:mnote:type:${name}`);
    if (!validate) throw new Error(`ajv has no ${name}`);
    return (v) => validate(v) as boolean;
  };
  return {
    PageSaveRequest: get("PageSaveRequest"),
    PageUpdateTitleArgs: get("PageUpdateTitleArgs"),
    SessionGrant: get("SessionGrant"),
  };
}

// ---- RFC 3339 date-time, as JSON Schema's format defines it (hand and TypeBox) ----

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE_RE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const TIME_RE = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)$/i;

function isDateTime(s: string): boolean {
  const parts = s.split(/t|\s/i);
  if (parts.length !== 2) return false;
  const d = DATE_RE.exec(parts[0]!);
  const t = TIME_RE.exec(parts[1]!);
  if (!d || !t) return false;
  const year = +d[1]!;
  const month = +d[2]!;
  const day = +d[3]!;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && leap ? 29 : DAYS[month]!)) return false;
  const [hr, min, sec, tzH, tzM] = [+t[1]!, +t[2]!, +t[3]!, +(t[6] ?? 0), +(t[7] ?? 0)];
  if (tzH > 23 || tzM > 59) return false;
  if (hr <= 23 && min <= 59 && sec < 60) return true;
  // a leap second is 23:59:60 in UTC (the contract's pattern refuses it anyway)
  const sign = t[5] === "-" ? -1 : 1;
  const utcMin = min - tzM * sign;
  const utcHr = hr - tzH * sign - (utcMin < 0 ? 1 : 0);
  return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
}

// ---- zod 4 ----

function zodIdentifier() {
  return z
    .string()
    .min(C.identifier.minLength)
    .max(C.identifier.maxLength)
    .regex(new RegExp(C.identifier.pattern, "u"));
}

function zodScopes() {
  return z
    .array(z.enum(C.scopes as [string, ...string[]]))
    .min(1)
    .max(8)
    .refine((a) => new Set(a).size === a.length, "must not have duplicate items");
}

/** A block to write, in zod: one strict object per block type, so a field the type does not use is refused. */
export function zodBlockInput() {
  const base = {
    id: z
      .string()
      .min(C.blockId.minLength)
      .max(C.blockId.maxLength)
      .regex(new RegExp(C.blockId.pattern, "u"))
      .optional(),
    text: z.string().max(C.blockText),
  };
  return z.discriminatedUnion("type", [
    z.strictObject({
      ...base,
      type: z.literal("heading"),
      level: z.number().int().min(C.level.minimum).max(C.level.maximum).optional(),
    }),
    z.strictObject({ ...base, type: z.literal("to_do"), checked: z.boolean().optional() }),
    z.strictObject({ ...base, type: z.literal("code"), language: z.string().max(C.language).optional() }),
    z.strictObject({ ...base, type: z.literal(DIVIDER), text: z.string().max(0) }),
    z.strictObject({ ...base, type: z.enum(PLAIN_TYPES as [string, ...string[]]) }),
  ]);
}

/** page.update_title's title, in zod: the title rule's pattern and lengths. */
export function zodTitle() {
  return z.string().min(C.title.minLength).max(C.title.maxLength).regex(new RegExp(C.title.pattern, "u"));
}

export function zodSchema() {
  const identifier = zodIdentifier();
  const blockInput = zodBlockInput();
  return z.strictObject({
    toolName: z.literal("mnote.page.save"),
    workspaceId: identifier,
    documentId: identifier,
    actorId: identifier,
    sessionId: identifier,
    runId: identifier,
    toolCallId: identifier,
    traceId: identifier,
    idempotencyKey: z
      .string()
      .min(C.idempotencyKey.minLength)
      .max(C.idempotencyKey.maxLength)
      .regex(new RegExp(C.idempotencyKey.pattern, "u")),
    dryRun: z.boolean(),
    capabilityScope: zodScopes(),
    locale: z.enum(C.locales as [string, ...string[]]).optional(),
    args: z.strictObject({
      content: z.array(blockInput).max(C.maxBlocks),
      mode: z.enum(C.modes as [string, ...string[]]).optional(),
      baseRevision: z.number().int().min(0).max(C.maxRevision).optional(),
    }),
  });
}

async function zodChecks(): Promise<Checks> {
  const save = zodSchema();
  const title = z.strictObject({
    title: zodTitle(),
    baseRevision: z.number().int().min(0).max(C.maxRevision).optional(),
  });
  const identifier = zodIdentifier();
  const grant = z.strictObject({
    sessionId: identifier,
    workspaceId: identifier,
    documentId: identifier,
    actorId: identifier,
    capabilityScope: zodScopes(),
    traceId: identifier.optional(),
    locale: z.enum(C.locales as [string, ...string[]]).optional(),
    expiresAt: z.iso.datetime({ offset: true }).max(C.expiresAt.maxLength).regex(new RegExp(C.expiresAt.pattern, "u")),
  });
  return {
    PageSaveRequest: (v) => save.safeParse(v).success,
    PageUpdateTitleArgs: (v) => title.safeParse(v).success,
    SessionGrant: (v) => grant.safeParse(v).success,
  };
}

// ---- TypeBox ----

const literalUnion = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const typeboxIdentifier = () =>
  Type.String({ minLength: C.identifier.minLength, maxLength: C.identifier.maxLength, pattern: C.identifier.pattern });
const typeboxScopes = () => Type.Array(literalUnion(C.scopes), { minItems: 1, maxItems: 8, uniqueItems: true });

export function typeboxSchema(): TSchema {
  const identifier = typeboxIdentifier();
  const strict = { additionalProperties: false };
  const base = {
    id: Type.Optional(
      Type.String({ minLength: C.blockId.minLength, maxLength: C.blockId.maxLength, pattern: C.blockId.pattern }),
    ),
    text: Type.String({ maxLength: C.blockText }),
  };
  const blockInput = Type.Union([
    Type.Object(
      {
        ...base,
        type: Type.Literal("heading"),
        level: Type.Optional(Type.Integer({ minimum: C.level.minimum, maximum: C.level.maximum })),
      },
      strict,
    ),
    Type.Object({ ...base, type: Type.Literal("to_do"), checked: Type.Optional(Type.Boolean()) }, strict),
    Type.Object(
      { ...base, type: Type.Literal("code"), language: Type.Optional(Type.String({ maxLength: C.language })) },
      strict,
    ),
    Type.Object({ ...base, type: Type.Literal(DIVIDER), text: Type.String({ maxLength: 0 }) }, strict),
    Type.Object({ ...base, type: literalUnion(PLAIN_TYPES) }, strict),
  ]);
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
      idempotencyKey: Type.String({
        minLength: C.idempotencyKey.minLength,
        maxLength: C.idempotencyKey.maxLength,
        pattern: C.idempotencyKey.pattern,
      }),
      dryRun: Type.Boolean(),
      capabilityScope: typeboxScopes(),
      locale: Type.Optional(literalUnion(C.locales)),
      args: Type.Object(
        {
          content: Type.Array(blockInput, { maxItems: C.maxBlocks }),
          mode: Type.Optional(literalUnion(C.modes)),
          baseRevision: Type.Optional(Type.Integer({ minimum: 0, maximum: C.maxRevision })),
        },
        strict,
      ),
    },
    strict,
  );
}

async function typeboxChecks(): Promise<Checks> {
  if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", isDateTime);
  const save = TypeCompiler.Compile(typeboxSchema());
  const title = TypeCompiler.Compile(
    Type.Object(
      {
        title: Type.String({ minLength: C.title.minLength, maxLength: C.title.maxLength, pattern: C.title.pattern }),
        baseRevision: Type.Optional(Type.Integer({ minimum: 0, maximum: C.maxRevision })),
      },
      { additionalProperties: false },
    ),
  );
  const identifier = typeboxIdentifier();
  const grant = TypeCompiler.Compile(
    Type.Object(
      {
        sessionId: identifier,
        workspaceId: identifier,
        documentId: identifier,
        actorId: identifier,
        capabilityScope: typeboxScopes(),
        traceId: Type.Optional(identifier),
        locale: Type.Optional(literalUnion(C.locales)),
        expiresAt: Type.String({ format: "date-time", maxLength: C.expiresAt.maxLength, pattern: C.expiresAt.pattern }),
      },
      { additionalProperties: false },
    ),
  );
  return {
    PageSaveRequest: (v) => save.Check(v),
    PageUpdateTitleArgs: (v) => title.Check(v),
    SessionGrant: (v) => grant.Check(v),
  };
}

// ---- hand-written ----

// JSON Schema patterns are ECMA-262 regular expressions with the u flag (as ajv compiles them)
const idRe = new RegExp(C.identifier.pattern, "u");
const keyRe = new RegExp(C.idempotencyKey.pattern, "u");
const blockIdRe = new RegExp(C.blockId.pattern, "u");
const titleRe = new RegExp(C.title.pattern, "u");
const expiresRe = new RegExp(C.expiresAt.pattern, "u");
const blockTypes = new Set<string>(C.blockTypes);
const scopes = new Set<string>(C.scopes);

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

/** minLength in code points; a string has at least half as many code points as UTF-16 units. */
function atLeast(s: string, min: number): boolean {
  return s.length >= 2 * min || codePoints(s) >= min;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): boolean {
  return (
    typeof v === "string" && atLeast(v, C.identifier.minLength) && within(v, C.identifier.maxLength) && idRe.test(v)
  );
}

function isInt(v: unknown, min: number, max: number): boolean {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
}

function isBlock(b: unknown): boolean {
  if (!isObject(b)) return false;
  const type = b.type;
  if (typeof type !== "string" || !blockTypes.has(type) || b.text === undefined) return false;
  const allowed = FIELD_OF[type];
  for (const k in b) {
    const v = b[k];
    switch (k) {
      case "id":
        if (!(
          typeof v === "string" &&
          atLeast(v, C.blockId.minLength) &&
          within(v, C.blockId.maxLength) &&
          blockIdRe.test(v)
        ))
          return false;
        break;
      case "type":
        break;
      case "text":
        if (typeof v !== "string" || !within(v, type === DIVIDER ? 0 : C.blockText)) return false;
        break;
      case "level":
        if (allowed !== "level" || !isInt(v, C.level.minimum, C.level.maximum)) return false;
        break;
      case "checked":
        if (allowed !== "checked" || typeof v !== "boolean") return false;
        break;
      case "language":
        if (allowed !== "language" || typeof v !== "string" || !within(v, C.language)) return false;
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
        if (!Array.isArray(v) || v.length > C.maxBlocks) return false;
        for (let i = 0; i < v.length; i++) if (!isBlock(v[i])) return false;
        break;
      }
      case "mode":
        if (typeof v !== "string" || !C.modes.includes(v)) return false;
        break;
      case "baseRevision":
        if (!isInt(v, 0, C.maxRevision)) return false;
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
    if (typeof s !== "string" || !scopes.has(s)) return false;
    for (let j = 0; j < i; j++) if (v[j] === s) return false;
  }
  return true;
}

const isLocale = (v: unknown) => typeof v === "string" && C.locales.includes(v);

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

function handSave(r: unknown): boolean {
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
        if (!(
          typeof v === "string" &&
          atLeast(v, C.idempotencyKey.minLength) &&
          within(v, C.idempotencyKey.maxLength) &&
          keyRe.test(v)
        ))
          return false;
        break;
      case "dryRun":
        if (typeof v !== "boolean") return false;
        break;
      case "capabilityScope":
        if (!isScopes(v)) return false;
        break;
      case "locale":
        if (!isLocale(v)) return false;
        break;
      case "args":
        if (!isArgs(v)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function handTitle(a: unknown): boolean {
  if (!isObject(a) || a.title === undefined) return false;
  for (const k in a) {
    const v = a[k];
    if (k === "title") {
      if (typeof v !== "string" || !atLeast(v, C.title.minLength) || !within(v, C.title.maxLength) || !titleRe.test(v))
        return false;
    } else if (k === "baseRevision") {
      if (!isInt(v, 0, C.maxRevision)) return false;
    } else return false;
  }
  return true;
}

const GRANT_REQUIRED = ["sessionId", "workspaceId", "documentId", "actorId", "capabilityScope", "expiresAt"];

function handGrant(g: unknown): boolean {
  if (!isObject(g)) return false;
  for (const k of GRANT_REQUIRED) if (g[k] === undefined) return false;
  for (const k in g) {
    const v = g[k];
    switch (k) {
      case "sessionId":
      case "workspaceId":
      case "documentId":
      case "actorId":
      case "traceId":
        if (!isId(v)) return false;
        break;
      case "capabilityScope":
        if (!isScopes(v)) return false;
        break;
      case "locale":
        if (!isLocale(v)) return false;
        break;
      case "expiresAt":
        if (typeof v !== "string" || !within(v, C.expiresAt.maxLength) || !expiresRe.test(v) || !isDateTime(v))
          return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

async function handChecks(): Promise<Checks> {
  return { PageSaveRequest: handSave, PageUpdateTitleArgs: handTitle, SessionGrant: handGrant };
}

/** Every schema's check of one contender. */
export function contenderChecks(name: Contender): Promise<Checks> {
  switch (name) {
    case "generated":
      return generatedChecks();
    case "ajv":
      return ajvChecks();
    case "zod":
      return zodChecks();
    case "typebox":
      return typeboxChecks();
    case "hand":
      return handChecks();
  }
}

/** The timed check of one contender (PageSaveRequest). */
export async function contenderCheck(name: Contender): Promise<Check> {
  return (await contenderChecks(name)).PageSaveRequest;
}
