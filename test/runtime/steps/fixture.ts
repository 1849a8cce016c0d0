/**
 * A dispatcher's steps alone: DispatchDeps over a real SQLite idempotency store (in memory) and a
 * scripted kernel port that records every command, so a step's test asserts what reached the
 * kernel and what the store holds afterwards, without the rest of the pipeline.
 */
import { randomBytes } from "node:crypto";
import type * as T from "../../../generated/types";
import { toolByName } from "../../../generated/registry";
import { openDatabase } from "../../../common/sqlite";
import { SqliteGrantStore } from "../../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../../runtime/state/sqlite-idempotency-store";
import type { DispatcherOptions, KernelPort } from "../../../runtime/dispatch/api";
import { dispatchDeps, type DispatchDeps, type ToolCall } from "../../../runtime/dispatch/steps/context";
import { scopedCall } from "../../../runtime/dispatch/steps/authorize";
import { makeRequest } from "../../support/requests";

/** One command the kernel port received. */
export interface Sent {
  command: string;
  payload: { dryRun?: boolean; args: Record<string, unknown>; write?: { commandId: string; idempotencyKey: string } };
}

/** A kernel that plans one replaced block on revision 7 and applies every write it is sent. */
export function scriptedKernel() {
  const sent: Sent[] = [];
  const applied = new Map<string, Record<string, unknown>>();
  /** Set to make the next write fail with this error (the kernel then applies nothing). */
  let failNext: unknown;
  /** Set to hold every write until released. */
  let gate: Promise<void> | undefined;
  const port = {
    accessCheck: async () => ({
      commandId: null,
      replayed: false,
      result: { authenticated: true, member: true, granted: [] },
    }),
    commandStatus: async ({ commandId }: { commandId: string }) => {
      const result = applied.get(commandId) ?? null;
      return {
        commandId: null,
        replayed: false,
        result: { applied: result !== null, commandId: result ? commandId : null, result, toolCallId: "call_other" },
      };
    },
    call: async (command: string, payload: Sent["payload"]) => {
      sent.push({ command, payload });
      if (payload.dryRun) {
        const diff = [{ op: "replace", blocks: 1, removedBlocks: 2 }];
        return {
          commandId: null,
          replayed: false,
          result: { dryRun: true, commandName: command, baseRevision: 7, diff },
        };
      }
      if (gate) await gate;
      if (failNext !== undefined) {
        const e = failNext;
        failNext = undefined;
        throw e;
      }
      const write = payload.write!;
      const result = { revision: 8, applied: sent.filter((s) => s.payload.write).length };
      applied.set(write.commandId, result);
      return { commandId: write.commandId, replayed: false, result };
    },
  };
  return {
    port: port as unknown as KernelPort,
    sent,
    applied,
    /** The writes that reached the kernel (dry runs aside). */
    writes: () => sent.filter((s) => s.payload.write !== undefined),
    failNextWrite: (e: unknown) => (failNext = e),
    holdWrites: () => {
      let open!: () => void;
      gate = new Promise<void>((r) => (open = r));
      return () => ((gate = undefined), open());
    },
  };
}

export function stepDeps(overrides: Partial<DispatcherOptions> = {}) {
  const kernel = scriptedKernel();
  const db = openDatabase(":memory:");
  const store = new SqliteIdempotencyStore(db);
  const storeErrors: unknown[] = [];
  const deps: DispatchDeps = dispatchDeps({
    kernel: kernel.port,
    grants: new SqliteGrantStore(db),
    idempotency: store,
    kernelTimeoutMs: null,
    reconcileMs: 50,
    onStoreError: (e) => storeErrors.push(e),
    approval: {
      secret: randomBytes(32),
      policy: { tools: new Map([["mnote.page.save", "ask"]]), sessions: new Map() },
    },
    ...overrides,
  });
  return { deps, kernel, store, storeErrors, close: (): void => void db.close() };
}

export const REPLACE = { content: [{ type: "paragraph", text: "New body." }], mode: "replace" };

/** A page.save call as the steps after authorize see it. */
export function saveCall(args: Record<string, unknown> = REPLACE, overrides: Record<string, unknown> = {}): ToolCall {
  const tool = toolByName("mnote.page.save")!;
  const request = makeRequest("mnote.page.save", args, overrides) as unknown as T.ToolRequest;
  if (!tool.validateRequest(request)) throw new Error(JSON.stringify(tool.validateRequest.errors));
  return scopedCall(tool, request, "en");
}

/** The error a step threw, as a value to assert on. */
export async function thrown(
  run: () => Promise<unknown>,
): Promise<{ code?: string; detail?: Record<string, unknown> }> {
  try {
    await run();
  } catch (e) {
    return e as { code?: string; detail?: Record<string, unknown> };
  }
  throw new Error("expected the step to throw");
}
