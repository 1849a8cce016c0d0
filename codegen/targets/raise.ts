/**
 * The raise step: a model's call (a tool's arguments as the model sends them) turned into the
 * contract's canonical args before validation. Models send null for optional fields they do not
 * mean to set, and fill every field of an object they are shown (OpenAI strict mode makes them);
 * the raise step reads null as "absent", and an unwired option sent with the value that means
 * "as it is" as "leave it". It never invents or coerces a value: whatever else is wrong is left for
 * the validators to report. The facts come from codegen/providers/raise-facts.ts and are emitted
 * once as data, read by the TypeScript raise (MCP server) and the Python raise (Hermes plugin).
 * The envelope API (`call`, POST /v1/tools/call) does not raise: its callers are programs.
 *
 * Validate, then raise: an agent surface checks the model's raw arguments (the tool's
 * validateModelArguments) before raising, and the raise step itself refuses what it cannot raise
 * safely whoever calls it (raiseRefusal: non-object arguments, an undeclared __proto__ /
 * constructor / prototype member at any depth, a non-boolean dryRun), the one check the Python
 * plugin, which cannot run ajv, makes before sending. The raised objects are built with
 * defineProperty, so no member name can set their prototype.
 */
import type { Target } from "./target";
import { banner, bannerText } from "../support/banner";
import { tsLiteral } from "../support/ts-literal";
import { template } from "../support/templates";
import { PROTOTYPE_NAMES, raiseFacts, type RaiseShape } from "../providers/raise-facts";
import { HERMES_PLUGIN_DIR, HERMES_TEMPLATES } from "./hermes-plugin";
import { envelopeNames } from "./hermes-names";

export const raiseTarget: Target = {
  name: "raise",
  emit(model) {
    const modelEnvelopeFields = model.requestFields
      .filter((f) => f.filledBy === "model" && f.name !== "args")
      .map((f) => f.name);
    const facts = raiseFacts(model.tools, modelEnvelopeFields);
    const python = template(
      HERMES_TEMPLATES,
      "raise_args.py.hbs",
    )({
      banner: banner(model, "py").trimEnd(),
      // the failed rule's field names, through the field helper (./hermes-names)
      envelope: envelopeNames(model),
    });
    return [
      { path: "raise.ts", content: raiseTs(banner(model, "ts"), facts) },
      { path: `${HERMES_PLUGIN_DIR}/raise_args.py`, content: python },
      {
        path: `${HERMES_PLUGIN_DIR}/raise.json`,
        content:
          JSON.stringify(
            { generated: bannerText(model), prototypeNames: [...PROTOTYPE_NAMES], tools: facts },
            null,
            2,
          ) + "\n",
      },
    ];
  },
};

/**
 * generated/raise.ts: the banner, then its parts (a blank line between them). Only the data part
 * depends on the contract; the functions that read it are the same for every contract.
 */
function raiseTs(head: string, facts: Readonly<Record<string, RaiseShape>>): string {
  return [head, raiseDataSection(facts), jsonChecksSection(), refusalSection(), raiseValueSection()].join("\n");
}

/**
 * The facts as data: the shape type, every tool's shape (the same data as the Hermes plugin's
 * raise.json), the prototype names, and the refusal type.
 */
function raiseDataSection(facts: Readonly<Record<string, RaiseShape>>): string {
  return `import type { RegisteredToolName } from "./registry";

/** Where null means absent, what to raise inside, which unwired values mean "leave it as it is", and what is refused. */
export interface RaiseShape {
  readonly optional?: readonly string[];
  readonly properties?: { readonly [name: string]: RaiseShape };
  readonly items?: RaiseShape;
  readonly unchanged?: { readonly [name: string]: unknown };
  /** The names among PROTOTYPE_NAMES the contract declares here: only these may appear. */
  readonly declared?: readonly string[];
  /** At the root: the envelope fields the model writes (dryRun), with the JSON type each must have when not null. */
  readonly envelope?: { readonly [name: string]: string };
}

/** Per tool, the shape of its model-facing parameters (args and dryRun). The Hermes plugin's raise.json holds the same data. */
export const raiseFacts: Readonly<Record<RegisteredToolName, RaiseShape>> = ${tsLiteral(facts)};

/** Member names that reach an object's prototype in JavaScript: refused wherever the contract does not declare them. */
export const PROTOTYPE_NAMES: readonly string[] = ${tsLiteral([...PROTOTYPE_NAMES])};

/** Why a model's call cannot be raised: where (a JSON pointer into the model's arguments) and the JSON Schema rule it breaks. */
export interface RaiseRefusal {
  readonly pointer: string;
  readonly keyword: "type" | "additionalProperties";
  /** For type: the type the place takes. */
  readonly limit?: string;
}
`;
}

