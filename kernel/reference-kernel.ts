/**
 * The reference kernel: what the design note asks of mnote's Rust kernel, on embedded SQLite, so
 * the runtime has a real kernel to talk to on a fresh machine. It implements the generated
 * KernelClient interface, so a kernel command added to the contract does not compile until it is
 * implemented here.
 *
 * Every write runs in one IMMEDIATE transaction that checks access, then the idempotency record
 * (replay or conflict), then the base revision, then applies the change and writes the command
 * log row and the idempotency record: a crash leaves all of it or none of it.
 */
import type * as T from "../generated/types";
import type { KernelClient, KernelCommandMap } from "../generated/kernel/client";
import { KernelRefusal } from "../generated/kernel/transport";
import { capabilities, capabilityScopes, ERR, toolList, type KernelCommandName } from "../generated/registry";
import { openDatabase, statementCache, type Db } from "../common/sqlite";
import { randomId } from "../common/ids";
import { KERNEL_SCHEMA, KERNEL_SCHEMA_VERSION } from "./schema";
import { bodySummary, planBody, type StoredBlock } from "./blocks";
import { commandStatus } from "./commands/command-status";

export interface ReferenceKernelOptions {
  /** SQLite file, or ":memory:" (the default). */
  path?: string;
  now?: () => number;
  /** Handlers for commands this kernel does not know (a contract extension, in tests). */
  extraCommands?: Record<string, (kernel: ReferenceKernel, payload: unknown) => unknown>;
}

interface PageRow {
  id: string;
  workspace_id: string;
  title: string;
  revision: number;
  options_json: string;
}

type WriteCommand = "page.body.save" | "page.head.updateTitle" | "page.layout.updateOptions" | "artifact.summary.upsert" | "artifact.aiNote.create";

interface WritePayload {
  context: T.KernelContext;
  args: { baseRevision?: number };
  dryRun: boolean;
  write?: T.KernelWrite;
}

interface Plan<R> {
  diff: T.DiffOp[];
  apply(commandId: string): R;
}

export type Access = T.AccessCheckResult["result"];

/** The capability each command needs: the one of the tool the contract maps to it. */
const CAPABILITY_BY_COMMAND: ReadonlyMap<string, T.CapabilityScope> = new Map(toolList.map((t) => [t.kernelCommand, t.capability]));

export function capabilityFor(command: string): T.CapabilityScope {
  const capability = CAPABILITY_BY_COMMAND.get(command);
  if (!capability) throw new KernelRefusal(ERR.invalidInput, "unknown_command");
  return capability;
}

const DEFAULT_OPTIONS: Required<T.PageOptions> = { wideLayout: false, smallText: false, showToc: false, protectEditing: false };

export class ReferenceKernel implements KernelClient {
  readonly db: Db;
  private readonly sql: (text: string) => import("better-sqlite3").Statement;
  /** Built once: the IMMEDIATE transaction every write runs in. */
  private readonly writeTransaction: import("better-sqlite3").Transaction<(commandName: string, payload: WritePayload, plan: (page: PageRow) => Plan<unknown>) => unknown>;
  private readonly now: () => number;
  private readonly extra: NonNullable<ReferenceKernelOptions["extraCommands"]>;

  constructor(options: ReferenceKernelOptions = {}) {
    this.db = openDatabase(options.path ?? ":memory:");
    this.now = options.now ?? Date.now;
    this.extra = options.extraCommands ?? {};
    this.db.exec(KERNEL_SCHEMA);
    this.db.pragma(`user_version = ${KERNEL_SCHEMA_VERSION}`);
    this.sql = statementCache(this.db);
    this.writeTransaction = this.db.transaction((commandName: string, payload: WritePayload, plan: (page: PageRow) => Plan<unknown>) => this.write(commandName, payload, plan));
  }

  close(): void {
    this.db.close();
  }

  /** Any command by name, as the transports and the dispatcher call it. */
  async call<K extends KernelCommandName>(command: K, payload: KernelCommandMap[K]["payload"]): Promise<KernelCommandMap[K]["result"]> {
    return this.execute(command, payload) as KernelCommandMap[K]["result"];
  }

