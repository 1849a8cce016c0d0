/**
 * `mnote-tools kernel serve`: the reference kernel behind HTTP, the way the runtime reaches mnote's
 * Rust kernel, so the generated HTTP kernel client is exercised for real.
 *   POST /v1/commands/:command   payload in (application/json only), KernelReply out (bearer token)
 *   GET  /healthz                liveness (no token)
 * Secure by default: a token is required unless the caller says `insecureNoAuth` (the CLI binds
 * such a server to loopback only). The Host and Origin checks, the JSON-only bodies, the limits
 * and the timeouts are the shared HTTP layer's (common/http/server.ts).
 */
import type { Server } from "node:http";
import type { ReferenceKernel } from "./reference-kernel";
import { executeCommand } from "./protocol";
import { ERR } from "../generated/registry";
import { HttpError, sendJson } from "../common/http/answer";
import { requireBearer } from "../common/http/auth";
import { decodeUtf8, readBody } from "../common/http/body";
import { createHttpService, type Timeouts } from "../common/http/server";
import type { Logger } from "../common/http/logger";
import { withCommandSpan } from "./telemetry";

export interface KernelServerOptions {
  kernel: ReferenceKernel;
  /** Bearer token every command must carry. Required unless insecureNoAuth is true. */
  token?: string;
  /** Serve without a token (loopback development only; the CLI enforces the loopback bind). */
  insecureNoAuth?: boolean;
  maxBytes?: number;
  log: Logger;
  /** Host names the Host header may carry (default: the loopback names). */
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  timeouts?: Partial<Timeouts>;
}

/** The kernel's HTTP server (not yet listening). Throws when it would run without auth unasked. */
export function createKernelServer(options: KernelServerOptions): Server {
  if (!options.token && !options.insecureNoAuth)
    throw new Error(
      "kernel serve needs a token (--token or MNOTE_KERNEL_TOKEN), or --insecure-no-auth for loopback development",
    );
  const { log } = options;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  return createHttpService({
    log,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    timeouts: options.timeouts,
    routes: [
      { method: "GET", path: "/healthz", handle: ({ res }) => sendJson(res, 200, { ok: true }) },
      {
        method: "POST",
        path: /^\/v1\/commands\/([^/]+)$/,
        handle: async ({ req, res, params }) => {
          if (!options.insecureNoAuth) requireBearer(req, [options.token]);
          const command = params[0]!;
          const text = decodeUtf8(await readBody(req, maxBytes));
          let payload: unknown;
          try {
            if (text === undefined) throw new Error("not UTF-8");
            payload = JSON.parse(text);
          } catch {
            // the same answer as the CLI adapter's: nothing reaches the kernel
            throw new HttpError(400, `the body is not ${text === undefined ? "valid UTF-8" : "JSON"}`, {
              ok: false,
              error: { code: ERR.invalidInput, reason: "not_json" },
            });
          }
          // one span per command, continuing the runtime's traceparent header (kernel/telemetry)
          const reply = withCommandSpan(command, payload, req.headers, "http", () =>
            executeCommand(options.kernel, command, payload),
          );
          log.info(
            {
              event: "kernel_command",
              command,
              ok: reply.ok,
              commandId: reply.ok ? ((reply.result as { commandId?: unknown }).commandId ?? null) : null,
              code: reply.ok ? null : reply.error.code,
            },
            "kernel_command",
          );
          sendJson(res, 200, reply);
        },
      },
    ],
  });
}
