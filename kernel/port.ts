/**
 * What a command handler may use of the kernel: a narrow port, not the ReferenceKernel class.
 * The handlers (kernel/commands/) and their shared helpers (edges.ts) depend on this file only;
 * reference-kernel.ts implements it and registers the handlers, so the imports run one way:
 * port <- commands <- reference-kernel.
 */
import type * as T from "../generated/types";
import type { StoredBlock } from "./blocks";
import type { KernelFacts } from "./facts";

/** What every command answers: the KernelReply result of the generated client. */
export interface CommandReply {
  commandId: string | null;
  replayed: boolean;
  result: unknown;
}

/** A page as the access check loads it. */
export interface PageRow {
  id: string;
  workspace_id: string;
  title: string;
  revision: number;
  options_json: string;
}

/** What a write payload carries, whatever its command. */
export interface WritePayload {
  context: T.KernelContext;
  args: { baseRevision?: number };
  dryRun: boolean;
  write?: T.KernelWrite;
}

/** A write handler's plan: the diff a dry run reports, and the change a real call applies. */
export interface Plan<R> {
  diff: T.DiffOp[];
  apply(commandId: string): R;
}

export type Access = T.AccessCheckResult["result"];

/** The kernel as a handler sees it. */
export interface KernelPort {
  readonly facts: KernelFacts;
  readonly sql: (text: string) => import("better-sqlite3").Statement;
  readonly now: () => number;
  /** The check points in one query: the user, their membership, and the page if it is in the workspace. */
  accessWithPage(context: { workspaceId: string; documentId: string; actorId: string }): {
    access: Access;
    page?: PageRow;
  };
  /** Refuses unless the actor holds the command's capability (and what it requires) on the page. */
  requireAccess(context: T.KernelContext, command: string): PageRow;
  /** Runs a write handler's plan in the one write transaction (dry run: the diff, nothing written). */
  write<R>(command: string, payload: WritePayload, plan: (page: PageRow) => Plan<R>): CommandReply;
  blocksOf(pageId: string): StoredBlock[];
  /** The page's options as page.get reports them: every option, its contract initial value where never set. */
  optionsOf(page: PageRow): Record<string, unknown>;
  /** Revision + 1: only for a change that changes something. */
  bumpRevision(page: PageRow): number;
}

/**
 * One command: the kernel port, the payload (already checked against the contract by whoever sent
 * it), and the command's name as the contract spells it.
 */
export type CommandHandler = (kernel: KernelPort, payload: never, command: string) => CommandReply;