  execute(command: string, payload: unknown): unknown {
    switch (command) {
      case "access.check":
        return this.accessCheckSync(payload as T.AccessCheckPayload);
      case "page.snapshot.read":
        return this.pageSnapshotReadSync(payload as T.PageSnapshotReadPayload);
      case "page.body.save":
        return this.pageBodySaveSync(payload as T.PageBodySavePayload);
      case "page.head.updateTitle":
        return this.pageHeadUpdateTitleSync(payload as T.PageHeadUpdateTitlePayload);
      case "page.layout.updateOptions":
        return this.pageLayoutUpdateOptionsSync(payload as T.PageLayoutUpdateOptionsPayload);
      case "artifact.summary.upsert":
        return this.artifactSummaryUpsertSync(payload as T.ArtifactSummaryUpsertPayload);
      case "artifact.aiNote.create":
        return this.artifactAiNoteCreateSync(payload as T.ArtifactAiNoteCreatePayload);
      case "command.status":
        return commandStatus(this.db, payload as T.CommandStatusPayload, this.now());
    }
    const handler = Object.prototype.hasOwnProperty.call(this.extra, command) ? this.extra[command] : undefined;
    if (!handler) throw new KernelRefusal(ERR.invalidInput, "unknown_command");
    return handler(this, payload);
  }

  async accessCheck(payload: T.AccessCheckPayload): Promise<T.AccessCheckResult> {
    return this.accessCheckSync(payload);
  }
  async commandStatus(payload: T.CommandStatusPayload): Promise<T.CommandStatusResult> {
    return commandStatus(this.db, payload, this.now());
  }
  async pageSnapshotRead(payload: T.PageSnapshotReadPayload): Promise<T.PageSnapshotReadResult> {
    return this.pageSnapshotReadSync(payload);
  }
  async pageBodySave(payload: T.PageBodySavePayload): Promise<T.PageBodySaveResult> {
    return this.pageBodySaveSync(payload);
  }
  async pageHeadUpdateTitle(payload: T.PageHeadUpdateTitlePayload): Promise<T.PageHeadUpdateTitleResult> {
    return this.pageHeadUpdateTitleSync(payload);
  }
  async pageLayoutUpdateOptions(payload: T.PageLayoutUpdateOptionsPayload): Promise<T.PageLayoutUpdateOptionsResult> {
    return this.pageLayoutUpdateOptionsSync(payload);
  }
  async artifactSummaryUpsert(payload: T.ArtifactSummaryUpsertPayload): Promise<T.ArtifactSummaryUpsertResult> {
    return this.artifactSummaryUpsertSync(payload);
  }
  async artifactAiNoteCreate(payload: T.ArtifactAiNoteCreatePayload): Promise<T.ArtifactAiNoteCreateResult> {
    return this.artifactAiNoteCreateSync(payload);
  }

  // ---- access: the design note's check points ----

  access(context: { workspaceId: string; documentId: string; actorId: string }): Access {
    return this.accessWithPage(context).access;
  }

  /** The check points in one query: the user, their membership, and the page if it is in the workspace. */
  private accessWithPage(context: { workspaceId: string; documentId: string; actorId: string }): { access: Access; page?: PageRow } {
    const row = this.sql(
      `SELECT u.active AS active, m.role AS role, p.id AS id, p.workspace_id AS workspace_id, p.title AS title, p.revision AS revision, p.options_json AS options_json
       FROM users u
       LEFT JOIN members m ON m.workspace_id = ? AND m.user_id = u.id
       LEFT JOIN pages p ON p.id = ? AND p.workspace_id = ?
       WHERE u.id = ?`,
    ).get(context.workspaceId, context.documentId, context.workspaceId, context.actorId) as
      { active: number; role: string | null; id: string | null; workspace_id: string; title: string; revision: number; options_json: string } | undefined;
    const authenticated = row !== undefined && row.active === 1;
    const member = authenticated && row!.role !== null;
    const page =
      member && row!.id !== null ? { id: row!.id, workspace_id: row!.workspace_id, title: row!.title, revision: row!.revision, options_json: row!.options_json } : undefined;
    let granted: T.CapabilityScope[] = [];
    if (page) {
      if (row!.role === "owner") granted = [...capabilityScopes];
      else {
        const rows = this.sql("SELECT capability FROM page_grants WHERE page_id = ? AND user_id = ?").all(page.id, context.actorId) as Array<{ capability: string }>;
        const held = new Set(rows.map((r) => r.capability));
        granted = capabilityScopes.filter((c) => held.has(c));
      }
    }
    return { access: { authenticated, member, granted }, page };
  }

