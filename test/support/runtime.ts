/** A runtime on an in-memory kernel seeded with the demo workspace, and helpers to call its tools. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { createRuntime, type Runtime, type RuntimeOptions } from "../../runtime/runtime";
import { seedKernel } from "../../kernel/seed";
import type { ReferenceKernel } from "../../kernel/reference-kernel";
import type { ToolResponse } from "../../generated/types";
import { repoRoot } from "./paths";
import { makeRequest, sampleArgs } from "./requests";
import { allowAllPolicy } from "./approval";

export const demoSeed = () => JSON.parse(readFileSync(join(repoRoot, "examples", "demo-workspace.json"), "utf8"));

export const ALL_SCOPES = ["page.read", "page.write", "artifact.write"];

export interface Actor {
  sessionId: string;
  workspaceId: string;
  documentId: string;
  actorId: string;
  capabilityScope: string[];
}

export interface TestRuntime {
  runtime: Runtime;
  kernel: ReferenceKernel;
  /** Registers a grant and returns the identity to call with. */
  session(actor: Partial<Actor> & { actorId: string }, options?: { ttlMs?: number; locale?: string }): Promise<Actor>;
  call(
    toolName: string,
    as: Actor,
    args?: Record<string, unknown>,
    overrides?: Record<string, unknown>,
  ): Promise<ToolResponse>;
  /** sha256 over every row of every kernel table: equal before and after means nothing was written. */
  kernelStateHash(): string;
  count(table: string, where?: string, ...params: unknown[]): number;
  close(): Promise<void>;
}

let sessions = 0;

export async function testRuntime(
  options: Partial<RuntimeOptions> = {},
  seed: unknown = demoSeed(),
): Promise<TestRuntime> {
  const runtime = createRuntime({
    kernel: { kind: "embedded", path: ":memory:" },
    statePath: ":memory:",
    // every tool allowed, explicitly: suites about approval pass their own (test/support/approval.ts)
    approval: { policy: allowAllPolicy() },
    // no budgets counted, as the suites' processes (global-setup.js): test/budgets passes its store
    budgets: null,
    ...options,
  });
  const kernel = runtime.embeddedKernel!;
  seedKernel(kernel, seed);
  return {
    runtime,
    kernel,
    async session(actor, opts = {}) {
      const identity: Actor = {
        sessionId: actor.sessionId ?? `sess_${++sessions}`,
        workspaceId: actor.workspaceId ?? "ws_1",
        documentId: actor.documentId ?? "doc_1",
        actorId: actor.actorId,
        capabilityScope: actor.capabilityScope ?? ALL_SCOPES,
      };
      await runtime.grants.put({
        sessionId: identity.sessionId,
        workspaceId: identity.workspaceId,
        documentId: identity.documentId,
        actorId: identity.actorId,
        capabilityScope: identity.capabilityScope as never,
        expiresAt: new Date(Date.now() + (opts.ttlMs ?? 3_600_000)).toISOString(),
        ...(opts.locale ? { locale: opts.locale as "en" } : {}),
      });
      return identity;
    },
    call(toolName, as, args = sampleArgs[toolName]!, overrides = {}) {
      return runtime.dispatcher.dispatch(makeRequest(toolName, args, overrides, as));
    },
    kernelStateHash() {
      return hashTables(kernel);
    },
    count(table, where = "1 = 1", ...params) {
      return (kernel.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...params) as { n: number }).n;
    },
    close: () => runtime.close(),
  };
}

export function hashTables(kernel: ReferenceKernel): string {
  return hashDatabase(kernel.db);
}

/** sha256 over every row of every table of a database (a kernel's, in process or in a file). */
export function hashDatabase(db: Pick<ReferenceKernel["db"], "prepare">): string {
  const hash = createHash("sha256");
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
    name: string;
  }>;
  for (const { name } of tables) {
    hash.update(`#${name}\n`);
    for (const row of db.prepare(`SELECT * FROM ${name} ORDER BY 1, 2`).all()) hash.update(JSON.stringify(row) + "\n");
  }
  return hash.digest("hex");
}

/** hashDatabase of a kernel database file, opened read-only for the moment it takes. */
export function hashDatabaseFile(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return hashDatabase(db);
  } finally {
    db.close();
  }
}

/** Narrows a response to a success, failing the test with the error otherwise. */
export function ok(response: ToolResponse): Extract<ToolResponse, { ok: true }> & { result: Record<string, any> } {
  if (!response.ok) throw new Error(`expected success, got ${response.error.code}: ${response.error.message}`);
  return response as never;
}

export function failed(response: ToolResponse): Extract<ToolResponse, { ok: false }> {
  if (response.ok) throw new Error(`expected a failure, got success ${JSON.stringify(response.result)}`);
  return response as never;
}
