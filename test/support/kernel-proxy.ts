/**
 * A proxy in front of a real kernel (`mnote-tools kernel serve`) that injects faults per command:
 * "pass" forwards; "delay" forwards at once (so the kernel commits) and holds the answer back for
 * delayMs, so the runtime gives up waiting and the answer is lost; "lose" forwards, waits for the
 * kernel's answer and then resets the connection (committed, the answer lost, at once); "hold"
 * forwards at once and never answers (a write in flight for as long as the test needs); "fail"
 * answers HTTP 500 without forwarding (the kernel never sees the command). The fault function sees
 * each command in order, so a test can fault the first write only.
 */
import { createServer, request as httpRequest } from "node:http";

export type Fault = "delay" | "fail" | "pass" | "lose" | "hold";

export interface KernelProxy {
  url: string;
  /** Commands seen, in order (command names from the URL). */
  seen: string[];
  close(): Promise<void>;
}

/** Starts the proxy on a free loopback port. */
export async function faultyKernelProxy(
  target: string,
  fault: (command: string, seen: readonly string[]) => Fault,
  delayMs = 3_000,
): Promise<KernelProxy> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const command = decodeURIComponent((req.url ?? "").split("/").pop() ?? "");
    seen.push(command);
    const mode = fault(command, seen);
    if (mode === "fail") {
      req.resume();
      res.writeHead(500);
      res.end("kernel crashed");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const upstream = httpRequest(target + req.url, { method: req.method, headers: req.headers }, (up) => {
        const body: Buffer[] = [];
        up.on("data", (c: Buffer) => body.push(c));
        up.on("end", () => {
          const answer = () => {
            if (res.destroyed) return; // the runtime gave up waiting: the answer is lost
            res.writeHead(up.statusCode ?? 502, { "content-type": "application/json" });
            res.end(Buffer.concat(body));
          };
          if (mode === "lose") res.destroy();
          else if (mode === "hold") return;
          else if (mode === "delay") setTimeout(answer, delayMs);
          else answer();
        });
      });
      upstream.on("error", () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
