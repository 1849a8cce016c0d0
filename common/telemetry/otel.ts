/**
 * The OpenTelemetry API, loaded only once something has registered with it. Until a tracer
 * provider, propagator or context manager is registered globally (our SDK from startTelemetry, or
 * a host application's), every span the API hands out records nothing, every propagation is a
 * no-op and every context is the root one: the runtime then skips the API altogether, which keeps
 * it out of a one-call process's start (`mnote-tools call` loaded it for nothing: a tenth of a cold
 * start, bench/, coldStart). The API registers everything under one global symbol per major
 * version (opentelemetry.js.api.<major>; test/telemetry pins it against the installed API), so its
 * presence says whether anything could record.
 *
 * `@opentelemetry/api` is an optional peer of `@mnote/runtime` (its 1 MB of three builds is most
 * of what a runtime that never traces would install; docs/PACKAGES.md). Whoever registers with the
 * API has it installed; when the runtime still cannot load it (installed where the runtime's
 * folder does not see it), the process is told once, on its warning channel, and runs untraced:
 * a tool call never fails for its telemetry.
 */
import type * as Api from "@opentelemetry/api";
import { isMissingModule, MissingPeerError } from "../optional-peer";

const REGISTERED = Symbol.for("opentelemetry.js.api.1");
let api: typeof Api | undefined;
let missing = false;

/** The API when something is registered with it (then spans may record), else undefined. */
export function activeOtel(): typeof Api | undefined {
  if (api) return api;
  if (missing || (globalThis as Record<symbol, unknown>)[REGISTERED] === undefined) return undefined;
  try {
    // loaded on first use, synchronously: the callers are synchronous wrappers
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (see above)
    api = require("@opentelemetry/api") as typeof Api;
  } catch (e) {
    if (!isMissingModule(e, "@opentelemetry/api")) throw e;
    missing = true;
    const why = new MissingPeerError(
      ["@opentelemetry/api"],
      "tracing the tool calls (OpenTelemetry is registered in this process)",
      e,
    );
    process.emitWarning(`${why.message}; until then the runtime records no spans`, { type: "MissingPeerWarning" });
  }
  return api;
}
