import type { ErrorObject } from "ajv";

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

/** Where an ajv error points: for a missing or unexpected property, that property's own place. */
export function ajvErrorPointer(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
  if (e.keyword === "additionalProperties") return `${e.instancePath}/${esc(String(params.additionalProperty))}`;
  if (e.keyword === "required") return `${e.instancePath}/${esc(String(params.missingProperty))}`;
  if (e.keyword === "propertyNames" && params.propertyName !== undefined) return `${e.instancePath}/${esc(String(params.propertyName))}`;
  return e.instancePath;
}