/** The small checks the refusal reads: a plain object, an own member, a pointer token, a JSON Schema type. */
function jsonChecksSection(): string {
  return `const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const hasOwn = (o: object, name: string): boolean => Object.prototype.hasOwnProperty.call(o, name);
const pointerToken = (name: string): string => name.replace(/~/g, "~0").replace(/\\//g, "~1");

/** Whether a JSON value has a JSON Schema type (integer: a number with no fraction). */
function hasJsonType(value: unknown, type: string): boolean {
  if (type === "integer") return Number.isInteger(value);
  if (type === "object") return isPlainObject(value);
  if (type === "array") return Array.isArray(value);
  if (type === "null") return value === null;
  return typeof value === type;
}
`;
}

/**
 * What the raise step refuses before it reads a call (non-object arguments, an undeclared
 * prototype member at any depth, a mistyped envelope field), and the envelope's pointer of a place.
 */
function refusalSection(): string {
  return `/**
 * The first member named __proto__, constructor or prototype that the contract does not declare at
 * its place, at any depth (also inside values the contract does not describe), or undefined.
 * Iterative: a model's arguments have not passed the runtime's depth limit yet.
 */
function prototypeMember(root: unknown, rootShape: RaiseShape | undefined): RaiseRefusal | undefined {
  const stack: Array<{ value: unknown; shape: RaiseShape | undefined; pointer: string }> = [
    { value: root, shape: rootShape, pointer: "" },
  ];
  while (stack.length > 0) {
    const { value, shape, pointer } = stack.pop()!;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], shape: shape?.items, pointer: \`\${pointer}/\${i}\` });
      continue;
    }
    if (!isPlainObject(value)) continue;
    const names = Object.keys(value);
    for (const name of names) {
      if (PROTOTYPE_NAMES.includes(name) && !shape?.declared?.includes(name))
        return { pointer: \`\${pointer}/\${pointerToken(name)}\`, keyword: "additionalProperties" };
    }
    for (let i = names.length - 1; i >= 0; i--) {
      const name = names[i]!;
      const inner = shape?.properties && hasOwn(shape.properties, name) ? shape.properties[name] : undefined;
      stack.push({ value: value[name], shape: inner, pointer: \`\${pointer}/\${pointerToken(name)}\` });
    }
  }
  return undefined;
}

/**
 * What the raise step refuses before it reads a model's call, whoever validated it before: arguments
 * that are not an object; a member named __proto__, constructor or prototype that the contract does
 * not declare there, at any depth; an envelope field the model writes (dryRun) holding a value of
 * another type than the envelope's, unless null (never coerced: "true" or 1 is not true).
 */
export function raiseRefusal(toolName: string, modelArguments: unknown): RaiseRefusal | undefined {
  if (!isPlainObject(modelArguments)) return { pointer: "", keyword: "type", limit: "object" };
  const shape = (raiseFacts as Record<string, RaiseShape | undefined>)[toolName];
  for (const [name, type] of Object.entries(shape?.envelope ?? {})) {
    // absent, undefined (not JSON: an in-process caller's "absent") and null are "not set"
    const value = hasOwn(modelArguments, name) ? modelArguments[name] : undefined;
    if (value !== undefined && value !== null && !hasJsonType(value, type)) return { pointer: "/" + pointerToken(name), keyword: "type", limit: type };
  }
  return prototypeMember(modelArguments, shape);
}

/** A pointer into a model's arguments as the request envelope names the place: an envelope field (/dryRun) as it is, the rest under /args. */
export function envelopePointer(toolName: string, pointer: string): string {
  const shape = (raiseFacts as Record<string, RaiseShape | undefined>)[toolName];
  const first = pointer.split("/")[1]?.replace(/~1/g, "/").replace(/~0/g, "~");
  return first !== undefined && shape?.envelope && hasOwn(shape.envelope, first) ? pointer : "/args" + pointer;
}
`;
}

/** The raise itself: null read as absent, an unchanged unwired value dropped, members defined (never assigned). */
function raiseValueSection(): string {
  return `/**
 * One value raised along its shape: a new value, the input is not changed. Members are defined, not
 * assigned, so a member named __proto__ stays a member (the validators refuse it) and can never
 * become the new object's prototype.
 */
export function raiseValue(value: unknown, shape: RaiseShape): unknown {
  if (Array.isArray(value)) return shape.items ? value.map((v) => raiseValue(v, shape.items!)) : value;
  if (!isPlainObject(value) || (!shape.optional && !shape.properties && !shape.unchanged)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === null && shape.optional?.includes(name)) continue;
    if (shape.unchanged && hasOwn(shape.unchanged, name) && JSON.stringify(v) === JSON.stringify(shape.unchanged[name])) continue;
    const inner = shape.properties && hasOwn(shape.properties, name) ? shape.properties[name] : undefined;
    Object.defineProperty(out, name, { value: inner ? raiseValue(v, inner) : v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A model's arguments for a tool (by canonical name) as canonical arguments; unknown tools and
 * non-objects pass unchanged. Check raiseRefusal (and the tool's validateModelArguments) first.
 */
export function raiseCall(toolName: string, modelArguments: unknown): unknown {
  const shape = (raiseFacts as Record<string, RaiseShape | undefined>)[toolName];
  return shape ? raiseValue(modelArguments, shape) : modelArguments;
}
`;
}
