/**
 * The HTTP peer for section "http": a bare node:http server that does what any JSON tool endpoint
 * must (check the bearer token, read the body, JSON.parse it, JSON.stringify an envelope) and
 * nothing else. It answers every POST with the envelope given on the command line, so its reply is
 * the same size as serve's page.get reply. With a worker count, it runs in that many processes
 * sharing the port (node:cluster, as `serve --workers` does), so both sides have the same processes.
 * With "validated", it is the real peer of a page.get through serve minus the kernel (issue 33,
 * item 4): it also checks the Host header, looks the tool up in the generated registry and runs
 * that tool's generated request validator on the parsed body, answering 400 when it fails.
 *   node dist/bench/bare-server.js <token> <envelope json> [workers] [validated]   prints {"listening": url}
 */
import cluster from "node:cluster";
import { createServer } from "node:http";
import { toolByName } from "../generated/registry";

const [token, envelopeText, workersText, mode] = process.argv.slice(2);
if (!token || !envelopeText) throw new Error("usage: bare-server <token> <envelope json> [workers] [validated]");
const workers = Number(workersText ?? "1");
const validated = mode === "validated";

/** What the validated peer does to a parsed body: the tool's generated request validator, as serve runs it. */
function accepts(body: unknown): boolean {
  if (!validated) return true;
  const name = (body as { toolName?: unknown } | null)?.toolName;
  const tool = typeof name === "string" ? toolByName(name) : undefined;
  return tool !== undefined && tool.validateRequest(body);
}

if (workers > 1 && cluster.isPrimary) {
  let listening = 0;
  for (let i = 0; i < workers; i++) {
    cluster.fork().on("message", (m: { listening?: string }) => {
      if (m.listening && ++listening === workers)
        process.stdout.write(JSON.stringify({ listening: m.listening }) + "\n");
    });
  }
  process.on("SIGTERM", () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
    cluster.on("exit", () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  });
} else {
  const envelope = JSON.parse(envelopeText) as unknown;
  const expected = `Bearer ${token}`;
  const server = createServer((req, res) => {
    if (validated && !/^127\.0\.0\.1(:\d+)?$/.test(req.headers.host ?? "")) {
      res.writeHead(403).end();
      return;
    }
    if (req.method !== "POST" || req.headers.authorization !== expected) {
      res.writeHead(401).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        if (!accepts(JSON.parse(Buffer.concat(chunks).toString("utf8")))) throw new Error("invalid");
      } catch {
        res.writeHead(400).end();
        return;
      }
      const body = JSON.stringify(envelope);
      res
        .writeHead(200, {
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(body),
        })
        .end(body);
    });
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address() as { port: number };
    const url = `http://127.0.0.1:${address.port}`;
    if (cluster.isWorker) process.send!({ listening: url });
    else process.stdout.write(JSON.stringify({ listening: url }) + "\n");
  });
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => {
      if (cluster.isWorker) cluster.worker?.disconnect();
      process.exit(0);
    });
  });
}
