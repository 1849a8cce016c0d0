/**
 * generated/frameworks/connection.ts, section by section: each function below is one part of the
 * file, as text, in the order the file has them (a blank line between parts). Only the imports
 * depend on the contract (the union of the model-facing tool names); the rest is the same for
 * every contract. What the file is for: codegen/targets/frameworks.ts.
 */
import { literalUnion } from "./literal-union";

/** The file: the banner, then its parts. */
export function connectionFile(banner: string, toolNames: readonly string[]): string {
  return [
    banner,
    connectionImports(toolNames),
    connectionShapes(),
    modelViewSection(),
    approvalSeam(),
    traceSection(),
    httpClientSection(),
  ].join("\n");
}

/** What the file imports, the union of the model-facing tool names (the one part that depends on the contract's tools), and the call's type. */
function connectionImports(toolNames: readonly string[]): string {
  return `import type { ApprovalLevel, ApprovalPolicy, FrameworkToolCall, ToolResponse } from "../types";
import { toolByName, type RegisteredToolName } from "../registry";
import { decideApproval } from "./decision";
import { validateApprovalGrant, validateApprovalPolicy, validateToolResponse } from "../validators";
import { providerTools, type ProviderName, type ProviderToolDefinition } from "../providers";

/** Every tool under the name the model calls it by. */
export type MnoteToolName =${literalUnion(toolNames)};

/** One tool call made through an agent framework, as the runtime takes it (in process, or as the body of POST /v1/tools/model-call): the contract's envelope (contract/envelope/framework-call.schema.json), checked by the runtime with validateFrameworkToolCall. */
export type { FrameworkToolCall };
`;
}

/** The connection (HTTP to `serve`, or a dispatcher in process), the session binding, and the options every target's mnoteTools takes. */
function connectionShapes(): string {
  return `/** W3C trace context of the caller's span. */
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
`;
}

/** The model's view of an answer, the error of an answer that never came, and a provider variant's tool definitions. */
function modelViewSection(): string {
  return `/** The model's view of one response shape: toolName is the name the model called (null stays null). */
type ModelViewOf<R> = R extends unknown ? Omit<R, "toolName"> & { toolName: string | null } : never;

/**
 * What the model reads back: the response envelope with toolName the name the model called. A
 * union over success and failure, so \`read.ok ? read.result : read.error.message\` narrows.
 */
export type MnoteToolResult = ModelViewOf<ToolResponse>;

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
`;
}

/**
 * The approval seam: approvalFor, the one function every target's approval hook asks, and the
 * checks of the options' approvedBy and approval policy made when the tools are made.
 */
function approvalSeam(): string {
  return `/** Where approval is decided for a framework's calls: the session, and the host's policy (the runtime's file, the same JSON). */
export interface ApprovalScope {
  sessionId?: string;
  policy?: ApprovalPolicy;
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

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
  const tools = scope.policy?.tools;
  const sessions = scope.policy?.sessions;
  const session = scope.sessionId !== undefined && sessions && own(sessions, scope.sessionId) ? sessions[scope.sessionId] : undefined;
  return decideApproval(entry, {
    workspace: tools && own(tools, toolName) ? tools[toolName] : undefined,
    session: session && own(session.tools, toolName) ? session.tools[toolName] : undefined,
  }, args);
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
`;
}

/** The W3C trace context of the caller's active span, read through @opentelemetry/api when the program has it. */
function traceSection(): string {
  return `/** The two calls of @opentelemetry/api this file makes (typed here: the package has no dependencies). */
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
`;
}

/**
 * The dispatcher behind a connection, and the HTTP client of `serve`: one body for every attempt,
 * so a retried call keeps its idempotency key.
 */
function httpClientSection(): string {
  return `/** The dispatcher behind a connection: the in-process one as it is, or an HTTP client of \`serve\`. */
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
          lastProblem = e instanceof Error && e.name === "TimeoutError" ? \`no answer within \${timeoutMs} ms\` : unreachable(e);
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

/** Why fetch could not reach the runtime, with what to check: "unreachable (ECONNREFUSED: is mnote-tools serve running there?)". */
function unreachable(e: unknown): string {
  const code = (e as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return \`unreachable (\${typeof code === "string" ? code + ": " : ""}is mnote-tools serve running there?)\`;
}
`;
}
