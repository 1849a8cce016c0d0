/**
 * generated/frameworks/decision.ts, section by section: the one approval decision the runtime
 * (runtime/approval/level.ts) and every framework target (approvalFor) make. The file is the same
 * for every contract; each function below is one part of it, as text, in the file's order.
 */

/** The file: the banner, then its parts (a blank line between them). */
export function decisionFile(banner: string): string {
  return [banner, decisionShapes(), conditionSection(), decideSection()].join("\n");
}

/** What the decision reads: a rule of either source, the tool's fact and defaults, the policy's layers. */
function decisionShapes(): string {
  return `import type { ApprovalLevel, ApprovalRule } from "../types";
import type { ApprovalFact } from "../registry";

/** A rule, as the contract writes it (the registry's fact) or as a host policy does. */
export type AnyApprovalRule = ApprovalRule | ApprovalFact;

/** What the decision reads of a tool: the contract's fact and its arguments' schema defaults. */
export interface ApprovalSubject {
  readonly approval: AnyApprovalRule;
  readonly argDefaults: { readonly [field: string]: unknown };
}

/** The host policy's rules for one call: the workspace's, then the session's (either may be absent). */
export interface ApprovalLayers {
  readonly workspace?: AnyApprovalRule;
  readonly session?: AnyApprovalRule;
}
`;
}

/**
 * How one rule gives a level: a condition holds when every field it names has the call's value
 * (null: not given; otherwise the schema default stands in for a field left out).
 */
function conditionSection(): string {
  return `const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * The value a call gives a top-level field. Absent, undefined and null are "not given" (a strict
 * model sends null for a field it leaves out; the runtime's raise step drops it), so the schema
 * default stands in, or undefined when there is none.
 */
function givenValue(args: Readonly<Record<string, unknown>>, defaults: ApprovalSubject["argDefaults"], field: string): unknown {
  const value = own(args, field) ? args[field] : undefined;
  if (value !== undefined && value !== null) return value;
  return own(defaults, field) ? defaults[field] : undefined;
}

/**
 * Whether one condition holds: every field it names equals the call's value. A condition value of
 * null means "the call did not give this field" (absent or null), whatever the schema default.
 */
export function conditionHolds(
  condition: { readonly [field: string]: unknown },
  args: Readonly<Record<string, unknown>>,
  defaults: ApprovalSubject["argDefaults"],
): boolean {
  return Object.keys(condition).every((field) => {
    const expected = condition[field];
    if (expected === null) return !own(args, field) || args[field] === null || args[field] === undefined;
    return givenValue(args, defaults, field) === expected;
  });
}

/** The level one rule gives: the first condition that holds, else the rule's default. */
export function ruleLevel(rule: AnyApprovalRule, args: unknown, defaults: ApprovalSubject["argDefaults"]): ApprovalLevel {
  if (typeof rule === "string") return rule;
  // the model's arguments may be unchecked here: only own members are read, and a non-object
  // (which the runtime refuses as invalid_input) gives every field as not given
  const given = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  for (const condition of rule.when ?? []) {
    if (conditionHolds(condition.args, given, defaults)) return condition.approval;
  }
  return rule.default;
}
`;
}

/** The decision itself: the contract's fact, then the workspace rule, then the session rule; deny wins. */
function decideSection(): string {
  return `/**
 * The approval level of one call (docs/APPROVAL.md): the contract's fact, overridden by the
 * policy's workspace rule, then by its session rule; deny from any of them wins. The one decision
 * the runtime (runtime/approval/level.ts) and every framework target (approvalFor) make.
 */
export function decideApproval(subject: ApprovalSubject, layers: ApprovalLayers, args: unknown): ApprovalLevel {
  const levels: ApprovalLevel[] = [ruleLevel(subject.approval, args, subject.argDefaults)];
  if (layers.workspace !== undefined) levels.push(ruleLevel(layers.workspace, args, subject.argDefaults));
  if (layers.session !== undefined) levels.push(ruleLevel(layers.session, args, subject.argDefaults));
  return levels.includes("deny") ? "deny" : levels[levels.length - 1]!;
}
`;
}
