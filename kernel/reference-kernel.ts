/**
 * The reference kernel: what the design note asks of mnote's Rust kernel, on embedded SQLite, so
 * the runtime has a real kernel to talk to on a fresh machine.
 *
 * One path for every command: execute(command, payload) finds the command in the contract and its
 * handler in kernel/commands/ (one file per command, registered in kernel/commands/index.ts), and
 * calls it. A read handler answers directly; a write handler describes its change as a plan and
 * hands it to write(), which runs it in one IMMEDIATE transaction: access, then the idempotency
 * record (replay or conflict), then the base revision, then the change with its command log row and
 * idempotency record. A crash leaves all of it or none of it.
 *
 * Every contract fact (commands, capabilities, wired options and their initial values, the page block
 * limit, how bodySummary is cut) comes from a generated registry through kernel/facts.ts; a
 * contract command without a handler stops the kernel at start-up.
 */
import type * as T from "../generated/types";
import type { KernelCommandMap } from "../generated/kernel/client";
import { KernelRefusal } from "../generated/kernel/transport";
import { ERR, type KernelCommandName } from "../generated/registry";
import { isStoreUnavailable, openDatabase, purgeIfFree, statementCache, type Db } from "../common/sqlite";
import { KERNEL_SCHEMA } from "./schema";
import type { StoredBlock } from "./blocks";
import { generatedFacts, kernelFacts, KernelStartupError, type ContractFacts, type KernelFacts } from "./facts";
import { commandHandlers } from "./commands";
import type { Access, CommandHandler, CommandReply, KernelPort, PageRow, Plan, WritePayload } from "./port";

export type { Access, PageRow, Plan, WritePayload } from "./port";

export interface ReferenceKernelOptions {
  /** SQLite file, or ":memory:" (the default). */
  path?: string;
  now?: () => number;
  /** The contract facts to work from (default: this contract's generated registry). */
  contract?: ContractFacts;
  /** Handlers beyond kernel/commands/ (a test contract's extra command). */
  handlers?: Readonly<Record<string, CommandHandler>>;
}

/** How many expired idempotency records one write removes at most: bounded work per write. */
const PURGE_BATCH = 64;

export class ReferenceKernel implements KernelPort {
  readonly db: Db;
  readonly facts: KernelFacts;
  readonly sql: (text: string) => import("better-sqlite3").Statement;
  readonly now: () => number;
  private readonly handlers: Readonly<Record<string, CommandHandler>>;
  /** Built once: the IMMEDIATE transaction every write runs in. */
  private readonly writeTransaction: import("better-sqlite3").Transaction<
    (command: string, payload: WritePayload, plan: (page: PageRow) => Plan<unknown>) => CommandReply
  >;

  constructor(options: ReferenceKernelOptions = {}) {
    const contract = options.contract ?? generatedFacts;
    this.facts = kernelFacts(contract);
    this.handlers = { ...commandHandlers, ...options.handlers };
    const missing = Object.keys(contract.kernelCommands).filter(
      (name) => !Object.prototype.hasOwnProperty.call(this.handlers, name),
    );
    if (missing.length > 0) {
      throw new KernelStartupError(
        `the reference kernel has no handler for kernel command${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of contract ${contract.contract.name} ${contract.contract.version}: ` +
          `add kernel/commands/<command>.ts and register it in kernel/commands/index.ts`,
      );
    }
    this.db = openDatabase(options.path ?? ":memory:");
    this.now = options.now ?? Date.now;
    this.db.exec(KERNEL_SCHEMA);
    this.sql = statementCache(this.db);
    this.writeTransaction = this.db.transaction(
      (command: string, payload: WritePayload, plan: (page: PageRow) => Plan<unknown>) =>
        this.writeNow(command, payload, plan),
    );
    // records that expired while no one wrote: gone on open (when the database can take it at
    // once: a locked, full or read-only one must not keep the kernel from answering), then a
    // bounded batch per write
    purgeIfFree(this.db, () => this.sql("DELETE FROM idempotency WHERE expires_at <= ?").run(this.now()));
  }

