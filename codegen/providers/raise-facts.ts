/**
 * The facts the raise step needs, derived from the contract once and emitted as data that the
 * TypeScript raise (generated/raise.ts) and the Python raise (the Hermes plugin's raise_args.py)
 * both read. Per tool, a shape tree over its model-facing parameters:
 *   optional   properties the model may leave out: null there means "absent";
 *   properties the shapes of properties holding objects or arrays, to raise inside them;
 *   items      the shape of an array's items;
 *   unchanged  properties whose runtimeSupport is not wired, with the value that means "leave it
 *              as it is" (x-mnote-initialValue: what page.get reports for a field the kernel does not
 *              store): that value is dropped, any other is kept and refused as unsupported.
 *   declared   the names among PROTOTYPE_NAMES the contract declares at this place (none today):
 *              every other member by one of those names is refused, at any depth.
 *   envelope   (the root only) the envelope fields the model writes for this tool besides its args
 *              (dryRun), with the JSON type the envelope gives each: any other non-null value is
 *              refused, never coerced.
 */
import { isPlainObject } from "../../common/values";
import type { JsonSchema, ToolModel } from "../model";

export interface RaiseShape {
  optional?: string[];
  properties?: Record<string, RaiseShape>;
  items?: RaiseShape;
  unchanged?: Record<string, unknown>;
  declared?: string[];
  envelope?: Record<string, string>;
}

/**
 * Member names that reach an object's prototype machinery in JavaScript (`out[name] = v` with
 * `__proto__` sets the prototype; `constructor` and `prototype` shadow what code reads on objects):
 * the raise step refuses them wherever the contract does not declare them.
 */
export const PROTOTYPE_NAMES = ["__proto__", "constructor", "prototype"] as const;

/** A JSON Schema node (an object): the shared isPlainObject, typed for schemas. */
const isObject = (v: unknown): v is JsonSchema => isPlainObject(v);

function shapeOf(schema: JsonSchema, pointer: string, unwired: ReadonlyMap<string, unknown>): RaiseShape | undefined {
  if (isObject(schema.items)) {
    const items = shapeOf(schema.items, pointer + "/-", unwired);
    return items ? { items } : undefined;
  }
  if (!isObject(schema.properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const shape: RaiseShape = {};
  const optional = Object.keys(schema.properties).filter((k) => !required.has(k));
  if (optional.length) shape.optional = optional;
  const declared = Object.keys(schema.properties).filter((k) => (PROTOTYPE_NAMES as readonly string[]).includes(k));
  if (declared.length) shape.declared = declared;
  for (const [name, sub] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
    const inner = shapeOf(sub, `${pointer}/${name}`, unwired);
    if (inner) (shape.properties ??= {})[name] = inner;
    if (unwired.has(`${pointer}/${name}`)) (shape.unchanged ??= {})[name] = unwired.get(`${pointer}/${name}`);
  }
  return shape;
}

/**
 * The raise facts of every tool, by canonical name. Only unwired fields with an x-mnote-initialValue
 * get an "unchanged" value. modelEnvelopeFields: the request fields the model writes besides args.
 */
export function raiseFacts(
  tools: readonly ToolModel[],
  modelEnvelopeFields: readonly string[],
): Record<string, RaiseShape> {
  return Object.fromEntries(
    tools.map((t) => {
      const shape =
        shapeOf(
          t.parameters,
          "",
          new Map(t.unwiredFields.filter((f) => "unsetValue" in f).map((f) => [f.pointer, f.unsetValue])),
        ) ?? {};
      const properties = (isObject(t.parameters.properties) ? t.parameters.properties : {}) as Record<
        string,
        JsonSchema
      >;
      const envelope = Object.fromEntries(
        modelEnvelopeFields
          .filter((name) => isObject(properties[name]) && typeof properties[name].type === "string")
          .map((name) => [name, properties[name]!.type as string]),
      );
      if (Object.keys(envelope).length) shape.envelope = envelope;
      return [t.name, shape];
    }),
  );
}
