/**
 * `mnote-tools kernel serve`: the reference kernel behind HTTP, the way the runtime reaches mnote's
 * Rust kernel, so the generated HTTP kernel client is exercised for real.
 *   POST /v1/commands/:command   payload in, KernelReply out
 *   GET  /healthz
 */
import { createServer, type Server } from "node:http";
import type { ReferenceKernel } from "./reference-kernel";
import { executeCommand } from "./protocol";
import { withCommandSpan } from "./telemetry";
import { BodyTooLarge, hasBearer, readBody, sendJson } from "../runtime/transports/http-util";

export interface KernelServerOptions {
  kernel: ReferenceKernel;
  token?: string;
  maxBytes?: number;
  log?: (line: Record<string, unknown>) => void;
}

export function createKernelServer(options: KernelServerOptions): Server {
  const log = options.log ?? (() => undefined);
  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (req.method === "GET" && url.pathname === "/healthz") return sendJson(res, 200, { ok: true });
      const m = /^\/v1\/commands\/([A-Za-z0-9.]+)$/.exec(url.pathname);
      if (req.method !== "POST" || !m) return sendJson(res, 404, { error: "no such route" });
      if (options.token && !hasBearer(req, options.token)) return sendJson(res, 401, { error: "a bearer token is required" });
      let payload: unknown;
      try {
        payload = JSON.parse((await readBody(req, options.maxBytes ?? 2 * 1024 * 1024)).toString("utf8"));
      } catch (e) {
        if (e instanceof BodyTooLarge) return sendJson(res, 413, { error: "payload too large" });
        return sendJson(res, 400, { error: "the body is not JSON" });
      }
      const command = m[1]!;
      // one span per command, continuing the runtime's traceparent header (kernel/telemetry)
      const reply = withCommandSpan(command, payload, req.headers, "http", () => executeCommand(options.kernel, command, payload));
      log({
        event: "kernel_command",
        command,
        ok: reply.ok,
        commandId: reply.ok ? ((reply.result as { commandId?: unknown }).commandId ?? null) : null,
        code: reply.ok ? null : reply.error.code,
      });
      sendJson(res, 200, reply);
    } catch (e) {
      log({ event: "kernel_error", message: (e as Error).message });
      if (!res.headersSent) sendJson(res, 500, { error: "internal kernel error" });
    }
  });
}
