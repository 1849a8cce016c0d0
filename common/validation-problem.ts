/**
 * One reading of a validator's problem (an ajv ErrorObject, or the generated validators' copy of
 * it), shared by the generator's contract errors and the runtime's invalid_input: where the
 * problem is, and which rule failed with which limit.
 */
import { joinPointer, splitPointer } from "./json-pointer";

/** The part of an ajv error both sides read. */
export interface ValidationProblem {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** The rule that failed, as data: the keyword, its limit where it has one, and the place. */
export interface FailedRule {
  keyword: string;
  limit?: number | boolean | null | string | Array<string | number | boolean | null>;
  pointer: string;
}

/**
 * Where a problem is. For a missing, unexpected or misnamed property, that property's own place
 * (ajv points at the object holding it).
 */
export function problemPointer(problem: ValidationProblem): string {
  const p = problem.params;
  const name =
    problem.keyword === "required"
      ? p.missingProperty
      : problem.keyword === "additionalProperties"
        ? p.additionalProperty
        : problem.keyword === "propertyNames"
          ? p.propertyName
          : undefined;
  return typeof name === "string" ? joinPointer(problem.instancePath, name) : problem.instancePath;
}

const NUMERIC_LIMIT: Record<string, string> = {
  maxLength: "limit",
  minLength: "limit",
  maxItems: "limit",
  minItems: "limit",
  maxProperties: "limit",
  minProperties: "limit",
  maxContains: "limit",
  minContains: "limit",
  maximum: "limit",
  minimum: "limit",
  exclusiveMaximum: "limit",
  exclusiveMinimum: "limit",
  multipleOf: "multipleOf",
};

/** Largest string and list a limit may carry (the response schema's FailedRule bounds). */
const MAX_LIMIT_STRING = 512;
const MAX_LIMIT_ITEMS = 64;
const MAX_ITEM_STRING = 128;

/**
 * The failed rule of a problem. The limit is left out where the keyword has none, or where it is
 * too large or not a scalar list (an enum of objects) to repeat in a response.
 */
export function failedRule(problem: ValidationProblem): FailedRule {
  const p = problem.params;
  const rule: FailedRule = { keyword: problem.keyword, pointer: problemPointer(problem) };
  let limit: unknown;
  if (problem.keyword in NUMERIC_LIMIT) limit = p[NUMERIC_LIMIT[problem.keyword]!];
  else if (problem.keyword === "type") limit = p.type;
  else if (problem.keyword === "pattern") limit = p.pattern;
  else if (problem.keyword === "format") limit = p.format;
  else if (problem.keyword === "enum") limit = p.allowedValues;
  else if (problem.keyword === "const") limit = p.allowedValue;
  else if (problem.keyword === "dependentRequired") limit = p.missingProperty;
  if (isScalar(limit) && (typeof limit !== "string" || limit.length <= MAX_LIMIT_STRING)) rule.limit = limit;
  else if (
    Array.isArray(limit) &&
    limit.length <= MAX_LIMIT_ITEMS &&
    limit.every((v) => isScalar(v) && (typeof v !== "string" || v.length <= MAX_ITEM_STRING))
  ) {
    rule.limit = limit as FailedRule["limit"];
  }
  return rule;
}

function isScalar(v: unknown): v is number | boolean | null | string {
  return v === null || typeof v === "number" || typeof v === "boolean" || typeof v === "string";
}

/**
 * The pointer itself if it fits, else the nearest enclosing place that fits: cut back whole
 * segments at a time, so a cut pointer still names a real place (the object or array holding the
 * problem), where cutting inside a segment would name a place that does not exist.
 */
export function fitPointer(pointer: string, fits: (pointer: string) => boolean): string {
  if (fits(pointer)) return pointer;
  const tokens = splitPointer(pointer);
  while (tokens.length > 0) {
    tokens.pop();
    const shorter = joinPointer("", ...tokens);
    if (fits(shorter)) return shorter;
  }
  return "";
}