  /** Refuses unless the actor holds capability (and what it requires) on the page. */
  requireAccess(context: T.KernelContext, capability: T.CapabilityScope): PageRow {
    const { access, page } = this.accessWithPage(context);
    if (!access.authenticated) throw new KernelRefusal(ERR.notAuthenticated);
    if (!access.member) throw new KernelRefusal(ERR.permissionDenied, "not_member");
    for (const needed of [...capabilities[capability].requires, capability]) {
      if (!access.granted.includes(needed)) throw new KernelRefusal(ERR.permissionDenied, capabilities[needed].deniedReason);
    }
    return page!;
  }

  private accessCheckSync(payload: T.AccessCheckPayload): T.AccessCheckResult {
    return { commandId: null, replayed: false, result: this.access(payload.context) };
  }

  // ---- reads ----

  private pageSnapshotReadSync(payload: T.PageSnapshotReadPayload): T.PageSnapshotReadResult {
    const page = this.requireAccess(payload.context, capabilityFor("page.snapshot.read"));
    const args = payload.args;
    const blocks = this.blocksOf(page.id);
    const result: T.PageGetResult = { documentId: page.id, workspaceId: page.workspace_id, title: page.title, revision: page.revision };
    if (args.includeBody !== false) result.bodySummary = bodySummary(blocks);
    if (args.includeOptions !== false) result.pageOptions = { ...DEFAULT_OPTIONS, ...(JSON.parse(page.options_json) as T.PageOptions) };
    if (args.includeBlocks !== false) result.blocks = blocks;
    return { commandId: null, replayed: false, result };
  }

  // ---- writes ----

