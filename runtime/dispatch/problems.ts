/**
 * invalid_input that says what to fix: the first problem a validator found becomes the failed rule
 * as data (keyword, limit, pointer) and a message in the caller's language from the catalog's
 * per-keyword templates, never the validator's own English text.
 */
import type { ValidationIssue } from "../../generated/validators/runtime/validator";
import type * as T from "../../generated/types";
import { ERR, errorCatalog, type MessageLocale } from "../../generated/registry";
import { validateFailedRule } from "../../generated/validators";
import { failedRule, fitPointer, problemPointer } from "../../common/validation-problem";
import { splitPointer } from "../../common/json-pointer";
import { ToolFailure } from "./tool-failure";

/** The JSON pointer of a validator's first problem; for a missing or unexpected property, that property's place. */
export function firstProblemPointer(issues: ValidationIssue[] | null | undefined): string {
  const issue = issues?.[0];
  return issue ? problemPointer(issue) : "";
}

/**
 * The invalid_input failure for a validator's first problem. The response schema bounds the
 * pointer and the limit: a pointer too long for it (a 600-character property name) is cut back to
 * the nearest enclosing place that fits, and a limit too large to repeat is left out, so bad input
 * always answers invalid_input and never a response that breaks the contract.
 */
export function invalidInput(issues: ValidationIssue[] | null | undefined): ToolFailure {
  const issue = issues?.[0];
  if (!issue) return new ToolFailure(ERR.invalidInput, { pointer: "" });
  const rule: T.FailedRule = failedRule(issue);
  const fits = (candidate: unknown): boolean => validateFailedRule(candidate);
  rule.pointer = fitPointer(rule.pointer, (pointer) => fits({ keyword: rule.keyword, pointer }));
  if (!fits(rule)) delete rule.limit;
  if (!fits(rule)) return new ToolFailure(ERR.invalidInput, { pointer: rule.pointer });
  return new ToolFailure(ERR.invalidInput, { pointer: rule.pointer, rule });
}

/** Longest rendering of a limit inside a message; the data keeps it whole. */
const MAX_LIMIT_TEXT = 200;

/** The catalog's sentence for a failed rule, in the caller's language ("title: at most 500 characters"). */
export function ruleMessage(rule: T.FailedRule, locale: MessageLocale): string {
  const rules = errorCatalog[ERR.invalidInput].rules as Record<string, { "zh-CN": string; en: string } | undefined>;
  const template =
    (Object.prototype.hasOwnProperty.call(rules, rule.keyword) ? rules[rule.keyword] : undefined) ?? rules.default!;
  return template[locale]
    .replace(/\{field\}/g, () => fieldName(rule.pointer))
    .replace(/\{limit\}/g, () => limitText(rule));
}

/** A place as a model reads it: under /args the argument's path (content[0].text), else the envelope field. */
export function fieldName(pointer: string): string {
  const tokens = splitPointer(pointer);
  if (tokens[0] === "args" && tokens.length > 1) tokens.shift();
  if (tokens.length === 0) return "/";
  return tokens.map((t, i) => (/^(0|[1-9][0-9]*)$/.test(t) ? `[${t}]` : i === 0 ? t : `.${t}`)).join("");
}

function limitText(rule: T.FailedRule): string {
  const { limit } = rule;
  let text: string;
  if (limit === undefined) text = "?";
  else if (Array.isArray(limit)) text = limit.map((v) => JSON.stringify(v)).join(", ");
  else if (rule.keyword === "const") text = JSON.stringify(limit);
  else text = String(limit);
  return [...text].length > MAX_LIMIT_TEXT ? [...text].slice(0, MAX_LIMIT_TEXT - 1).join("") + "…" : text;
}
