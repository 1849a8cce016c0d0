/**
 * Approval over MCP (docs/APPROVAL.md). A call whose answer is approval_required is put to the
 * person through the client's elicitation when the client declared it in form mode: the preview's
 * text for a person (the challenge's summary, in the session's locale) and one yes/no field. Yes resends the same request with the token (the
 * write then goes through the dispatcher's checks like any approved call); no, cancel, or an
 * elicitation that fails answers approval_denied (declined), and nothing is written. A client
 * without elicitation gets the approval_required result itself (isError, structured: the preview
 * and the token), and sends the call again with the token in _meta["mnote/approval"]: the token
 * travels beside the model's arguments, never in them, so a model cannot approve its own write.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ERR, type ToolDescriptor } from "../../generated/registry";
import type { ApprovalChallenge, ToolResponse } from "../../generated/types";

/** Where an MCP client puts an approval it obtained itself ({token, approvedBy?}), and its pointer within params. */
export const APPROVAL_META_KEY = "mnote/approval";
export const APPROVAL_META_POINTER = "/_meta/mnote~1approval";

/** The challenge of an approval_required answer, if it is one. */
export function challengeOf(response: ToolResponse): ApprovalChallenge | undefined {
  return !response.ok && response.error.code === ERR.approvalRequired ? response.error.approval : undefined;
}

/**
 * Whether the client can show a form: it declared elicitation with form mode, or declared it with no
 * mode at all (what form meant before URL mode existed). A client that declared only URL mode
 * cannot show the yes/no: nobody can be asked there, which is not a "no" (the client gets the
 * challenge itself instead, like a client without elicitation).
 */
function canAskInForm(elicitation: unknown): boolean {
  if (typeof elicitation !== "object" || elicitation === null) return false;
  const modes = elicitation as { form?: unknown; url?: unknown };
  return modes.form !== undefined || modes.url === undefined;
}

/**
 * Asks the person through the client's elicitation: "accept" only on an explicit yes;
 * "unsupported" when the client cannot show a form (the caller then returns the challenge as it is).
 */
export async function elicitApproval(
  server: Server,
  _tool: ToolDescriptor,
  challenge: ApprovalChallenge,
): Promise<"accept" | "decline" | "unsupported"> {
  if (!canAskInForm(server.getClientCapabilities()?.elicitation)) return "unsupported";
  try {
    const answer = await server.elicitInput({
      message: challenge.summary,
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Approve", description: "Yes: make this change." } },
        required: ["approve"],
      },
    });
    return answer.action === "accept" && answer.content?.approve === true ? "accept" : "decline";
  } catch {
    // a client that cannot show it, or that failed to: nobody said yes
    return "decline";
  }
}
