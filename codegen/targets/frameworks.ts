/**
 * generated/frameworks/connection.ts: what the three agent-framework targets (ai-sdk, langchain,
 * openai-agents) share, so each of them is only the framework's own tool shape.
 *
 *   - the connection: `{ url, token }` for `mnote-tools serve` (POST /v1/tools/model-call), or
 *     `{ dispatcher }` in process (the runtime's frameworkCaller); either way the runtime turns the
 *     model's call into a request (runtime/transports/framework-call.ts: validate, raise, the tool
 *     call id hashed into the idempotency key), so no framework's own parsing is trusted;
 *   - the session binding (the session whose grant the runtime holds);
 *   - the model-facing tool definitions of a provider variant, and the model view of an answer;
 *   - the W3C trace context of the caller's active span, sent on with every call;
 *   - the approval seam (approvalFor), one function every target's approval hook asks.
 *
 * The file is the same for every contract except the union of the model-facing tool names.
 */
import type { Target } from "./target";
import { banner } from "../support/banner";

/** The folder (inside the output folder) of the shared file; the targets import it from their own folders. */
export const FRAMEWORKS_DIR = "frameworks";

/** A TypeScript union of string literals, one per line (never empty: a contract has tools). */
export function literalUnion(names: readonly string[]): string {
  return names.map((n) => `\n  | ${JSON.stringify(n)}`).join("");
}

