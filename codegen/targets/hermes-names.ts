/**
 * The contract names the Hermes templates write: error codes and reasons (from the catalog) and the
 * envelope's field names and enum values (from the envelope schemas in contract/envelope/). A
 * template never spells one out; it asks a handlebars helper, which stops the generator on a name
 * the contract lacks:
 *
 * - {{errorCode "unavailable"}}, {{errorReason "not_authenticated" "token_rejected"}}
 * - {{field "request" "toolCallId"}}: a field of one of the ENVELOPE_PLACES below
 * - {{enumValue "request" "keyOrigin" "tool_call"}}: one of the values the contract allows that field
 */
import type { HelperOptions } from "handlebars";
import type { ContractModel, JsonSchema } from "../model";
import { RefIndex } from "../support/refs";
import { isPlainObject } from "../support/schema-walk";

/** The envelope objects the plugin reads or writes, by the name a template gives them. */
export const ENVELOPE_PLACES = {
  request: "envelope/request.schema.json#/$defs/ToolRequest",
  response: "envelope/response.schema.json#/$defs/ToolFailure",
  audit: "envelope/response.schema.json#/$defs/Audit",
  error: "envelope/response.schema.json#/$defs/ToolError",
  rule: "envelope/response.schema.json#/$defs/FailedRule",
  grant: "envelope/session-grant.schema.json#/$defs/SessionGrant",
  approval: "envelope/approval.schema.json#/$defs/ApprovalGrant",
  challenge: "envelope/approval.schema.json#/$defs/ApprovalChallenge",
  approvalAudit: "envelope/approval.schema.json#/$defs/ApprovalAudit",
} as const;

export type ErrorNames = Record<string, { code: string; reasons: Record<string, string> }>;
/** place -> field -> the values the contract allows it (enum or const; [] when it names none). */
export type EnvelopeNames = Record<string, Record<string, unknown[]>>;

interface NameData {
  err: ErrorNames;
  envelope: EnvelopeNames;
}
const namesOf = (options: HelperOptions) => (options.data as { root: NameData }).root;
const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** Every catalog code by its name without mnote_tool_ (as the registry's ERR), with its reasons. */
export function errorNames(model: ContractModel): ErrorNames {
  return Object.fromEntries(
    model.errors.map((e) => [
      e.code.replace(/^mnote_tool_/, ""),
      { code: e.code, reasons: Object.fromEntries(Object.keys(e.reasons).map((r) => [r, r])) },
    ]),
  );
}

/** The values a schema allows, where it lists them (enum, const, through anyOf / oneOf / allOf). */
function listedValues(schema: JsonSchema): unknown[] {
  const own = [...(Array.isArray(schema.enum) ? schema.enum : []), ...(has(schema, "const") ? [schema.const] : [])];
  const nested = (["anyOf", "oneOf", "allOf"] as const).flatMap((k) =>
    Array.isArray(schema[k])
      ? (schema[k] as unknown[]).filter(isPlainObject).flatMap((s) => listedValues(s as JsonSchema))
      : [],
  );
  return [...own, ...nested];
}

/** The fields of every ENVELOPE_PLACES object and the values each allows, read from the contract. */
export function envelopeNames(model: ContractModel): EnvelopeNames {
  const index = new RefIndex(model.schemaFiles);
  return Object.fromEntries(
    Object.entries(ENVELOPE_PLACES).map(([place, ref]) => {
      const schema = index.inline(index.resolve(ref, model.baseUri).schema, model.baseUri + ref.split("#")[0]);
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return [place, Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, listedValues(s)]))];
    }),
  );
}

function fieldsOf(options: HelperOptions, place: string, field: string): unknown[] {
  const envelope = namesOf(options).envelope;
  if (!has(envelope, place))
    throw new Error(`the Hermes template names the envelope object ${place}, which the generator does not know`);
  if (!has(envelope[place]!, field))
    throw new Error(
      `the Hermes template names the field ${field} of ${place} (${ENVELOPE_PLACES[place as keyof typeof ENVELOPE_PLACES]}), which the contract lacks`,
    );
  return envelope[place]![field]!;
}

export const NAME_HELPERS = {
  errorCode(name: string, options: HelperOptions) {
    const entry = namesOf(options).err[name];
    if (!entry) throw new Error(`the Hermes template names mnote_tool_${name}, which the error catalog lacks`);
    return entry.code;
  },
  errorReason(name: string, reason: string, options: HelperOptions) {
    const entry = namesOf(options).err[name];
    if (!entry || !has(entry.reasons, reason))
      throw new Error(
        `the Hermes template names reason ${reason} of mnote_tool_${name}, which the error catalog lacks`,
      );
    return reason;
  },
  field(place: string, field: string, options: HelperOptions) {
    fieldsOf(options, place, field);
    return field;
  },
  enumValue(place: string, field: string, value: string, options: HelperOptions) {
    if (!fieldsOf(options, place, field).includes(value))
      throw new Error(
        `the Hermes template names the value ${value} of ${place}.${field}, which the contract does not allow`,
      );
    return value;
  },
};
