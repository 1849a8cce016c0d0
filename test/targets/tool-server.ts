/** The resume-anywhere tests' `serve`: one runtime's tool server over HTTP, which process B calls too. */
import { once } from "node:events";
import type { Server } from "node:http";
import { createToolServer } from "../../runtime/transports/tool-server";
import { createLogger } from "../../common/http/logger";
import type { TestRuntime } from "../support/runtime";

export async function serveRuntime(t: TestRuntime, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const log = createLogger({ service: "test", level: "silent" });
  const server: Server = createToolServer({ runtime: t.runtime, token, maxBytes: 1 << 20, log });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
