/**
 * A framework tool with no runtime to reach (issue 47: an example died with a TypeError, the tool's
 * "unreachable (3 attempts)" said nothing about what to check): the error names the URL, the system's
 * reason and the likely fix, after the configured attempts, and nothing is left running.
 */
import { createServer } from "node:net";
import { connectionDispatcher, MnoteConnectionError } from "../../generated/frameworks/connection";

/** A port nothing listens on: taken from the system, then closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

it("names the URL, ECONNREFUSED and `mnote-tools serve`, after retries + 1 attempts", async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const dispatcher = connectionDispatcher({ url, token: "T", retries: 1, timeoutMs: 30_000 });
  const call = { sessionId: "S", toolName: "mnote_page_get", toolCallId: "call_1", arguments: {} };
  const thrown = await dispatcher.callModelTool(call).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(thrown).toBeInstanceOf(MnoteConnectionError);
  expect((thrown as Error).message).toBe(
    `mnote runtime at ${url}: unreachable (ECONNREFUSED: is mnote-tools serve running there?) (2 attempts, one idempotency key)`,
  );
});