  private pageBodySaveSync(payload: T.PageBodySavePayload): T.PageBodySaveResult {
    return this.runWrite("page.body.save", payload, (page) => {
      const current = this.blocksOf(page.id);
      const mode = payload.args.mode ?? "append";
      const next = planBody(current, payload.args.content, mode);
      const diff: T.DiffOp[] =
        mode === "replace" ? [{ op: "replace", blocks: payload.args.content.length, removedBlocks: current.length }] : [{ op: "append", blocks: payload.args.content.length }];
      return {
        diff,
        apply: () => {
          // an empty append changes nothing, so it leaves the revision alone (MCP idempotentHint)
          if (mode === "append" && payload.args.content.length === 0) return { commandName: "page.body.save", revision: page.revision };
          this.sql("DELETE FROM blocks WHERE page_id = ?").run(page.id);
          const insert = this.sql("INSERT INTO blocks (page_id, position, id, type, text, level, checked, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
          next.forEach((b, i) => insert.run(page.id, i, b.id, b.type, b.text, b.level ?? null, b.checked === undefined ? null : b.checked ? 1 : 0, b.language ?? null));
          return { commandName: "page.body.save", revision: this.bumpRevision(page) };
        },
      };
    });
  }

  private pageHeadUpdateTitleSync(payload: T.PageHeadUpdateTitlePayload): T.PageHeadUpdateTitleResult {
    return this.runWrite("page.head.updateTitle", payload, (page) => ({
      diff: [{ op: "set_title", value: payload.args.title }],
      apply: () => {
        // the same title again changes nothing: no new revision, so an identical call is idempotent
        if (payload.args.title === page.title) return { commandName: "page.head.updateTitle", revision: page.revision };
        this.sql("UPDATE pages SET title = ? WHERE id = ?").run(payload.args.title, page.id);
        return { commandName: "page.head.updateTitle", revision: this.bumpRevision(page) };
      },
    }));
  }

  private pageLayoutUpdateOptionsSync(payload: T.PageLayoutUpdateOptionsPayload): T.PageLayoutUpdateOptionsResult {
    return this.runWrite("page.layout.updateOptions", payload, (page) => {
      const changes = Object.entries(payload.args.options) as Array<[keyof T.PageOptions, boolean]>;
      return {
        diff: changes.map(([field, value]) => ({ op: "set_option", field, value })),
        apply: () => {
          // the kernel is the last guard: it stores only the options it applies
          const unwired = changes.find(([field]) => !WIRED_OPTIONS.has(field));
          if (unwired) throw new KernelRefusal(ERR.unsupportedOption, undefined, unwired[0]);
          const current = { ...DEFAULT_OPTIONS, ...(JSON.parse(page.options_json) as T.PageOptions) };
          // options already set as asked change nothing: no new revision, so an identical call is idempotent
          if (changes.every(([field, value]) => current[field] === value)) return { commandName: "page.layout.updateOptions", revision: page.revision };
          const options = { ...(JSON.parse(page.options_json) as T.PageOptions), ...payload.args.options };
          this.sql("UPDATE pages SET options_json = ? WHERE id = ?").run(JSON.stringify(options), page.id);
          return { commandName: "page.layout.updateOptions", revision: this.bumpRevision(page) };
        },
      };
    });
  }

  private artifactSummaryUpsertSync(payload: T.ArtifactSummaryUpsertPayload): T.ArtifactSummaryUpsertResult {
    return this.runWrite("artifact.summary.upsert", payload, (page) => {
      const existing = this.sql("SELECT id FROM artifacts WHERE page_id = ? AND type = 'summary'").get(page.id) as { id: string } | undefined;
      const edge = existing ? this.edgeOf(existing.id, page.id) : undefined;
      return {
        diff: [{ op: existing ? "update_summary" : "create_summary", chars: [...payload.args.summary].length }, { op: edge ? "confirm_edge" : "create_edge" }],
        apply: (commandId) => {
          const context = payload.context;
          let artifactId: string;
          if (existing) {
            artifactId = existing.id;
            this.sql("UPDATE artifacts SET content = ?, updated_command_id = ? WHERE id = ?").run(payload.args.summary, commandId, artifactId);
          } else {
            artifactId = randomId("sum");
            this.sql(
              "INSERT INTO artifacts (id, workspace_id, page_id, type, title, content, created_by, created_command_id, updated_command_id) VALUES (?, ?, ?, 'summary', NULL, ?, ?, ?, ?)",
            ).run(artifactId, context.workspaceId, page.id, payload.args.summary, context.actorId, commandId, commandId);
          }
          const { edgeId, edgeCreated } = this.ensureEdge(artifactId, page.id, commandId);
          return { commandName: "artifact.summary.upsert", artifactId, artifactType: "summary", created: !existing, edgeId, edgeCreated };
        },
      };
    });
  }

  private artifactAiNoteCreateSync(payload: T.ArtifactAiNoteCreatePayload): T.ArtifactAiNoteCreateResult {
    return this.runWrite("artifact.aiNote.create", payload, (page) => ({
      diff: [{ op: "create_ai_note", chars: [...payload.args.content].length }, { op: "create_edge" }],
      apply: (commandId) => {
        const artifactId = randomId("note");
        this.sql(
          "INSERT INTO artifacts (id, workspace_id, page_id, type, title, content, created_by, created_command_id, updated_command_id) VALUES (?, ?, ?, 'ai_note', ?, ?, ?, ?, ?)",
        ).run(artifactId, payload.context.workspaceId, page.id, payload.args.title ?? null, payload.args.content, payload.context.actorId, commandId, commandId);
        const { edgeId, edgeCreated } = this.ensureEdge(artifactId, page.id, commandId);
        return { commandName: "artifact.aiNote.create", artifactId, artifactType: "ai_note", created: true, edgeId, edgeCreated };
      },
    }));
  }

  /**
   * The one way a write happens: access, then the idempotency record, then the base revision, then
   * the change with its command log row and idempotency record, all in one transaction.
   */
  runWrite<R>(
    commandName: WriteCommand | string,
    payload: WritePayload,
    plan: (page: PageRow) => Plan<R>,
  ): { commandId: string | null; replayed: boolean; result: R | T.DryRunResult } {
    return this.writeTransaction.immediate(commandName, payload, plan as (page: PageRow) => Plan<unknown>) as {
      commandId: string | null;
      replayed: boolean;
      result: R | T.DryRunResult;
    };
  }

  private write(commandName: string, payload: WritePayload, plan: (page: PageRow) => Plan<unknown>): { commandId: string | null; replayed: boolean; result: unknown } {
    const page = this.requireAccess(payload.context, capabilityFor(commandName));
    const write = payload.write;
    if (!payload.dryRun) {
      if (!write) throw new KernelRefusal(ERR.invalidInput, "missing_write");
      const replay = this.replayOrConflict(write);
      if (replay) return replay;
    }
    const base = payload.args.baseRevision;
    if (base !== undefined && base !== page.revision) throw new KernelRefusal(ERR.conflict);
    const planned = plan(page);
    if (payload.dryRun) {
      const dry: T.DryRunResult = { dryRun: true, commandName, baseRevision: page.revision, diff: planned.diff };
      return { commandId: null, replayed: false, result: dry };
    }
    const previous = this.sql("SELECT generation FROM idempotency WHERE scope = ?").get(write!.idempotencyScope) as { generation: number } | undefined;
    const generation = (previous?.generation ?? 0) + 1;
    const commandId = generation === 1 ? write!.commandId : `${write!.commandId}_g${generation}`;
    const result = planned.apply(commandId);
    const now = this.now();
    const c = payload.context;
    this.sql(
      `INSERT INTO command_log (command_id, command_name, actor_id, workspace_id, document_id, trace_id, session_id, run_id, tool_call_id,
          idempotency_key, idempotency_scope, fingerprint, outcome, result_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'committed', ?, ?)`,
    ).run(
      commandId,
      commandName,
      c.actorId,
      c.workspaceId,
      c.documentId,
      c.traceId,
      c.sessionId,
      c.runId,
      c.toolCallId,
      write!.idempotencyKey ?? null,
      write!.idempotencyScope,
      write!.fingerprint,
      JSON.stringify(result),
      now,
    );
    this.sql(
      "INSERT INTO idempotency (scope, command_id, fingerprint, generation, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(scope) DO UPDATE SET command_id = excluded.command_id, fingerprint = excluded.fingerprint, generation = excluded.generation, expires_at = excluded.expires_at",
    ).run(write!.idempotencyScope, commandId, write!.fingerprint, generation, now + write!.ttlMs);
    return { commandId, replayed: false, result };
  }

  /** A live record for the same scope: the first outcome again, or a conflict if the request differs. */
  private replayOrConflict(write: T.KernelWrite): { commandId: string; replayed: true; result: unknown } | undefined {
    const record = this.sql("SELECT command_id, fingerprint, expires_at FROM idempotency WHERE scope = ?").get(write.idempotencyScope) as
      { command_id: string; fingerprint: string; expires_at: number } | undefined;
    if (!record || record.expires_at <= this.now()) return undefined;
    if (record.fingerprint !== write.fingerprint) throw new KernelRefusal(ERR.idempotencyConflict);
    const logged = this.sql("SELECT result_json FROM command_log WHERE command_id = ?").get(record.command_id) as { result_json: string };
    return { commandId: record.command_id, replayed: true, result: JSON.parse(logged.result_json) };
  }

  // ---- helpers ----

  pageRow(workspaceId: string, documentId: string): PageRow | undefined {
    return this.sql("SELECT id, workspace_id, title, revision, options_json FROM pages WHERE id = ? AND workspace_id = ?").get(documentId, workspaceId) as PageRow | undefined;
  }

  blocksOf(pageId: string): StoredBlock[] {
    const rows = this.sql("SELECT id, type, text, level, checked, language FROM blocks WHERE page_id = ? ORDER BY position").all(pageId) as Array<{
      id: string;
      type: T.BlockType;
      text: string;
      level: number | null;
      checked: number | null;
      language: string | null;
    }>;
    return rows.map((r) => ({
      id: r.id,
      type: r.type,
      text: r.text,
      ...(r.level !== null ? { level: r.level } : {}),
      ...(r.checked !== null ? { checked: r.checked === 1 } : {}),
      ...(r.language !== null ? { language: r.language } : {}),
    }));
  }

  private bumpRevision(page: PageRow): number {
    const revision = page.revision + 1;
    this.sql("UPDATE pages SET revision = ? WHERE id = ?").run(revision, page.id);
    return revision;
  }

  private edgeOf(fromId: string, toId: string): { id: string } | undefined {
    return this.sql("SELECT id FROM edges WHERE from_id = ? AND to_id = ? AND kind = 'reference'").get(fromId, toId) as { id: string } | undefined;
  }

  /** Creates the reference edge, or confirms the one that is there: never a duplicate. */
  private ensureEdge(fromId: string, toId: string, commandId: string): { edgeId: string; edgeCreated: boolean } {
    const existing = this.edgeOf(fromId, toId);
    if (existing) return { edgeId: existing.id, edgeCreated: false };
    const edgeId = randomId("edge");
    this.sql("INSERT INTO edges (id, from_id, to_id, kind, created_command_id) VALUES (?, ?, ?, 'reference', ?)").run(edgeId, fromId, toId, commandId);
    return { edgeId, edgeCreated: true };
  }
}

/** The page options this kernel stores; the contract marks the same ones wired. */
export const WIRED_OPTIONS: ReadonlySet<string> = new Set<string>(["wideLayout", "smallText"]);
