/**
 * The first step, admit: the request text parsed within the limits, its tool found by toolName,
 * and the request validated by that tool's generated validator (which checks the envelope too)
 * before anything acts on it. What is learnt on the way (the echo, the tool, the locale) is kept
 * in the call's Trace even when admission fails, so the refusal still says whom it answers.
 */
import type * as T from "../../../generated/types";
import { ERR, type MessageLocale, type ToolDescriptor } from "../../../generated/registry";
import { validateToolRequest } from "../../../generated/validators";
import { isPlainObject } from "../../../common/values";
import type { ToolSpan } from "../../telemetry/tool-span";
import { readRequest } from "../limits";
import { invalidInput } from "../problems";
import { refuse } from "../tool-failure";
import { echoOf, validatedEcho, type Echo } from "./answer";
import type { DispatchDeps } from "./context";

/** What the answer of a call can say about it, filled in as the steps learn it. */
export interface Trace {
  echo: Echo;
  tool: ToolDescriptor | undefined;
  locale: MessageLocale;
}

/** A request its tool's validator accepted, and that tool. */
export interface Admitted {
  tool: ToolDescriptor;
  request: T.ToolRequest;
}

export function admit(deps: DispatchDeps, input: unknown, span: ToolSpan, trace: Trace): Admitted {
  const request = readRequest(input, deps.limits);
  if (isPlainObject(request) && (request.locale === "en" || request.locale === "zh-CN")) trace.locale = request.locale;
  const tool =
    isPlainObject(request) && typeof request.toolName === "string" ? deps.toolByName(request.toolName) : undefined;
  trace.tool = tool;
  if (tool) span.identify(tool);
  // The tool's own validator checks the envelope too: the envelope's alone runs only to name
  // an envelope problem first, or when there is no tool to ask.
  if (!tool?.validateRequest(request)) {
    trace.echo = echoOf(request);
    if (!validateToolRequest(request)) throw invalidInput(validateToolRequest.errors);
    if (!tool) refuse(ERR.unknownTool);
    throw invalidInput(tool.validateRequest.errors);
  }
  trace.echo = validatedEcho(request);
  return { tool, request };
}
