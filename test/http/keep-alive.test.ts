/**
 * Keep-alive beyond the clients' pools (issue 29): the shared HTTP layer (`serve`, `mcp --http`,
 * `kernel serve`) keeps an idle connection open 65 s, not Node's 5 s, so a client that paused longer
 * (an agent waiting for a person's approval) sends its next call on the connection it holds instead
 * of one the server already closed (UND_ERR_SOCKET). Checked on a real socket: two requests 6 s
 * apart through one keep-alive agent arrive on one connection.
 */
import { request, Agent } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpService, DEFAULT_TIMEOUTS } from "../../common/http/server";
import { createLogger } from "../../common/http/logger";

jest.setTimeout(60_000);

function get(port: number, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/ping", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("keep-alive beyond the clients' pools", () => {
  it("an idle connection outlives a 6 s pause: the next request reuses it", async () => {
    expect(DEFAULT_TIMEOUTS.keepAliveTimeoutMs).toBeGreaterThan(60_000);
    const server = createHttpService({
      log: createLogger({ service: "test", level: "silent" }),
      routes: [{ method: "GET", path: "/ping", handle: ({ res }) => void res.writeHead(204).end() }],
    });
    expect(server.keepAliveTimeout).toBe(DEFAULT_TIMEOUTS.keepAliveTimeoutMs);
    let connections = 0;
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(port, agent)).toBe(204);
      // longer than Node's default 5 s keep-alive, well short of ours
      await new Promise((r) => setTimeout(r, 6_000));
      expect(await get(port, agent)).toBe(204);
      expect(connections).toBe(1);
    } finally {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