  close(): void {
    this.db.close();
  }

  /**
   * Any contract command by name: the one entry point. Throws KernelRefusal for a refusal (the
   * transports turn it into a KernelReply error).
   */
  execute(command: string, payload: unknown): CommandReply {
    if (!Object.prototype.hasOwnProperty.call(this.facts.contract.kernelCommands, command))
      throw new KernelRefusal(ERR.invalidInput, "unknown_command");
    try {
      return this.handlers[command]!(this, payload as never, command);
    } catch (e) {
      // A full or read-only disk, an I/O error, a lock held past the busy timeout: the write
      // transaction rolled back, nothing was written; the caller may retry later (every transport
      // of the kernel answers this refusal, never a crash).
      if (isStoreUnavailable(e)) throw new KernelRefusal(ERR.storeUnavailable);
      throw e;
    }
  }

  /** execute() behind the kernel client's async signature, as the dispatcher calls it in process. */
  async call<K extends KernelCommandName>(
    command: K,
    payload: KernelCommandMap[K]["payload"],
  ): Promise<KernelCommandMap[K]["result"]> {
    return this.execute(command, payload) as KernelCommandMap[K]["result"];
  }

  /** The dispatcher's permission check (access.check). */
  async accessCheck(payload: T.AccessCheckPayload): Promise<T.AccessCheckResult> {
    return this.execute("access.check", payload) as T.AccessCheckResult;
  }

  /** The runtime's question after a lost answer (command.status): was this write applied? */
  async commandStatus(payload: T.CommandStatusPayload): Promise<T.CommandStatusResult> {
    return this.execute("command.status", payload) as T.CommandStatusResult;
  }

  // ---- access: the design note's check points ----

  /** The check points in one query: the user, their membership, and the page if it is in the workspace. */
  accessWithPage(context: { workspaceId: string; documentId: string; actorId: string }): {
    access: Access;
    page?: PageRow;
  } {
    const row = this.sql(
      `SELECT u.active AS active, m.role AS role, p.id AS id, p.workspace_id AS workspace_id, p.title AS title, p.revision AS revision, p.options_json AS options_json
       FROM users u
       LEFT JOIN members m ON m.workspace_id = ? AND m.user_id = u.id
       LEFT JOIN pages p ON p.id = ? AND p.workspace_id = ?
       WHERE u.id = ?`,
    ).get(context.workspaceId, context.documentId, context.workspaceId, context.actorId) as
      | {
          active: number;
          role: string | null;
          id: string | null;
          workspace_id: string;
          title: string;
          revision: number;
          options_json: string;
        }
      | undefined;
    const authenticated = row !== undefined && row.active === 1;
    const member = authenticated && row.role !== null;
    const page =
      member && row.id !== null
        ? {
            id: row.id,
            workspace_id: row.workspace_id,
            title: row.title,
            revision: row.revision,
            options_json: row.options_json,
          }
        : undefined;
    const scopes = this.facts.contract.capabilityScopes;
    let granted: string[] = [];
    if (page) {
      if (row!.role === "owner") granted = [...scopes];
      else {
        const rows = this.sql("SELECT capability FROM page_grants WHERE page_id = ? AND user_id = ?").all(
          page.id,
          context.actorId,
        ) as Array<{ capability: string }>;
        const held = new Set(rows.map((r) => r.capability));
        granted = scopes.filter((c) => held.has(c));
      }
    }
    return { access: { authenticated, member, granted: granted as T.CapabilityScope[] }, page };
  }

  /** Refuses unless the actor holds the command's capability (and what it requires) on the page. */
  requireAccess(context: T.KernelContext, command: string): PageRow {
    const capability = this.facts.capabilityByCommand.get(command);
    if (!capability) throw new KernelRefusal(ERR.invalidInput, "unknown_command");
    const { access, page } = this.accessWithPage(context);
    if (!access.authenticated) throw new KernelRefusal(ERR.notAuthenticated);
    if (!access.member) throw new KernelRefusal(ERR.permissionDenied, "not_member");
    const capabilities = this.facts.contract.capabilities;
    for (const needed of [...capabilities[capability]!.requires, capability]) {
      if (!(access.granted as string[]).includes(needed))
        throw new KernelRefusal(ERR.permissionDenied, capabilities[needed]!.deniedReason);
    }
    return page!;
  }

