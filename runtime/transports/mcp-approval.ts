/**
 * Approval over MCP (docs/APPROVAL.md, docs/MCP.md) as the 2026-07-28 revision asks for input: a
 * call whose answer is approval_required is answered `input_required`, holding one form for the
 * person: the message is the person-readable preview (the challenge's summary), the schema a single yes/no.
 * The requestState (mcp-request-state.ts) binds principal, tool, argument fingerprint, previewed
 * revision and expiry, and carries the approval token sealed. The client retries with the answer:
 * an explicit yes sends the call to the dispatcher with the token (its nonce is used up there, so
 * a replayed requestState writes nothing); a retry with no answer at all is asked again (the same
 * form, nothing used up: SEP-2322); decline or cancel sends it with the token and answer "declined", so the decision reaches the runtime's audit and log, the token is used up and
 * the answer is approval_denied (declined): nothing is written.
 *
 * A client that declared only URL-mode elicitation is asked in a URL round instead: the same
 * requestState, one `elicitation/create` in URL mode naming the approval page of the call's record,
 * where the person answers (mcp-approval-page.ts). The same handler serves 2025-11-25 clients
 * through the SDK's legacy shim (a real elicitation/create request on stdio). A client that cannot
 * be asked at all (no elicitation capability, or only URL mode where no page is served) is refused
 * by the SDK's capability gate (-32021, or an isError tool result naming the capability) and
 * nothing is written. The token itself never reaches a client or a model on any transport.
 */
import {
  inputRequired,
  inputResponse,
  type InputRequiredResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { ERR, type ErrorReason, type ToolDescriptor } from "../../generated/registry";
import type { ApprovalChallenge, ToolResponse } from "../../generated/types";
import { failure, ToolFailure } from "../dispatch/tool-failure";
import { argumentsFingerprint, type ApprovalState, type McpRequestStates } from "./mcp-request-state";

/** The key of the one input request of an approval round. */
export const APPROVAL_INPUT = "approve";

const YES_NO = {
  type: "object" as const,
  properties: { approve: { type: "boolean" as const, title: "Approve", description: "Yes: make this change." } },
  required: [APPROVAL_INPUT],
};

/** The challenge of an approval_required answer, if it is one. */
export function challengeOf(response: ToolResponse): ApprovalChallenge | undefined {
  return !response.ok && response.error.code === ERR.approvalRequired ? response.error.approval : undefined;
}

/**
 * The input_required result that puts the preview to the person (the token sealed in the state):
 * a form, or with `page` a URL round naming the approval page of the challenge's record.
 */
export async function askApproval(
  states: McpRequestStates,
  tool: ToolDescriptor,
  challenge: ApprovalChallenge,
  call: { principal: string; args: unknown },
  page?: { id: string; url: string },
): Promise<InputRequiredResult> {
  const state: ApprovalState = {
    v: 1,
    p: call.principal,
    t: tool.providerName,
    f: argumentsFingerprint(call.args),
    r: challenge.preview.revision ?? null,
    e: Date.parse(challenge.expiresAt),
    k: states.seal(challenge.token),
    m: challenge.summary,
    ...(page ? { u: page.id } : {}),
  };
  return roundFor(states, state, page?.url);
}

/**
 * The round for one approval state: the preview written for a person, in the session's locale
 * (runtime/approval/preview-text.ts), as a yes/no form, or with `url` as a URL-mode elicitation.
 */
async function roundFor(states: McpRequestStates, state: ApprovalState, url?: string): Promise<InputRequiredResult> {
  const message = state.m ?? "";
  return inputRequired({
    inputRequests: {
      [APPROVAL_INPUT]:
        url === undefined
          ? inputRequired.elicit({ message, requestedSchema: YES_NO })
          : inputRequired.elicitUrl({ message, url }),
    },
    requestState: await states.codec.mint(state),
  });
}

/**
 * A retry that carries the requestState but no answer at all (SEP-2322: ask again), or, in a URL
 * round, one whose record still waits: the same question again, the same token sealed in it;
 * nothing reaches the runtime, so the approval is not used up.
 */
export function askAgain(states: McpRequestStates, state: ApprovalState, url?: string): Promise<InputRequiredResult> {
  return roundFor(states, state, url);
}

/** Why a round's state does not fit this call (principal, tool, arguments, expiry), if it does not. */
export function stateProblem(
  state: ApprovalState,
  tool: ToolDescriptor,
  call: { principal: string; args: unknown; now: number },
): ToolFailure | undefined {
  const invalid = (reason: ErrorReason<typeof ERR.approvalInvalid>) =>
    failure(ERR.approvalInvalid, reason, { decision: { decision: "invalid", level: "ask" } });
  if (state.p !== call.principal) return invalid("other_session");
  if (state.t !== tool.providerName) return invalid("other_tool");
  if (state.f !== argumentsFingerprint(call.args)) return invalid("other_args");
  if (call.now >= state.e)
    return new ToolFailure(ERR.approvalExpired, { decision: { decision: "invalid", level: "ask" } });
  return undefined;
}

/**
 * What the retry of an approval round carries: the token to write with (an explicit yes, for this
 * principal, tool and arguments, not expired), or the failure to answer instead.
 */
export function approvalAnswer(
  states: McpRequestStates,
  tool: ToolDescriptor,
  state: ApprovalState,
  ctx: ServerContext,
  call: { principal: string; args: unknown; now: number },
): { token: string; answer?: "declined" } | { again: true } | ToolFailure {
  const problem = stateProblem(state, tool, call);
  if (problem) return problem;
  const answer = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT);
  // no answer at all is not a no: the person is asked again, and the approval is not used up
  if (answer.kind === "missing" && typeof state.m === "string") return { again: true };
  const yes = answer.kind === "elicit" && answer.action === "accept" && answer.content?.[APPROVAL_INPUT] === true;
  const token = states.unseal(state.k);
  if (token === undefined)
    return failure(ERR.approvalInvalid, "altered", { decision: { decision: "invalid", level: "ask" } });
  return yes ? { token } : { token, answer: "declined" };
}
