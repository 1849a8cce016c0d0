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
 *   - the approval seam (approvalFor), one function every target's approval hook asks, over the one
 *     decision (frameworks/decision.ts) the runtime makes too (runtime/approval/level.ts);
 *   - the approval step (frameworks/approval-step.ts): the runtime's preview made when the framework
 *     asks whether a call needs a person, before they decide, and the token only a yes releases.
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
    // the call's type and validator are the contract's (envelope/framework-call.schema.json); a
    // contract cut before it (a release the diff reads) is never generated from
    if (!model.schemas.some((s) => s.typeName === "FrameworkToolCall"))
      throw new Error("the contract has no FrameworkToolCall (envelope/framework-call.schema.json)");
    const content = `${banner(model, "ts")}
import type { ApprovalLevel, ApprovalPolicy, FrameworkToolCall, ToolResponse } from "../types";
import { toolByName, type RegisteredToolName } from "../registry";
import { decideApproval } from "./decision";
import { validateApprovalGrant, validateApprovalPolicy, validateToolResponse } from "../validators";
import { providerTools, type ProviderName, type ProviderToolDefinition } from "../providers";

/** Every tool under the name the model calls it by. */
export type MnoteToolName =${literalUnion(model.tools.map((t) => t.providerName))};

/** One tool call made through an agent framework, as the runtime takes it (in process, or as the body of POST /v1/tools/model-call): the contract's envelope (contract/envelope/framework-call.schema.json), checked by the runtime with validateFrameworkToolCall. */
export type { FrameworkToolCall };

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

/** The model's view of one response shape: toolName is the name the model called (null stays null). */
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

/** Where approval is decided for a framework's calls: the session, and the host's policy (the runtime's file, the same JSON). */
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
`;
    const decision = `${banner(model, "ts")}
import type { ApprovalLevel, ApprovalRule } from "../types";
import type { ApprovalFact } from "../registry";

/** A rule, as the contract writes it (the registry's fact) or as a host policy does. */
export type AnyApprovalRule = ApprovalRule | ApprovalFact;

/** What the decision reads of a tool: the contract's fact and its arguments' schema defaults. */
export interface ApprovalSubject {
  readonly approval: AnyApprovalRule;
  readonly argDefaults: { readonly [field: string]: unknown };
}

/** The host policy's rules for one call: the workspace's, then the session's (either may be absent). */
export interface ApprovalLayers {
  readonly workspace?: AnyApprovalRule;
  readonly session?: AnyApprovalRule;
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * The value a call gives a top-level field. Absent, undefined and null are "not given" (a strict
 * model sends null for a field it leaves out; the runtime's raise step drops it), so the schema
 * default stands in, or undefined when there is none.
 */
function givenValue(args: Readonly<Record<string, unknown>>, defaults: ApprovalSubject["argDefaults"], field: string): unknown {
  const value = own(args, field) ? args[field] : undefined;
  if (value !== undefined && value !== null) return value;
  return own(defaults, field) ? defaults[field] : undefined;
}

/**
 * Whether one condition holds: every field it names equals the call's value. A condition value of
 * null means "the call did not give this field" (absent or null), whatever the schema default.
 */
export function conditionHolds(
  condition: { readonly [field: string]: unknown },
  args: Readonly<Record<string, unknown>>,
  defaults: ApprovalSubject["argDefaults"],
): boolean {
  return Object.keys(condition).every((field) => {
    const expected = condition[field];
    if (expected === null) return !own(args, field) || args[field] === null || args[field] === undefined;
    return givenValue(args, defaults, field) === expected;
  });
}

/** The level one rule gives: the first condition that holds, else the rule's default. */
export function ruleLevel(rule: AnyApprovalRule, args: unknown, defaults: ApprovalSubject["argDefaults"]): ApprovalLevel {
  if (typeof rule === "string") return rule;
  // the model's arguments may be unchecked here: only own members are read, and a non-object
  // (which the runtime refuses as invalid_input) gives every field as not given
  const given = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  for (const condition of rule.when ?? []) {
    if (conditionHolds(condition.args, given, defaults)) return condition.approval;
  }
  return rule.default;
}

/**
 * The approval level of one call (docs/APPROVAL.md): the contract's fact, overridden by the
 * policy's workspace rule, then by its session rule; deny from any of them wins. The one decision
 * the runtime (runtime/approval/level.ts) and every framework target (approvalFor) make.
 */
export function decideApproval(subject: ApprovalSubject, layers: ApprovalLayers, args: unknown): ApprovalLevel {
  const levels: ApprovalLevel[] = [ruleLevel(subject.approval, args, subject.argDefaults)];
  if (layers.workspace !== undefined) levels.push(ruleLevel(layers.workspace, args, subject.argDefaults));
  if (layers.session !== undefined) levels.push(ruleLevel(layers.session, args, subject.argDefaults));
  return levels.includes("deny") ? "deny" : levels[levels.length - 1]!;
}
`;
    const approvalStep = `${banner(model, "ts")}
import { randomUUID } from "node:crypto";
import type { ApprovalPreview, DiffOp, ToolResponse } from "../types";
import { modelView, toolByName } from "../registry";
import type { ProviderToolDefinition } from "../providers";
import {
  activeTraceFields,
  approvalDecider,
  connectionDispatcher,
  type FrameworkToolCall,
  type MnoteToolResult,
  type MnoteToolsOptions,
} from "./connection";

/** What a person is shown before they say yes or no: the runtime's own preview of exactly this call. */
export interface MnotePreview {
  /** The name the model called. */
  toolName: string;
  /** The framework's id of the call. */
  toolCallId: string;
  /** One short screen for a person: the tool's title and what would change. */
  text: string;
  /** The runtime's preview, as data (the tool's dry run). */
  preview: ApprovalPreview;
  /** After this, the yes is refused (mnote_tool_approval_expired) and the call must be previewed again. */
  expiresAt: string;
}

/** What the approval step learned about one call, kept until the call is run (and for its replays). */
type Entry =
  | { kind: "asked"; preview: MnotePreview; token: string; approved: boolean; until: number }
  | { kind: "answered"; result: MnoteToolResult; until: number };

/**
 * The calls previewed in this process, by session, tool, call id and arguments. Only the approval
 * step writes an entry, and only a person's yes marks one approved: execute/invoke called outside
 * the framework's approval step finds none, so it sends no token and the runtime writes nothing at
 * ask. Bounded: expired entries go first, then the oldest.
 */
const ledger = new Map<string, Entry>();
const LEDGER_LIMIT = 10_000;
/** How long an answer found during the approval step is kept for the execute that follows (and its replays). */
const ANSWER_KEPT_MS = 10 * 60_000;

/** JSON with object keys sorted: the same arguments give the same key whatever their order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return \`[\${value.map(stableJson).join(",")}]\`;
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return \`{\${Object.keys(o)
      .sort()
      .map((k) => \`\${JSON.stringify(k)}:\${stableJson(o[k])}\`)
      .join(",")}}\`;
  }
  return JSON.stringify(value) ?? "null";
}

function remember(key: string, entry: Entry): void {
  const now = Date.now();
  if (ledger.size >= LEDGER_LIMIT) for (const [k, e] of ledger) if (e.until < now) ledger.delete(k);
  while (ledger.size >= LEDGER_LIMIT) ledger.delete(ledger.keys().next().value as string);
  ledger.set(key, entry);
}

function describeOp(op: DiffOp): string {
  const n = (count: number | undefined, what: string) => \`\${count ?? 0} \${what}\${count === 1 ? "" : "s"}\`;
  switch (op.op) {
    case "replace":
      return \`replace the whole body: \${n(op.removedBlocks, "block")} removed, \${n(op.blocks, "block")} written\`;
    case "append":
      return \`append \${n(op.blocks, "block")}\`;
    case "set_title":
      return \`rename the page to \${JSON.stringify(op.value)}\`;
    case "set_option":
      return \`set option \${op.field ?? ""} to \${JSON.stringify(op.value)}\`;
    default:
      return op.op.replace(/_/g, " ");
  }
}

/** The person's screen for a preview: the tool's title, then one line per planned change. */
export function previewText(tool: ProviderToolDefinition, preview: ApprovalPreview): string {
  const title = toolByName(tool.canonicalName)?.title ?? tool.name;
  const lines = [\`\${title}:\`, ...preview.ops.map((op) => \`- \${describeOp(op)}\`)];
  if (preview.ops.length === 0) lines.push("- no change");
  return lines.join("\\n");
}

/** A target's calls: the approval step (preview, the person's answer) and the run, over one connection and session. */
export interface FrameworkCalls {
  /**
   * The approval step, when the framework asks whether a call needs a person: at ask, a call to
   * the runtime without a token (it makes the dry run and answers approval_required, writing
   * nothing) and the preview to show; undefined when nobody needs asking. Asked again for the same
   * call, the first preview is given again: the yes stays bound to what the person saw.
   */
  preview(tool: ProviderToolDefinition, args: unknown, toolCallId: string): Promise<MnotePreview | undefined>;
  /** The person's answer from the framework's approval step: yes marks the previewed call approved; no forgets it. */
  answer(tool: ProviderToolDefinition, args: unknown, toolCallId: string, approved: boolean): void;
  /** The preview made for a call, if the approval step made one (for an app's approval screen). */
  previewFor(tool: ProviderToolDefinition, args: unknown, toolCallId: string): MnotePreview | undefined;
  /** How many previews wait for this call id with other arguments too (a call id the model reused). */
  previewsOfCallId(tool: ProviderToolDefinition, toolCallId: string): number;
  /**
   * execute/invoke: the answer as the model reads it (failures are results). Only a call the
   * person approved in the approval step is sent with its token; a call the approval step
   * answered already gets that answer (nothing sent twice).
   */
  run(tool: ProviderToolDefinition, args: unknown, toolCallId: string | undefined): Promise<MnoteToolResult>;
}

/** The calls of a target's mnoteTools: the connection, session, policy and trace context bound once. */
export function frameworkCalls(options: MnoteToolsOptions): FrameworkCalls {
  const dispatcher = connectionDispatcher(options.connection);
  const traceContext = options.traceContext ?? activeTraceFields;
  const decide = approvalDecider(options);
  const { sessionId, runId } = options.session;
  const keyOf = (tool: ProviderToolDefinition, args: unknown, toolCallId: string) =>
    JSON.stringify([sessionId, tool.canonicalName, toolCallId, stableJson(args)]);
  const callOf = (tool: ProviderToolDefinition, args: unknown, toolCallId: string): FrameworkToolCall => ({
    sessionId,
    toolName: tool.name,
    toolCallId,
    arguments: args,
    ...(runId !== undefined ? { runId } : {}),
  });
  const send = (call: FrameworkToolCall): Promise<ToolResponse> => dispatcher.callModelTool(call, traceContext());
  return {
    async preview(tool, args, toolCallId) {
      if (decide(tool.canonicalName, args) !== "ask") return undefined;
      const key = keyOf(tool, args, toolCallId);
      const known = ledger.get(key);
      if (known) return known.kind === "asked" ? known.preview : undefined;
      const response = await send(callOf(tool, args, toolCallId));
      const challenge = !response.ok ? response.error.approval : undefined;
      if (challenge === undefined) {
        // the runtime did not ask (invalid input, a conflict, or its own policy allows the call):
        // that answer is the call's, and execute gives it to the model without sending again
        remember(key, { kind: "answered", result: modelView(response) as MnoteToolResult, until: Date.now() + ANSWER_KEPT_MS });
        return undefined;
      }
      const preview: MnotePreview = {
        toolName: tool.name,
        toolCallId,
        text: previewText(tool, challenge.preview),
        preview: challenge.preview,
        expiresAt: challenge.expiresAt,
      };
      remember(key, { kind: "asked", preview, token: challenge.token, approved: false, until: Date.parse(challenge.expiresAt) });
      return preview;
    },
    answer(tool, args, toolCallId, approved) {
      const key = keyOf(tool, args, toolCallId);
      const entry = ledger.get(key);
      if (entry?.kind !== "asked") return;
      if (approved) entry.approved = true;
      else ledger.delete(key); // a no: the token is dropped, nothing can be written with it
    },
    previewFor(tool, args, toolCallId) {
      const entry = ledger.get(keyOf(tool, args, toolCallId));
      return entry?.kind === "asked" ? entry.preview : undefined;
    },
    previewsOfCallId(tool, toolCallId) {
      const prefix = JSON.stringify([sessionId, tool.canonicalName, toolCallId]).slice(0, -1) + ",";
      let n = 0;
      for (const [key, entry] of ledger) if (entry.kind === "asked" && key.startsWith(prefix)) n++;
      return n;
    },
    async run(tool, args, toolCallId) {
      // a framework that gives no id (a tool invoked by hand) makes a call of its own, never a replay
      const id = toolCallId ?? \`call_\${randomUUID().replace(/-/g, "")}\`;
      const entry = toolCallId !== undefined ? ledger.get(keyOf(tool, args, id)) : undefined;
      if (entry?.kind === "answered") return entry.result;
      const call = callOf(tool, args, id);
      // the token of the preview the person approved: the write is bound to the revision they saw
      // (a change since is a conflict, nothing written); kept for a replay, which the runtime
      // answers from the call's idempotency record
      if (entry?.kind === "asked" && entry.approved) {
        call.approval = { token: entry.token };
        if (options.approvedBy !== undefined) call.approval.approvedBy = options.approvedBy;
      }
      return modelView(await send(call)) as MnoteToolResult;
    },
  };
}
`;
    return [
      { path: `${FRAMEWORKS_DIR}/approval-step.ts`, content: approvalStep },
      { path: `${FRAMEWORKS_DIR}/connection.ts`, content },
      { path: `${FRAMEWORKS_DIR}/decision.ts`, content: decision },
    ];
  },
};
