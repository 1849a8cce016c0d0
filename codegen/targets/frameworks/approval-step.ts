/**
 * generated/frameworks/approval-step.ts, section by section: the runtime's preview made when the
 * framework asks whether a call needs a person, before they decide, and the token only a yes
 * releases. The file is the same for every contract; each function below is one part of it, as
 * text, in the file's order.
 */

/** The file: the banner, then its parts (a blank line between them). */
export function approvalStepFile(banner: string): string {
  return [
    banner,
    approvalStepShapes(),
    ledgerSection(),
    previewTextSection(),
    frameworkCallsInterface(),
    // one function of the file, written in three parts (its bindings, the approval step, the run)
    callBindings() + approvalStepMethods() + callRun(),
  ].join("\n");
}

/** The file's imports, the preview a person is shown, and what the ledger keeps about one call. */
function approvalStepShapes(): string {
  return `import { randomUUID } from "node:crypto";
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
  /**
   * The person's preview, written by the runtime (the same text MCP and Hermes show), in the
   * session's locale (zh-CN or en): the page by its title, what goes and what comes, old -> new on a rename.
   */
  text: string;
  /** The runtime's preview, as data (the tool's dry run). */
  preview: ApprovalPreview;
  /** After this, the yes is refused (mnote_tool_approval_expired) and the call must be previewed again. */
  expiresAt: string;
  /**
   * The runtime had asked about this very call before (another process, another request) and its
   * record still waits or was approved: this is the preview the person was shown then.
   */
  askedBefore: boolean;
}

/** What the approval step learned about one call, kept until the call is run (and for its replays). */
type Entry =
  | { kind: "asked"; preview: MnotePreview; token: string; approved: boolean; unseen: boolean; until: number }
  | { kind: "answered"; result: MnoteToolResult; until: number };
`;
}

/** The ledger of previewed calls: bounded, keyed by the call with its arguments in a stable order. */
function ledgerSection(): string {
  return `/**
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
`;
}

/** The person's screen: the tool's title and one line per planned change. */
function previewTextSection(): string {
  return `function describeOp(op: DiffOp): string {
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

/**
 * A terse English outline of a preview's ops (the tool's title, one line per planned change), for
 * logs and tests; MnotePreview.text is the runtime's own preview for the person.
 */
export function previewText(tool: ProviderToolDefinition, preview: ApprovalPreview): string {
  const title = toolByName(tool.canonicalName)?.title ?? tool.name;
  const lines = [\`\${title}:\`, ...preview.ops.map((op) => \`- \${describeOp(op)}\`)];
  if (preview.ops.length === 0) lines.push("- no change");
  return lines.join("\\n");
}
`;
}

/** The interface of a target's calls: the approval step's preview and answer, and the run. */
function frameworkCallsInterface(): string {
  return `/** A target's calls: the approval step (preview, the person's answer) and the run, over one connection and session. */
export interface FrameworkCalls {
  /**
   * The approval step, when the framework asks whether a call needs a person: at ask, a call to
   * the runtime without a token (it makes the dry run and answers approval_required, writing
   * nothing) and the preview to show; undefined when nobody needs asking. Asked again for the same
   * call, the first preview is given again: the yes stays bound to what the person saw.
   */
  preview(tool: ProviderToolDefinition, args: unknown, toolCallId: string): Promise<MnotePreview | undefined>;
  /**
   * The approval step when the framework already holds a yes for a call this process never
   * previewed (a RunState, a history or a checkpoint saved by another process): the runtime's
   * record of that question, from the shared store. Only a call the runtime had asked before
   * (askedBefore) can be approved; a fresh question nobody saw is never written.
   */
  resume(tool: ProviderToolDefinition, args: unknown, toolCallId: string): Promise<MnotePreview | undefined>;
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
`;
}

/**
 * frameworkCalls, opened: the connection, session, policy and trace context bound once, and the
 * call's key and envelope. The next two parts are its methods; callRun closes it.
 */
function callBindings(): string {
  return `/** The calls of a target's mnoteTools: the connection, session, policy and trace context bound once. */
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
`;
}

/** frameworkCalls' approval step: preview (the runtime's dry run at ask), the person's answer, and the lookups of previews. */
function approvalStepMethods(): string {
  return `  // the approval step's ask; resumed: the framework already holds a yes this process never asked for
  const ask = async (tool: ProviderToolDefinition, args: unknown, toolCallId: string, resumed: boolean) => {
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
        // the person's preview the runtime wrote (the same text MCP and Hermes show), in the session's locale
        text: challenge.summary,
        preview: challenge.preview,
        expiresAt: challenge.expiresAt,
        askedBefore: challenge.askedBefore === true,
      };
      // a yes the framework resumed with is to the question asked before, never to a fresh one
      const unseen = resumed && !preview.askedBefore;
      remember(key, { kind: "asked", preview, token: challenge.token, approved: false, unseen, until: Date.parse(challenge.expiresAt) });
      return preview;
  };
  return {
    preview: (tool, args, toolCallId) => ask(tool, args, toolCallId, false),
    resume: (tool, args, toolCallId) => ask(tool, args, toolCallId, true),
    answer(tool, args, toolCallId, approved) {
      const key = keyOf(tool, args, toolCallId);
      const entry = ledger.get(key);
      if (entry?.kind !== "asked") return;
      if (approved) entry.approved = !entry.unseen;
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
`;
}

/** frameworkCalls' run: the call sent with the token of an approved preview, or an answer the approval step already has. */
function callRun(): string {
  return `    async run(tool, args, toolCallId) {
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
}
