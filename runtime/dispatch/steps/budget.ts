/**
 * The budget step (docs/RELIABILITY.md, "Budgets"): a tool's calls are counted per window, per
 * session, per principal (actor in a workspace) and per page, against the contract's budget
 * (x-mnote-tool budget) as the host's policy lowered it. It runs where the promises are kept:
 *
 * - a write counts when it is about to be applied: after its claim (steps/claim.ts), so a replay
 *   of the same key (the answer the model lost) never counts and is never refused, a dry run never
 *   reaches it, and an approved write counts once (its preview was a dry run);
 * - a read counts every call (steps/perform.ts), against the read tool's own, larger budget.
 *
 * Over any of the three: mnote_tool_rate_limited (retryable), reason session/actor/page, with the
 * seconds until that window ends; nothing is counted or written. The refusal is one span event
 * naming the budget (the call's log line names it too: tool and reason), never the content. The
 * counters live in the state store (runtime/state/budget-*.ts), so instances sharing a store share
 * every budget. A store that cannot be reached is reported, and the call is judged by this
 * process's own counters instead (runtime/state/budget-memory.ts, which notes every call the store
 * let through): the limit still holds, per process, while the store is down, and the tools stay
 * up as writes do (the idempotency store is a fast path too; the kernel guards never-twice).
 */
import { ERR, limits } from "../../../generated/registry";
import { sha256Hex } from "../../../common/hash";
import { activeOtel } from "../../../common/telemetry/otel";
import { ToolFailure } from "../tool-failure";
import type { BudgetCounter, BudgetStore } from "../../state/budget-store";
import { MemoryBudgetStore } from "../../state/budget-memory";
import { storeError, type DispatchDeps, type ToolCall } from "./context";

/** The three budgets of a call, in the order they are judged: the reason each gives. */
const SCOPES = ["session", "actor", "page"] as const;

/** The name a refused budget goes by in span events and logs: the tool and the scope, never an id. */
export function budgetName(toolName: string, scope: (typeof SCOPES)[number]): string {
  return `${toolName}/${scope}`;
}

/** The call's counters: one per scope, keyed by a hash of the tool and the ids (bounded, no raw ids in the store). */
export function countersOf(deps: DispatchDeps, call: ToolCall): BudgetCounter[] | undefined {
  const { tool, request } = call;
  const ceiling = tool.budget;
  if (!ceiling) return undefined;
  const counts = deps.approval.policy.budgets?.get(tool.name) ?? ceiling;
  const key = (...parts: string[]) => sha256Hex(JSON.stringify([tool.name, ...parts]));
  return [
    { key: key("session", request.sessionId), limit: counts.perSession },
    { key: key("actor", request.workspaceId, request.actorId), limit: counts.perActor },
    { key: key("page", request.workspaceId, request.documentId), limit: counts.perPage },
  ];
}

/** Counts this call against its budgets, or refuses it (rate_limited) when one is used up. */
export async function chargeBudget(deps: DispatchDeps, call: ToolCall): Promise<void> {
  const store = deps.budgets;
  const counters = store ? countersOf(deps, call) : undefined;
  if (!store || !counters) return;
  const windowMs = call.tool.budget!.windowSeconds * 1000;
  const own = ownCounters(store, deps.now);
  const take = await store.take(counters, windowMs).then(
    (shared) => {
      if (shared.ok) own.note(counters, windowMs);
      return shared;
    },
    (e: unknown) => {
      storeError(deps, unbudgeted(e));
      return own.take(counters, windowMs);
    },
  );
  if (take.ok) return;
  const reason = SCOPES[take.over]!;
  // whole seconds, at least one, at most the contract's longest stated wait (limits.retryAfterSeconds)
  const retryAfterSeconds = Math.min(limits.retryAfterSeconds, Math.max(1, Math.ceil(take.retryAfterMs / 1000)));
  activeOtel()
    ?.trace.getActiveSpan()
    ?.addEvent("mnote.budget.refused", {
      "mnote.budget": budgetName(call.tool.name, reason),
      "mnote.budget.retry_after_s": retryAfterSeconds,
    });
  throw new ToolFailure(ERR.rateLimited, { reason, retryAfterSeconds });
}

/** Each shared store's fallback: this process's counters, kept beside it for as long as it lives. */
const fallbacks = new WeakMap<BudgetStore, MemoryBudgetStore>();

function ownCounters(store: BudgetStore, now: () => number): MemoryBudgetStore {
  let own = fallbacks.get(store);
  if (!own) fallbacks.set(store, (own = new MemoryBudgetStore(now)));
  return own;
}

/** A budget store's failure as the log says it: which store failed, and what judged the call instead. */
function unbudgeted(e: unknown): Error {
  const cause = e instanceof Error ? e.message : String(e);
  return new Error(`the budget counters cannot be used (${cause}): the call is judged by this process's own counters`, {
    cause: e,
  });
}
