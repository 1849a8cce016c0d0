/**
 * A `serve` tool server on 127.0.0.1 over a test runtime whose clock the test moves, with the
 * calls the approval page's suites make: ask (approval_required), the host's ticket for its
 * person, the host's retry with the token, and the kernel's count of writes.
 */
import { once } from "node:events";
import { createToolServer } from "../../runtime/transports/tool-server";
import { createLogger } from "../../common/http/logger";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { approvalIdOf } from "../../runtime/approval/token";
import { makeRequest } from "../support/requests";
import { testRuntime, type Actor, type TestRuntime } from "../support/runtime";

export const TOOL_TOKEN = "tool-token-for-page-tests";
export const HOST_TOKEN = "host-token-for-page-tests";
const REPLACE = { content: [{ type: "paragraph", text: "Approved on the page." }], mode: "replace" };

export interface PageWorld {
  t: TestRuntime;
  base: string;
  clock: { now: number };
  as: Actor;
  /** Asks: the approval_required answer's token and record id. */
  ask(as?: Actor): Promise<{ token: string; id: string; summary: string }>;
  /** The host's ticket for a session's person. */
  ticket(sessionId: string): Promise<string>;
  /** The host sends the same call again with the token (a fresh key each time). */
  retry(token: string, as?: Actor): Promise<any>;
  writes(): number;
  close(): Promise<void>;
}

let keys = 0;

export async function pageWorld(): Promise<PageWorld> {
  const clock = { now: Date.now() };
  const t = await testRuntime({ approval: { policy: EMPTY_POLICY }, now: () => clock.now });
  const server = createToolServer({
    runtime: t.runtime,
    token: TOOL_TOKEN,
    hostToken: HOST_TOKEN,
    maxBytes: 1 << 20,
    log: createLogger({ service: "test", level: "silent" }),
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const base = `http://127.0.0.1:${address.port}`;
  const as = await t.session({ actorId: "user_1" });
  const post = async (path: string, token: string, body: unknown) => {
    const r = await fetch(base + path, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return r.json() as Promise<any>;
  };
  const call = (who: Actor, overrides: object) =>
    post(
      "/v1/tools/call",
      TOOL_TOKEN,
      makeRequest("mnote.page.save", REPLACE, { idempotencyKey: `k${++keys}`, ...overrides }, who),
    );
  return {
    t,
    base,
    clock,
    as,
    async ask(who = as) {
      const r = await call(who, {});
      if (r.error?.code !== "mnote_tool_approval_required") throw new Error(`not asked: ${JSON.stringify(r)}`);
      const { token, summary } = r.error.approval;
      return { token, summary, id: approvalIdOf(token)! };
    },
    async ticket(sessionId) {
      const r = await post("/v1/approvals/tickets", HOST_TOKEN, { sessionId });
      if (typeof r.ticket !== "string") throw new Error(`no ticket: ${JSON.stringify(r)}`);
      return r.ticket;
    },
    retry: (token, who = as) => call(who, { approval: { token } }),
    writes: () => t.count("command_log"),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
      await t.close();
    },
  };
}
