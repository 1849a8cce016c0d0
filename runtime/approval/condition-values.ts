/**
 * Whether a policy condition's value can ever match a call (issue 28 item 2): a condition that
 * cannot is a configuration error, never a rule that silently never applies (a typo "Replace", a
 * string "0" for an integer, would otherwise let a workspace allow stand in for the contract's ask).
 *
 * What a condition value means (docs/APPROVAL.md, and runtime/approval/level.ts matches it so):
 * - a value: the call's value of that field (or the field's schema default when the call leaves it
 *   out) equals it. It must be a value the tool's own argument schema accepts for that field.
 * - null: the call carries no value for the field (left out, or null, which the contract reads as
 *   absent). Only a field that can be absent qualifies: not required, and without a schema
 *   default (a defaulted field always has a value).
 *
 * The tool's parameters are self-contained JSON Schema (the generated registry); each field's schema
 * is compiled once, at policy load, by one Ajv (draft 2020-12, formats on, like the generator).
 */
import type Ajv2020 from "ajv/dist/2020";
import type { ValidateFunction } from "ajv/dist/2020";
import type AddFormats from "ajv-formats";
import type { ToolDescriptor } from "../../generated/registry";
import { loadPeer } from "../../common/optional-peer";

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * Ajv is loaded on the first condition value checked, not when the policy module is: every
 * `mnote-tools call` loads the policy module, most policies have no conditions, and loading Ajv
 * (about 80 files) was a fifth of a one-call process's CPU (bench/, coldStart). ajv and ajv-formats
 * are optional peers of `@mnote/runtime` (1.3 MB a runtime without conditions never loads;
 * docs/PACKAGES.md): a policy with conditions on an install without them is a MissingPeerError.
 */
function loadAjv(): Ajv2020 {
  const peers = ["ajv", "ajv-formats"];
  const why = "an approval policy with conditions (when/args)";
  /* eslint-disable @typescript-eslint/no-require-imports -- deferred on purpose (see above) */
  const Ajv = loadPeer("ajv/dist/2020", peers, why, () => require("ajv/dist/2020") as { default: typeof Ajv2020 });
  const addFormats = loadPeer(
    "ajv-formats",
    peers,
    why,
    () => require("ajv-formats") as { default: typeof AddFormats },
  );
  /* eslint-enable @typescript-eslint/no-require-imports */
  return addFormats.default(new Ajv.default({ strict: false, allErrors: false, validateSchema: false }));
}

function fieldValidator(tool: ToolDescriptor, field: string, schema: object): ValidateFunction {
  const key = `${tool.name}\u0000${field}`;
  let validate = compiled.get(key);
  if (!validate) {
    ajv ??= loadAjv();
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** Why this condition value can never match a call of the tool, or undefined when it can. */
export function conditionValueProblem(tool: ToolDescriptor, field: string, value: unknown): string | undefined {
  const properties = (tool.parameters.properties ?? {}) as Record<string, object>;
  const required = (tool.parameters.required ?? []) as readonly string[];
  if (value === null) {
    if (required.includes(field)) return `${field} is required, so a call always has a value and null never matches`;
    if (Object.prototype.hasOwnProperty.call(tool.argDefaults, field))
      return `${field} defaults to ${JSON.stringify(tool.argDefaults[field])} when left out, so null never matches (name that value)`;
    return undefined;
  }
  const validate = fieldValidator(tool, field, properties[field]!);
  if (validate(value)) return undefined;
  const issue = validate.errors?.[0];
  const why =
    issue?.keyword === "enum"
      ? `not one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`
      : (issue?.message ?? "does not match its schema");
  return `${JSON.stringify(value)} is never a valid ${field} (${why}), so the condition never matches`;
}
