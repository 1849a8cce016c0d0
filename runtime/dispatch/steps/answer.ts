/**
 * The last step, record/answer: an outcome or an error becomes a response envelope (every error a
 * catalog code, unknown ones internal), the response is checked against the contract, and the
 * call becomes one CallRecord for the log. Only fields valid as what they claim to be are echoed.
 */
import type * as T from "../../../generated/types";
import { KernelMisconfigured, KernelRefusal, KernelTransportError } from "../../../generated/kernel/transport";
import type { KernelMisconfigurationKind } from "../../../generated/kernel/transport";
import {
  ERR,
  errorCatalog,
  type ErrorReason,
  type MessageLocale,
  type ToolDescriptor,
} from "../../../generated/registry";
import { validateIdentifier, validateToolName, validateToolResponse } from "../../../generated/validators";
import { isStoreUnavailable } from "../../../common/sqlite";
import { isPlainObject } from "../../../common/values";
import { isErrorCode, messageFor, ToolFailure } from "../tool-failure";
import { ruleMessage } from "../problems";
import type { CallRecord } from "../api";
import type { Outcome } from "./context";

/** The request's fields a response echoes. */
export interface Echo {
  toolName: string | null;
  toolCallId: string | null;
  traceId: string | null;
  workspaceId: string | null;
  documentId: string | null;
  sessionId: string | null;
}

/** The echo of a request nothing is known of yet. */
export function emptyEcho(): Echo {
  return { toolName: null, toolCallId: null, traceId: null, workspaceId: null, documentId: null, sessionId: null };
}

/** Fields echoed back: only values that are valid as what they claim to be, never arbitrary input. */
export function echoOf(request: unknown): Echo {
  const r = isPlainObject(request) ? request : {};
  const id = (v: unknown) => (validateIdentifier(v) ? v : null);
  return {
    toolName: validateToolName(r.toolName) ? r.toolName : null,
    toolCallId: id(r.toolCallId),
    traceId: id(r.traceId),
    workspaceId: id(r.workspaceId),
    documentId: id(r.documentId),
    sessionId: id(r.sessionId),
  };
}

/** The echo of a request its tool's validator accepted: every field is already what it claims to be. */
export function validatedEcho(request: T.ToolRequest): Echo {
  return {
    toolName: request.toolName,
    toolCallId: request.toolCallId,
    traceId: request.traceId,
    workspaceId: request.workspaceId,
    documentId: request.documentId,
    sessionId: request.sessionId,
  };
}

export function success(echo: Echo, outcome: Outcome): T.ToolResponse {
  const audit: T.Audit = {
    effect: outcome.effect,
    commandId: outcome.commandId,
    workspaceId: echo.workspaceId,
    documentId: echo.documentId,
  };
  if (outcome.effect === "write") audit.replayed = outcome.replayed;
  if (outcome.approval) audit.approval = outcome.approval;
  return {
    ok: true,
    toolName: echo.toolName!,
    toolCallId: echo.toolCallId!,
    traceId: echo.traceId!,
    result: outcome.result,
    audit,
    error: null,
  };
}

export function failure(
  echo: Echo,
  e: unknown,
  tool: ToolDescriptor | undefined,
  locale: MessageLocale,
): T.ToolFailure {
  const { code, reason, pointer, field, rule, approval, decision, retryAfterSeconds } = toFailure(e);
  // A failed rule says what to fix in the caller's language; a reason or a tool's own wording wins.
  const byRule = rule !== undefined && reason === undefined && !tool?.messages[code];
  const message = byRule ? ruleMessage(rule, locale) : messageFor(code, reason, tool, locale);
  const error: T.ToolError = { code, message, retryable: errorCatalog[code].retryable };
  if (retryAfterSeconds !== undefined) error.retryAfterSeconds = retryAfterSeconds;
  if (reason !== undefined) error.reason = reason;
  if (pointer !== undefined) error.pointer = pointer;
  if (rule !== undefined) error.rule = rule;
  if (field !== undefined) error.field = field;
  if (approval !== undefined) error.approval = approval;
  // a rule's message is filled already (its {field} and {limit})
  if (!byRule) error.message = withFields(message, error);
  const audit: T.Audit = {
    effect: "none",
    commandId: null,
    workspaceId: echo.workspaceId,
    documentId: echo.documentId,
  };
  if (decision !== undefined) audit.approval = decision;
  return {
    ok: false,
    toolName: echo.toolName,
    toolCallId: echo.toolCallId,
    traceId: echo.traceId,
    result: null,
    audit,
    error,
  };
}