  // ---- the one write path ----

  /**
   * Runs a write handler's plan in the write transaction. A dry run returns the plan's diff and
   * writes nothing; a real call applies it once per idempotency scope.
   */
  write<R>(command: string, payload: WritePayload, plan: (page: PageRow) => Plan<R>): CommandReply {
    return this.writeTransaction.immediate(command, payload, plan);
  }

  private writeNow(command: string, payload: WritePayload, plan: (page: PageRow) => Plan<unknown>): CommandReply {
    const page = this.requireAccess(payload.context, command);
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
      const dry: T.DryRunResult = {
        dryRun: true,
        commandName: command,
        baseRevision: page.revision,
        pageTitle: page.title,
        diff: planned.diff,
      };
      return { commandId: null, replayed: false, result: dry };
    }
    const now = this.now();
    this.sql(
      `DELETE FROM idempotency WHERE scope IN (SELECT scope FROM idempotency WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`,
    ).run(now);
    // The generation counts the commands this scope ever committed (the log keeps them all), so a
    // key reused after its record expired, or was purged, gets a fresh command id.
    const { n } = this.sql("SELECT COUNT(*) AS n FROM command_log WHERE idempotency_scope = ?").get(
      write!.idempotencyScope,
    ) as { n: number };
    const generation = n + 1;
    const commandId = generation === 1 ? write!.commandId : `${write!.commandId}_g${generation}`;
    const result = planned.apply(commandId);
    const c = payload.context;
    this.sql(
      `INSERT INTO command_log (command_id, command_name, actor_id, workspace_id, document_id, trace_id, session_id, run_id, tool_call_id,
          idempotency_key, idempotency_scope, fingerprint, outcome, result_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'committed', ?, ?)`,
    ).run(
      commandId,
      command,
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
  private replayOrConflict(write: T.KernelWrite): CommandReply | undefined {
    const record = this.sql("SELECT command_id, fingerprint, expires_at FROM idempotency WHERE scope = ?").get(
      write.idempotencyScope,
    ) as { command_id: string; fingerprint: string; expires_at: number } | undefined;
    if (!record || record.expires_at <= this.now()) return undefined;
    if (record.fingerprint !== write.fingerprint) throw new KernelRefusal(ERR.idempotencyConflict);
    const logged = this.sql("SELECT result_json FROM command_log WHERE command_id = ?").get(record.command_id) as {
      result_json: string;
    };
    return { commandId: record.command_id, replayed: true, result: JSON.parse(logged.result_json) };
  }

  // ---- what handlers share ----

  blocksOf(pageId: string): StoredBlock[] {
    const rows = this.sql(
      "SELECT id, type, text, level, checked, language FROM blocks WHERE page_id = ? ORDER BY position",
    ).all(pageId) as Array<{
      id: string;
      type: T.BlockType;
      text: string;
      level: number | null;
      checked: number | null;
      language: string | null;
    }>;
    return rows.map(
      (r) =>
        ({
          id: r.id,
          type: r.type,
          text: r.text,
          ...(r.level !== null ? { level: r.level } : {}),
          ...(r.checked !== null ? { checked: r.checked === 1 } : {}),
          ...(r.language !== null ? { language: r.language } : {}),
        }) as StoredBlock,
    );
  }

  /** The page's options as page.get reports them: every option, its contract initial value where never set. */
  optionsOf(page: PageRow): Record<string, unknown> {
    return { ...this.facts.optionDefaults, ...(JSON.parse(page.options_json) as Record<string, unknown>) };
  }

  /** Revision + 1: only for a change that changes something. */
  bumpRevision(page: PageRow): number {
    const revision = page.revision + 1;
    this.sql("UPDATE pages SET revision = ? WHERE id = ?").run(revision, page.id);
    return revision;
  }
}
