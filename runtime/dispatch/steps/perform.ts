/**
 * The step that does what the tool is for, once the call is authorized and its level known:
 * a dry run (with a warning for each option the kernel does not wire yet), a read, or a write:
 * one the person must approve (approval step) or a plain one (uncertain-write step, then claim,
 * then kernel). An unwired option is refused on anything but a dry run.
 */
import { ERR, type ToolDescriptor } from "../../../generated/registry";
import { getAtPointer } from "../../../common/json-pointer";
import { messageFor, refuse } from "../tool-failure";
import { askedWrite } from "./approval";
import type { DispatchDeps, Outcome, ToolCall } from "./context";
import { kernelCall } from "./kernel";
import { uncertainWrite } from "./uncertain";
import { chargeBudget } from "./budget";
import type * as T from "../../../generated/types";

/** No unwired option set (most tools wire every option): no new array per call. */
const NONE: readonly ToolDescriptor["unwiredFields"][number][] = [];

export async function perform(deps: DispatchDeps, call: ToolCall, level: T.ApprovalLevel): Promise<Outcome> {
  const { tool, request, context, command } = call;
  const args = request.args;
  const unwired =
    tool.unwiredFields.length === 0
      ? NONE
      : tool.unwiredFields.filter((f) => getAtPointer(args, f.pointer) !== undefined);
  if (tool.dryRun === "required" && request.dryRun === true) {
    const reply = await kernelCall(deps, command, { context, args, dryRun: true });
    const result = reply.result as Record<string, unknown>;
    if (unwired.length > 0) {
      result.warnings = unwired.map((f) => ({
        code: ERR.unsupportedOption,
        message: messageFor(ERR.unsupportedOption, undefined, tool, call.locale),
        field: f.field,
      }));
    }
    return { result, effect: "dry_run", commandId: null, replayed: false };
  }
  if (unwired.length > 0) refuse(ERR.unsupportedOption, undefined, { field: unwired[0]!.field });
  if (tool.effect === "read") {
    await chargeBudget(deps, call);
    const reply = await kernelCall(deps, command, { context, args });
    return { result: reply.result as Record<string, unknown>, effect: "read", commandId: null, replayed: false };
  }
  if (level === "ask") return askedWrite(deps, call);
  return uncertainWrite(deps, call);
}
