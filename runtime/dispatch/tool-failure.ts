/**
 * A refusal on its way to becoming a failure envelope: an error code from the catalog, optionally a
 * reason (which picks the message), the JSON pointer of bad input, or the option at fault.
 */
import { errorCatalog, type ErrorReason, type MessageLocale, type ToolDescriptor } from "../../generated/registry";
import type { ApprovalAudit, ApprovalChallenge, ErrorCode, FailedRule } from "../../generated/types";

export class ToolFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    /** reason: a catalog reason of code; written by hand, go through failure() or refuse() (checked by the compiler). */
    readonly detail: {
      reason?: string;
      pointer?: string;
      field?: string;
      rule?: FailedRule;
      /** approval_required: the preview and the token (error.approval). */
      approval?: ApprovalChallenge;
      /** The approval decision, for the audit. */
      decision?: ApprovalAudit;
      /** rate_limited: the seconds until the budget's window ends (error.retryAfterSeconds, HTTP Retry-After). */
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(code + (detail.reason ? ` (${detail.reason})` : ""));
    this.name = "ToolFailure";
  }
}

/** A failure to return, with a reason the catalog defines for that code (checked by the compiler). */
export function failure<C extends ErrorCode>(
  code: C,
  reason: ErrorReason<C> | undefined,
  detail: Omit<ToolFailure["detail"], "reason"> = {},
): ToolFailure {
  return new ToolFailure(code, reason === undefined ? detail : { reason, ...detail });
}

/** Throws a failure with a reason the catalog defines for that code (checked by the compiler). */
export function refuse<C extends ErrorCode>(
  code: C,
  reason?: ErrorReason<C>,
  extra: { pointer?: string; field?: string } = {},
): never {
  throw new ToolFailure(code, { reason, ...extra });
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(errorCatalog, code);
}

/** The message for a code: the tool's own wording if it has one, else the reason's, else the code's. */
export function messageFor(
  code: ErrorCode,
  reason: string | undefined,
  tool: ToolDescriptor | undefined,
  locale: MessageLocale,
): string {
  const override = tool?.messages[code];
  if (override) return override[locale];
  const entry = errorCatalog[code];
  const reasons = entry.reasons as Record<string, { "zh-CN": string; en: string } | undefined>;
  const byReason =
    reason !== undefined && Object.prototype.hasOwnProperty.call(reasons, reason) ? reasons[reason] : undefined;
  return (byReason ?? entry.messages)[locale];
}
