/**
 * dispatch(request) -> response: the design note's rules, generic over the generated registry, as
 * a pipeline of named steps (steps/, one file each, each over the dispatcher's DispatchDeps and
 * the call's ToolCall):
 *
 *   admit (parse with limits, find the tool, validate) -> grant (a live session grant that agrees)
 *   -> authorize (scope, then the kernel's check points) -> approval level (deny refuses here)
 *   -> perform: dry run | read | write, where a write goes approval (ask) -> uncertain (the
 *      delivery rule) -> claim (idempotency) -> kernel (with reconcile of a lost answer)
 *   -> answer (every error a catalog code, the response checked) and record (one CallRecord).
 *
 * Nothing here names a tool: a tool added to the contract is served as it is. The approval rules
 * live in steps/approval.ts, the idempotency rule in steps/claim.ts, the uncertain-write (delivery)
 * rule in steps/uncertain.ts.
 */
import type * as T from "../../generated/types";
import { KernelMisconfigured } from "../../generated/kernel/transport";
import type { MessageLocale, ToolDescriptor } from "../../generated/registry";
import { withToolSpan, type ToolSpan } from "../telemetry/tool-span";
import { ToolFailure } from "./tool-failure";
import type { Dispatched, Dispatcher, DispatcherOptions } from "./api";
import { admit, type Trace } from "./steps/admit";
import { checked, echoOf, emptyEcho, failure, record, success } from "./steps/answer";
import { approvalLevel } from "./steps/approval";
import { authorize, scopedCall } from "./steps/authorize";
import { releaseClaims } from "./steps/claim";
import { dispatchDeps, type DispatchDeps, type UncertainSlot } from "./steps/context";
import { resolveGrant } from "./steps/grant";
import { perform } from "./steps/perform";
import { deliveryOf, NOTHING_TO_DELIVER } from "./steps/uncertain";

export * from "./api";
export { vouchGrant } from "./steps/grant";

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const deps = dispatchDeps(options);

  /** Every call is one `execute_tool` span (runtime/telemetry); a no-op when tracing is off. */
  async function dispatchTracked(input: unknown): Promise<Dispatched> {
    let delivery = NOTHING_TO_DELIVER;
    const response = await withToolSpan(async (span) => {
      const dispatched = await dispatchCall(deps, input, span);
      delivery = dispatched.delivery;
      return dispatched.response;
    });
    return { response, delivery };
  }

  async function dispatch(input: unknown): Promise<T.ToolResponse> {
    const { response, delivery } = await dispatchTracked(input);
    // a read or a failure has nothing to deliver: no turn of the event loop spent awaiting nothing
    if (delivery !== NOTHING_TO_DELIVER) await delivery.delivered();
    return response;
  }

  return { dispatch, dispatchTracked, releaseClaims: () => releaseClaims(deps) };
}

/** The echo of a request nothing is known of yet, shared: an echo is replaced, never changed. */
const NO_ECHO = Object.freeze(emptyEcho());

/** One call through the steps; every error becomes a failure envelope, so this never throws. */
async function dispatchCall(deps: DispatchDeps, input: unknown, span: ToolSpan): Promise<Dispatched> {
  const started = deps.now();
  const trace: Trace = { echo: NO_ECHO, tool: undefined, locale: deps.defaultLocale };
  let response: T.ToolResponse;
  let cause: string | undefined;
  let undelivered: UncertainSlot | undefined;
  try {
    const { tool, request } = admit(deps, input, span, trace);
    const grant = await resolveGrant(deps, request);
    trace.locale = request.locale ?? grant.locale ?? trace.locale;
    const call = scopedCall(tool, request, trace.locale);
    await authorize(deps, call);
    const outcome = await perform(deps, call, approvalLevel(deps, call));
    undelivered = outcome.undelivered;
    response = success(trace.echo, outcome);
  } catch (e) {
    response = failure(trace.echo, e, trace.tool, trace.locale);
    if (e instanceof KernelMisconfigured) cause = e.message;
  }
  response = checked(response, trace.tool, trace.echo, trace.locale);
  deps.onCall?.(record(trace.echo, response, deps.now() - started, cause));
  return { response, delivery: deliveryOf(deps, response, undelivered) };
}

/**
 * A failure envelope for a refusal an agent surface makes before dispatch (model-call.ts), echoing
 * the fields of `request` that are valid as what they claim to be.
 */
export function failureResponse(
  e: unknown,
  request: unknown,
  tool: ToolDescriptor | undefined,
  locale: MessageLocale,
): T.ToolFailure {
  return failure(echoOf(request), e, tool, locale);
}

/** A failure envelope for a refusal made before a request reached dispatch (a transport's own checks). */
export function refusalResponse(code: T.ErrorCode, locale: MessageLocale = "zh-CN", reason?: string): T.ToolFailure {
  return failure(emptyEcho(), new ToolFailure(code, { reason }), undefined, locale);
}
