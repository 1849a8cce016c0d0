/**
 * The HTTP peer for section "http": a bare node:http server that does what any JSON tool endpoint
 * must (check the bearer token, read the body, JSON.parse it, JSON.stringify an envelope) and
 * nothing else. It answers every POST with the envelope given on the command line, so its reply is
 * the same size as serve's page.get reply.
 *   node dist/bench/bare-server.js <token> <envelope json>   prints {"listening": url}
 */
import { createServer } from "node:http";

const [token, envelopeText] = process.argv.slice(2);
if (!token || !envelopeText) throw new Error("usage: bare-server <token> <envelope json>");
const envelope = JSON.parse(envelopeText) as unknown;
const expected = `Bearer ${token}`;

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.headers.authorization !== expected) {
    res.writeHead(401).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const body = JSON.stringify(envelope);
    res
      .writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) })
      .end(body);
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address() as { port: number };
  process.stdout.write(JSON.stringify({ listening: `http://127.0.0.1:${address.port}` }) + "\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