/**
 * A catalog message with the error's own fields in place of their names in braces
 * ({retryAfterSeconds}: contract/README.md, "Facts code reads from the contract"; generation refuses
 * a placeholder that names no field). A field the error does not carry leaves its placeholder.
 */
function withFields(message: string, error: T.ToolError): string {
  const fields = error as unknown as Record<string, unknown>;
  return message.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (whole, name: string) => {
    const value = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
    return typeof value === "string" || typeof value === "number" ? String(value) : whole;
  });
}

/** Every error becomes a catalog code; unknown ones are internal, never passed through. */
export function toFailure(e: unknown): {
  code: T.ErrorCode;
  reason?: string;
  pointer?: string;
  field?: string;
  rule?: T.FailedRule;
  approval?: T.ApprovalChallenge;
  decision?: T.ApprovalAudit;
  retryAfterSeconds?: number;
} {
  if (e instanceof ToolFailure) return { code: e.code, ...e.detail };
  if (e instanceof KernelRefusal && isErrorCode(e.code)) return { code: e.code, reason: e.reason, field: e.field };
  if (e instanceof KernelMisconfigured)
    return { code: ERR.kernelMisconfigured, reason: MISCONFIGURATION_REASON[e.kind] };
  if (e instanceof KernelTransportError) return { code: ERR.kernelUnavailable, reason: undefined };
  // a full or read-only disk, an I/O error, a store busy past its timeout: retry later, nothing written
  if (isStoreUnavailable(e)) return { code: ERR.storeUnavailable };
  return { code: ERR.internal };
}

/** The response as the contract says it must be; if not (a bug), an internal error that is. */
export function checked(
  response: T.ToolResponse,
  tool: ToolDescriptor | undefined,
  echo: Echo,
  locale: MessageLocale,
): T.ToolResponse {
  const validate = tool && response.toolName === tool.name ? tool.validateResponse : validateToolResponse;
  if (validate(response)) return response;
  const issue = validate.errors?.[0];
  process.stderr.write(
    `mnote-tools: bug: a response did not match the contract at ${issue?.instancePath || "/"}: ${issue?.message ?? "?"}\n`,
  );
  return failure(echo, new ToolFailure(ERR.internal, { reason: undefined }), tool, locale);
}

/** The catalog reason of each way the kernel client finds the kernel misconfigured (checked against the catalog). */
const MISCONFIGURATION_REASON = {
  token_refused: "token_refused",
  adapter_not_found: "adapter_not_found",
  adapter_not_executable: "adapter_not_executable",
  adapter_failed: "adapter_failed",
} as const satisfies Record<KernelMisconfigurationKind, ErrorReason<typeof ERR.kernelMisconfigured>>;

export function record(echo: Echo, response: T.ToolResponse, ms: number, cause?: string): CallRecord {
  return {
    toolName: echo.toolName,
    toolCallId: echo.toolCallId,
    traceId: echo.traceId,
    sessionId: echo.sessionId,
    ok: response.ok,
    code: response.ok ? null : response.error.code,
    effect: response.audit.effect,
    commandId: response.audit.commandId,
    replayed: response.audit.replayed ?? false,
    ms,
    ...(cause !== undefined ? { cause } : {}),
    ...(response.audit.approval ? { approval: response.audit.approval } : {}),
    ...(!response.ok && response.audit.approval && response.error.reason ? { reason: response.error.reason } : {}),
    // a refused budget: the log line names it (the tool and reason session, actor or page), never the content
    ...(!response.ok && response.error.code === ERR.rateLimited ? { reason: response.error.reason } : {}),
  };
}
