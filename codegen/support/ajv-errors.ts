import type { ErrorObject } from "ajv";
import { problemPointer } from "../../common/validation-problem";

/** One line for an ajv error, naming the offending property or value where ajv knows it. */
export function describeAjvError(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === "additionalProperties") return `unexpected property "${String(params.additionalProperty)}"`;
  if (e.keyword === "required") return `missing required property "${String(params.missingProperty)}"`;
  if (e.keyword === "enum") return `${e.message}: ${JSON.stringify(params.allowedValues)}`;
  if (e.keyword === "const") return `must be ${JSON.stringify(params.allowedValue)}`;
  if (e.keyword === "propertyNames") return `invalid property name "${String(params.propertyName)}"`;
  return e.message ?? e.keyword;
}

/** Where an ajv error points: for a missing, unexpected or misnamed property, that property's own place. */
export function ajvErrorPointer(e: ErrorObject): string {
  return problemPointer(e as ErrorObject & { params: Record<string, unknown> });
}
