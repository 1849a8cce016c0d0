/**
 * The diff's two configuration files, the ignore file and the severity file, read and validated
 * against their JSON Schemas (codegen/diff-ignore.schema.json, codegen/diff-rules.schema.json)
 * before anything uses them: validate, then act. A file that does not validate is one
 * DiffConfigError whose message is one line naming the file, the entry and the problem.
 */
import { existsSync, readFileSync } from "node:fs";
import type { ErrorObject, ValidateFunction } from "ajv";
import { precompiled } from "../../codegen/support/precompiled";

/** A configuration file of the diff is unusable (the CLI exits 3: configuration). */
export class DiffConfigError extends Error {
  override readonly name = "DiffConfigError";
}

type Kind = "ignore" | "rules" | "baseline";

/** Compiled ahead of time from the schemas (codegen/support/precompiled.ts): nothing is compiled per run. */
function validatorOf(kind: Kind): ValidateFunction {
  return precompiled(kind === "ignore" ? "diffIgnore" : kind === "rules" ? "diffRules" : "diffBaseline");
}

/**
 * Reads a JSON file and validates it against the schema of its kind; a missing file is
 * `undefined` (the caller's default), unless it is required.
 */
export function readConfigFile(path: string, kind: Kind, required = false): unknown {
  if (!existsSync(path)) {
    if (required) throw new DiffConfigError(`${path}: not found`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new DiffConfigError(`${path}: not JSON: ${(e as Error).message}`);
  }
  const validate = validatorOf(kind);
  if (!validate(json)) throw new DiffConfigError(`${path}: ${describe(validate.errors?.[0], json)}`);
  return json;
}

/** "ignore[0].expires: "2099-02-30" is not a calendar date (YYYY-MM-DD)". */
function describe(error: ErrorObject | undefined, root: unknown): string {
  if (!error) return "does not match its schema";
  const tokens = error.instancePath === "" ? [] : error.instancePath.slice(1).split("/").map(unescape);
  const value = tokens.reduce<unknown>((v, t) => (v as Record<string, unknown> | undefined)?.[t], root);
  const params = error.params as Record<string, unknown>;
  let place = "";
  for (const t of tokens) place += /^\d+$/.test(t) ? `[${t}]` : place === "" ? t : `.${t}`;
  const at = place === "" ? "" : `${place}: `;
  // A key refused by propertyNames: ajv reports the key's own error with the key beside it.
  const key = (error as ErrorObject & { propertyName?: string }).propertyName;
  if (key !== undefined) return `${at}no rule "${key}" (the rules are listed in docs/CONTRACT-DIFF.md)`;
  // use/except items are a category or a rule: ajv names only the first alternative's failure.
  if (/^(use|except)\[\d+\]$/.test(place) && (error.keyword === "enum" || error.keyword === "anyOf"))
    return `${at}${show(value)} is neither a category (wire, source, model, kernel) nor a rule`;
  switch (error.keyword) {
    case "type":
      return `${at}must be ${article(String(params.type))}, not ${show(value)}`;
    case "required":
      return `${at}"${String(params.missingProperty)}" is missing`;
    case "additionalProperties":
      return `${at}unknown key "${String(params.additionalProperty)}"`;
    case "propertyNames":
      return `${at}no rule "${String(params.propertyName)}" (the rules are listed in docs/CONTRACT-DIFF.md)`;
    case "format":
      return `${at}${show(value)} is not a calendar date (YYYY-MM-DD)`;
    case "enum":
      return place.endsWith("rule")
        ? `${at}no rule ${show(value)} (the rules are listed in docs/CONTRACT-DIFF.md)`
        : `${at}${show(value)} must be one of ${(params.allowedValues as unknown[]).map((v) => show(v)).join(", ")}`;
    case "anyOf":
      return `${at}${show(value)} is neither a category (wire, source, model, kernel) nor a rule`;
    case "pattern":
      if (place.endsWith("reason")) return `${at}a reason is required`;
      if (place.endsWith("fingerprint")) return `${at}${show(value)} is not a fingerprint of this diff`;
      return `${at}${show(value)} is not a JSON pointer`;
    case "uniqueItems":
      return `${at}lists a value twice`;
    default:
      return `${at}${error.message ?? error.keyword}`;
  }
}

function unescape(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? "nothing" : text.length > 60 ? text.slice(0, 59) + "…" : text;
}
