/**
 * Issue 28 item 1: an ask can never mint a token that writes unbound. The contract leaves
 * DryRunResult.baseRevision optional; a kernel that omits it (here the reference kernel behind a
 * transport that strips the field, as another kernel might) gets no token, and the call is refused
 * as kernel_misconfigured (no_revision). Before the fix the runtime minted a token with no revision,
 * and the approved replace wiped an edit made after the preview. A token bound to no revision (what
 * such a runtime made) is refused too. The kernel's tables are checked after every answer.
 */
import { randomBytes } from "node:crypto";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { createKernelClient } from "../../generated/kernel/client";
import type { KernelTransport } from "../../generated/kernel/transport";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { executeCommand } from "../../kernel/protocol";
import { seedKernel } from "../../kernel/seed";
import { openDatabase } from "../../common/sqlite";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { requestFingerprint } from "../../runtime/dispatch/keys";
import { newNonce, signApproval, storeBoundKey } from "../../runtime/approval/token";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { demoSeed, failed, hashTables, ok } from "../support/runtime";
import { makeRequest } from "../support/requests";

const ids = {
  sessionId: "s_unbound",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read", "page.write", "artifact.write"],
};
const REPLACE = { content: [{ type: "paragraph", text: "The model's rewrite." }], mode: "replace" };

/** A dispatcher on the contract's levels over the reference kernel, its dry runs with or without baseRevision. */
async function setup(stripRevision: boolean) {
  const kernel = new ReferenceKernel({ path: ":memory:" });
  seedKernel(kernel, demoSeed());
  const transport: KernelTransport = async (command, payload) => {
    const reply = executeCommand(kernel, command, payload);
    const dry = reply.ok ? (reply.result.result as { dryRun?: boolean; baseRevision?: number }) : undefined;
    if (stripRevision && dry?.dryRun === true) delete dry.baseRevision;
    return reply;
  };
  const state = openDatabase(":memory:");
  const grants = new SqliteGrantStore(state);
  await grants.put({
    ...ids,
    capabilityScope: ids.capabilityScope as never,
    expiresAt: new Date(Date.now() + 3600e3).toISOString(),
  });
  const secret = randomBytes(32);
  const idempotency = new SqliteIdempotencyStore(state);
  const dispatcher = createDispatcher({
    kernel: createKernelClient(transport),
    grants,
    idempotency,
    approval: { secret, policy: EMPTY_POLICY },
  });
  const body = () =>
    (
      kernel.db.prepare("SELECT text FROM blocks WHERE page_id = 'doc_1' ORDER BY position").all() as Array<{
        text: string;
      }>
    ).map((r) => r.text);
  // what the dispatcher signs with: the secret bound to this store (a forger who holds the secret)
  const key = storeBoundKey(secret, await idempotency.storeId());
  return { kernel, dispatcher, secret: key, body, close: () => (kernel.close(), state.close()) };
}

describe("approval: no revision to bind, no token", () => {
  it("a kernel whose dry run omits baseRevision: the replace is refused (kernel_misconfigured, no_revision), no token, nothing written", async () => {
    const t = await setup(true);
    try {
      const before = hashTables(t.kernel);
      const r = failed(await t.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, {}, ids)));
      expect([r.error.code, r.error.reason]).toEqual(["mnote_tool_kernel_misconfigured", "no_revision"]);
      expect(r.error.retryable).toBe(false);
      expect(r.error.approval).toBeUndefined();
      expect(JSON.stringify(r)).not.toMatch(/token/);
      expect(hashTables(t.kernel)).toBe(before);
      // a rename asks too: the same refusal
      const rename = failed(
        await t.dispatcher.dispatch(makeRequest("mnote.page.update_title", { title: "X" }, {}, ids)),
      );
      expect(rename.error.reason).toBe("no_revision");
      expect(hashTables(t.kernel)).toBe(before);
      // what is allowed still writes (the kernel is usable; only binding an approval is not)
      ok(await t.dispatcher.dispatch(makeRequest("mnote.page.save", { ...REPLACE, mode: "append" }, {}, ids)));
    } finally {
      t.close();
    }
  });

  it("a token bound to no revision is refused: a colleague's edit after the preview survives", async () => {
    const t = await setup(false);
    try {
      const request = makeRequest("mnote.page.save", REPLACE, {}, ids);
      const token = signApproval(t.secret, {
        sessionId: ids.sessionId,
        toolName: "mnote.page.save",
        fingerprint: requestFingerprint(ids.documentId, REPLACE),
        revision: null,
        expiresAt: Date.now() + 60_000,
        nonce: newNonce(),
      });
      // the colleague appends after the (unbound) preview
      ok(
        await t.dispatcher.dispatch(
          makeRequest("mnote.page.save", { content: [{ type: "paragraph", text: "Colleague" }] }, {}, ids),
        ),
      );
      const before = hashTables(t.kernel);
      const r = failed(await t.dispatcher.dispatch({ ...request, approval: { token } }));
      expect([r.error.code, r.error.reason]).toEqual(["mnote_tool_kernel_misconfigured", "no_revision"]);
      expect(hashTables(t.kernel)).toBe(before);
      expect(t.body()).toContain("Colleague");
    } finally {
      t.close();
    }
  });

  it("the reference kernel sends baseRevision: the same ask gets a token bound to it", async () => {
    const t = await setup(false);
    try {
      const r = failed(await t.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, {}, ids)));
      expect(r.error.code).toBe("mnote_tool_approval_required");
      expect(r.error.approval!.preview.revision).toBe(0);
    } finally {
      t.close();
    }
  });
});
