/**
 * What a tools/call over MCP answers (mcp-server.ts): the model's view of the response envelope,
 * as structured content (it validates against the tool's outputSchema) and as the same JSON in
 * text; and the session's grant the call acts under.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ERR, modelView, type ToolDescriptor } from "../../generated/registry";
import type { SessionGrant, ToolRequest, ToolResponse } from "../../generated/types";
import type { RaiseRefusal } from "../../generated/raise";
import { failureResponse, refusalResponse } from "../dispatch/dispatcher";
import { grantBelongsTo, type GrantStore, type Principal } from "../state/grants";
import { isGrantLive } from "../../common/grant-liveness";
import type { ToolFailure } from "../dispatch/tool-failure";
import { raiseRefusalFailure } from "./request-builder";

/** The model's view of the envelope, as structured content and as text. */
export function asResult(response: ToolResponse): CallToolResult {
  const view = modelView(response);
  return {
    content: [{ type: "text", text: JSON.stringify(view) }],
    structuredContent: view,
    isError: !response.ok,
  };
}

/** A refusal of this call, in the session's locale. */
export const fail = (failure: ToolFailure, grant: SessionGrant, tool: ToolDescriptor, echo: ToolRequest) =>
  asResult(failureResponse(failure, echo, tool, grant.locale ?? "zh-CN"));

/** A raw call the raise step refuses (mcp-guard.ts): the invalid_input the handler would answer. */
export function refuseRawCall(tool: ToolDescriptor, grant: SessionGrant, refusal: RaiseRefusal): CallToolResult {
  const echo = { toolName: tool.name, workspaceId: grant.workspaceId, documentId: grant.documentId };
  return asResult(failureResponse(raiseRefusalFailure(tool.name, refusal), echo, tool, grant.locale ?? "zh-CN"));
}

/** The session's live grant, or the refusal to answer instead. */
export async function liveGrant(
  grants: GrantStore,
  caller: { sessionId: string; principal?: Principal },
  now: number,
  tool: ToolDescriptor,
): Promise<SessionGrant | ToolResponse> {
  const found = await grants.get(caller.sessionId).catch(() => undefined);
  // another principal's grant is answered exactly as an unknown session (no existence oracle)
  const grant = found && (!caller.principal || grantBelongsTo(found, caller.principal)) ? found : undefined;
  if (grant && isGrantLive(grant, now)) return grant;
  return {
    ...refusalResponse(ERR.notAuthenticated, grant?.locale, grant ? "session_expired" : "session_unknown"),
    toolName: tool.name,
  };
}
