import type { ValidationIssue } from "../../generated/validators/runtime/validator";

/** The JSON pointer of a validator's first problem; for a missing or unexpected property, that property's place. */
export function firstProblemPointer(issues: ValidationIssue[] | null | undefined): string {
  const issue = issues?.[0];
  if (!issue) return "";
  const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
  const params = issue.params;
  if (issue.keyword === "required" && typeof params.missingProperty === "string") return `${issue.instancePath}/${esc(params.missingProperty)}`;
  if (issue.keyword === "additionalProperties" && typeof params.additionalProperty === "string") return `${issue.instancePath}/${esc(params.additionalProperty)}`;
  return issue.instancePath;
}
