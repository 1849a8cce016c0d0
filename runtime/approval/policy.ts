/**
 * The host's approval policy file (contract/envelope/approval-policy.schema.json): validated by
 * the generated validator before anything reads it, then checked against the contract (every tool
 * it names exists, every condition names a field of that tool's args with a value that field can
 * hold (runtime/approval/condition-values.ts), ask only for tools with a dry run), then indexed in
 * Maps, so no tool or session name can reach an object's prototype.
 */
import type * as T from "../../generated/types";
import { toolByName as generatedToolByName, toolList, type ToolDescriptor } from "../../generated/registry";
import { validateApprovalPolicy } from "../../generated/validators";
import { conditionValueProblem } from "./condition-values";
import { budgetPolicyFrom, type BudgetCounts } from "./budget-policy";

export interface ApprovalPolicyIndex {
  /** Workspace rules by tool name. */
  readonly tools: ReadonlyMap<string, T.ApprovalRule>;
  /** Per session: rules by tool name. */
  readonly sessions: ReadonlyMap<string, ReadonlyMap<string, T.ApprovalRule>>;
  /** Budgets the host lowered, by tool name (budget-policy.ts); a tool not here keeps the contract's. */
  readonly budgets?: ReadonlyMap<string, BudgetCounts>;
}

/** No policy: the contract's levels as they are. */
export const EMPTY_POLICY: ApprovalPolicyIndex = { tools: new Map(), sessions: new Map() };

/**
 * The policy file of a host that asks nobody, said explicitly: every tool of the contract allowed.
 * The bench (its peers ask nobody) and the test suites about other rules run under it; the
 * contract's own levels stay the default everywhere else.
 */
export function allowEveryTool(): { tools: Record<string, "allow"> } {
  return { tools: Object.fromEntries(toolList.map((t) => [t.name, "allow" as const])) };
}

/** A policy that cannot be used, with the place and what is wrong. */
export class ApprovalPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApprovalPolicyError";
  }
}

/**
 * A parsed policy file, checked and indexed. Throws ApprovalPolicyError naming the first problem
 * (its JSON pointer in the file).
 */
export function approvalPolicyFrom(
  value: unknown,
  toolByName: (name: string) => ToolDescriptor | undefined = generatedToolByName,
): ApprovalPolicyIndex {
  if (!validateApprovalPolicy(value)) {
    const issue = validateApprovalPolicy.errors?.[0];
    throw new ApprovalPolicyError(`at ${issue?.instancePath || "/"}: ${issue?.message ?? "invalid"}`);
  }
  const rules = (tools: T.ApprovalToolRules | undefined, at: string) => {
    const out = new Map<string, T.ApprovalRule>();
    for (const name of Object.keys(tools ?? {})) {
      const rule = tools![name]!;
      const tool = toolByName(name);
      if (!tool) throw new ApprovalPolicyError(`at ${at}/${name}: the contract has no tool ${name}`);
      checkRule(tool, rule, `${at}/${name}`);
      out.set(name, rule);
    }
    return out;
  };
  const sessions = new Map<string, ReadonlyMap<string, T.ApprovalRule>>();
  for (const sessionId of Object.keys(value.sessions ?? {}))
    sessions.set(sessionId, rules(value.sessions![sessionId]!.tools, `/sessions/${sessionId}/tools`));
  const budgets = budgetPolicyFrom(value.budgets, toolByName, (m) => new ApprovalPolicyError(m));
  return { tools: rules(value.tools, "/tools"), sessions, budgets };
}

/** A rule fits its tool: conditions name its top-level args fields, with values they can hold; ask needs the tool's dry run. */
function checkRule(tool: ToolDescriptor, rule: T.ApprovalRule, at: string): void {
  const fields = Object.keys((tool.parameters.properties as Record<string, unknown> | undefined) ?? {});
  const levels: T.ApprovalLevel[] = typeof rule === "string" ? [rule] : [rule.default];
  if (typeof rule !== "string") {
    (rule.when ?? []).forEach((condition, i) => {
      levels.push(condition.approval);
      for (const field of Object.keys(condition.args)) {
        if (!fields.includes(field) || field === "dryRun")
          throw new ApprovalPolicyError(`at ${at}/when/${i}/args/${field}: ${tool.name} has no args field ${field}`);
        const problem = conditionValueProblem(tool, field, condition.args[field]);
        if (problem) throw new ApprovalPolicyError(`at ${at}/when/${i}/args/${field}: ${problem}`);
      }
    });
  }
  if (levels.includes("ask") && tool.dryRun !== "required")
    throw new ApprovalPolicyError(
      `at ${at}: ${tool.name} has no dry run to preview, so it cannot be "ask" (allow or deny)`,
    );
}