export const frameworksTarget: Target = {
  name: "frameworks",
  emit(model) {
    const content = `${banner(model, "ts")}
import { randomUUID } from "node:crypto";
import type { ApprovalGrant, ApprovalLevel, ApprovalPolicy, ApprovalRule, ToolResponse } from "../types";
import { modelView, toolByName, type ApprovalFact, type ModelToolResponse, type RegisteredToolName } from "../registry";
import { validateApprovalGrant, validateApprovalPolicy, validateToolResponse } from "../validators";
import { providerTools, type ProviderName, type ProviderToolDefinition } from "../providers";

/** Every tool under the name the model calls it by. */
export type MnoteToolName =${literalUnion(model.tools.map((t) => t.providerName))};

/** One tool call made through an agent framework, as the runtime takes it (in process, or as the body of POST ${"/v1/tools/model-call"}). */
export interface FrameworkToolCall {
  /** The session whose grant (workspace, page, actor, scope) the call acts under; the runtime holds the grant. */
  sessionId: string;
  /** The name the model called (the provider name; the canonical name is accepted too). */
  toolName: string;
  /** The framework's own id of this tool call, exactly: the runtime hashes it into the idempotency key. */
  toolCallId: string;
  /** The model's arguments, unchecked: the runtime validates them before anything acts on them. */
  arguments: unknown;
  /** The agent run the call belongs to (an Identifier); the runtime picks one when absent. */
  runId?: string;
  /** The token of an approval_required answer, sent back once a person said yes in the framework (never from the model). */
  approval?: ApprovalGrant;
}

/** W3C trace context of the caller's span. */
export interface TraceFields {
  traceparent?: string;
  tracestate?: string;
}

/** What answers a framework's tool call in process: the runtime's frameworkCaller(runtime). */
export interface FrameworkDispatcher {
  callModelTool(call: FrameworkToolCall, trace?: TraceFields): Promise<ToolResponse>;
}

/** \`mnote-tools serve\` over HTTP: its URL and the tool token. */
export interface HttpConnection {
  url: string;
  token: string;
  /** Per attempt (default 30000 ms). */
  timeoutMs?: number;
  /** How often a call whose answer was lost (no answer, a timeout) is sent again, with the same tool call id and so the same idempotency key (default 2). */
  retries?: number;
}

/** The runtime in this process. */
export interface InProcessConnection {
  dispatcher: FrameworkDispatcher;
}

export type MnoteConnection = HttpConnection | InProcessConnection;

/** The session the tools act in: its grant is registered with the runtime by the host (the mnote app). */
export interface MnoteSessionBinding {
  sessionId: string;
  runId?: string;
}

/** What every target's mnoteTools takes. */
export interface MnoteToolsOptions {
  connection: MnoteConnection;
  session: MnoteSessionBinding;
  /** The trace context to send on (default: the active span's, through @opentelemetry/api when it is installed). */
  traceContext?: () => TraceFields;
  /**
   * The host's approval policy (the JSON of \`serve --approval-policy\`, checked by the contract's
   * validator when the tools are made): with the contract's facts it decides which calls the
   * framework asks a person about (approvalFor). Give the runtime's own file here, so that what the
   * framework asks about and what the runtime holds agree.
   */
  approvalPolicy?: ApprovalPolicy;
  /** Who approves in this app (an Identifier, for the audit); default: the session's actor. */
  approvedBy?: string;
}

/** What the model reads back: the response envelope with toolName the name the model called. */
export type MnoteToolResult = ModelToolResponse;

/** A call whose answer never came (the runtime unreachable, or silent past the timeout on every attempt). */
export class MnoteConnectionError extends Error {
  override readonly name = "MnoteConnectionError";
}

/** The path of \`serve\`'s framework call route. */
export const MODEL_CALL_PATH = "/v1/tools/model-call";

/** The tool definitions of a provider variant: the model-facing name, description and parameter schema. */
export function frameworkToolDefinitions(provider: ProviderName): readonly ProviderToolDefinition[] {
  const definitions = providerTools[provider];
  if (!definitions) throw new TypeError(\`unknown provider variant \${String(provider)}\`);
  return definitions;
}

/** Where approval is decided for a framework's calls: the session, and the host's policy (the runtime's file, the same JSON). */
export interface ApprovalScope {
  sessionId?: string;
  policy?: ApprovalPolicy;
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The level one rule gives these args: the first condition whose fields all equal the args' (an absent field counts as its default), else the default. */
function ruleLevel(rule: ApprovalRule | ApprovalFact, args: unknown, defaults: { readonly [field: string]: unknown }): ApprovalLevel {
  if (typeof rule === "string") return rule;
  // the model's arguments are unchecked here: only own members are read, and a non-object matches no condition
  const given = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  for (const condition of rule.when ?? []) {
    const matches = Object.keys(condition.args).every(
      (field) => (own(given, field) ? given[field] : own(defaults, field) ? defaults[field] : undefined) === condition.args[field],
    );
    if (matches) return condition.approval;
  }
  return rule.default;
}

/**
 * The approval level of one call, as the runtime decides it (runtime/approval/level.ts, docs/APPROVAL.md):
 * the contract's fact for the tool (the generated registry), overridden by the policy's workspace
 * rule, then its session rule; deny from any of them wins. Every target's approval hook asks this
 * one function (the AI SDK's and the Agents SDK's needsApproval: ask -> the framework asks a
 * person first; LangChain: see approvalInterruptOn). The runtime still decides: a call the hook let
 * through that the runtime's own policy holds at ask is answered approval_required, nothing written.
 */
export function approvalFor(toolName: RegisteredToolName, args: unknown, scope: ApprovalScope = {}): ApprovalLevel {
  const entry = toolByName(toolName);
  if (!entry) return "deny";
  const layers: ApprovalLevel[] = [ruleLevel(entry.approval, args, entry.argDefaults)];
  const tools = scope.policy?.tools;
  if (tools && own(tools, toolName) && tools[toolName] !== undefined) layers.push(ruleLevel(tools[toolName]!, args, entry.argDefaults));
  const sessions = scope.policy?.sessions;
  const session = scope.sessionId !== undefined && sessions && own(sessions, scope.sessionId) ? sessions[scope.sessionId] : undefined;
  if (session && own(session.tools, toolName) && session.tools[toolName] !== undefined)
    layers.push(ruleLevel(session.tools[toolName]!, args, entry.argDefaults));
  return layers.includes("deny") ? "deny" : layers[layers.length - 1]!;
}

/** The approval decision of a target's mnoteTools: approvalFor with the options' session and (checked) policy bound once. */
export function approvalDecider(options: MnoteToolsOptions): (toolName: RegisteredToolName, args: unknown) => ApprovalLevel {
  checkedApprovedBy(options.approvedBy);
  const scope: ApprovalScope = { sessionId: options.session.sessionId, policy: checkedApprovalPolicy(options.approvalPolicy) };
  return (toolName, args) => approvalFor(toolName, args, scope);
}

/**
 * The options' approvedBy, checked when the tools are made (by the contract's ApprovalGrant validator,
 * with a stand-in token of the right shape), not after a person said yes: an e-mail address there
 * would otherwise fail the approved write.
 */
export function checkedApprovedBy(approvedBy: unknown): void {
  if (approvedBy === undefined) return;
  if (!validateApprovalGrant({ token: "0000000000000000.0", approvedBy })) {
    const first = validateApprovalGrant.errors?.[0];
    throw new TypeError(\`approvedBy is not an identifier (letters, digits and . _ : -, at most 128): \${first?.message ?? "invalid"}\`);
  }
}

/** The options' approval policy, checked by the contract's validator before anything reads it. */
export function checkedApprovalPolicy(policy: unknown): ApprovalPolicy | undefined {
  if (policy === undefined) return undefined;
  if (!validateApprovalPolicy(policy)) {
    const first = validateApprovalPolicy.errors?.[0];
    throw new TypeError(\`approvalPolicy is not a valid approval policy: \${first ? \`\${first.instancePath || "(root)"} \${first.message ?? ""}\` : "invalid"}\`);
  }
  return policy;
}

/** The two calls of @opentelemetry/api this file makes (typed here: the package has no dependencies). */
interface OtelPropagationApi {
  context: { active(): unknown };
  propagation: { inject(context: unknown, carrier: Record<string, string>): void };
}

/** The active span's W3C context, through @opentelemetry/api when the program has it (an optional peer); empty otherwise. */
export function activeTraceFields(): TraceFields {
  let api: OtelPropagationApi;
  try {
    // optional, and required only here: without the API installed there is no trace to pass on
    api = require("@opentelemetry/api") as OtelPropagationApi;
  } catch {
    return {};
  }
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  const fields: TraceFields = {};
  if (carrier.traceparent) fields.traceparent = carrier.traceparent;
  if (carrier.tracestate) fields.tracestate = carrier.tracestate;
  return fields;
}

/** The dispatcher behind a connection: the in-process one as it is, or an HTTP client of \`serve\`. */
export function connectionDispatcher(connection: MnoteConnection): FrameworkDispatcher {
  if ("dispatcher" in connection) return connection.dispatcher;
  return httpDispatcher(connection);
}

function httpDispatcher(connection: HttpConnection): FrameworkDispatcher {
  const endpoint = connection.url.replace(/\\/+$/, "") + MODEL_CALL_PATH;
  const timeoutMs = connection.timeoutMs ?? 30_000;
  const retries = connection.retries ?? 2;
  return {
    async callModelTool(call, trace = {}) {
      // the same body every attempt: the same tool call id, so the same idempotency key (a lost
      // answer retried replays the first call's outcome instead of writing twice)
      const body = JSON.stringify(call);
      let lastProblem = "";
      for (let attempt = 0; attempt <= retries; attempt++) {
        let response: Response;
        try {
          response = await fetch(endpoint, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: \`Bearer \${connection.token}\`,
              ...(trace.traceparent ? { traceparent: trace.traceparent } : {}),
              ...(trace.tracestate ? { tracestate: trace.tracestate } : {}),
            },
            body,
            signal: AbortSignal.timeout(timeoutMs),
          });
        } catch (e) {
          lastProblem = e instanceof Error && e.name === "TimeoutError" ? \`no answer within \${timeoutMs} ms\` : "unreachable";
          continue;
        }
        const answer: unknown = await response.json().catch(() => undefined);
        // refusals (a wrong token, a body too large) are envelopes too: the model reads them
        if (validateToolResponse(answer)) return answer;
        throw new MnoteConnectionError(\`mnote runtime at \${connection.url}: HTTP \${response.status} without a response envelope\`);
      }
      throw new MnoteConnectionError(\`mnote runtime at \${connection.url}: \${lastProblem} (\${retries + 1} attempts, one idempotency key)\`);
    },
  };
}

/**
 * Calls one tool for a framework: the answer as the model reads it (failures included: they are
 * results, not exceptions). \`personApproved\`: the framework asked a person about this very call
 * (its approval hook said ask) and the person said yes; only then is an approval_required answer
 * sent back with its token. Otherwise that answer goes to the model as it is, nothing written.
 */
export type FrameworkToolRunner = (
  tool: ProviderToolDefinition,
  modelArguments: unknown,
  toolCallId: string | undefined,
  personApproved?: boolean,
) => Promise<MnoteToolResult>;

/** The runner of a target's mnoteTools: the connection, the session and the trace context bound once. */
export function frameworkToolRunner(options: MnoteToolsOptions): FrameworkToolRunner {
  const dispatcher = connectionDispatcher(options.connection);
  const traceContext = options.traceContext ?? activeTraceFields;
  const { sessionId, runId } = options.session;
  return async (tool, modelArguments, toolCallId, personApproved = false) => {
    const call: FrameworkToolCall = {
      sessionId,
      toolName: tool.name,
      // a framework that gives no id (a tool invoked by hand) makes a call of its own, never a replay
      toolCallId: toolCallId ?? \`call_\${randomUUID().replace(/-/g, "")}\`,
      arguments: modelArguments,
      ...(runId !== undefined ? { runId } : {}),
    };
    const trace = traceContext();
    let response = await dispatcher.callModelTool(call, trace);
    // approval_required is the one answer that carries a token (error.approval): the runtime made
    // the preview and wrote nothing; the same call again with the token writes, once, if the page
    // is still at the previewed revision
    const challenge = !response.ok ? response.error.approval : undefined;
    if (personApproved && challenge !== undefined) {
      const approval: ApprovalGrant = { token: challenge.token };
      if (options.approvedBy !== undefined) approval.approvedBy = options.approvedBy;
      response = await dispatcher.callModelTool({ ...call, approval }, trace);
    }
    return modelView(response);
  };
}
`;
    return [{ path: `${FRAMEWORKS_DIR}/connection.ts`, content }];
  },
};
