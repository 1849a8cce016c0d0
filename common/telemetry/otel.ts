/**
 * The OpenTelemetry API, loaded only once something has registered with it. Until a tracer
 * provider, propagator or context manager is registered globally (our SDK from startTelemetry, or
 * a host application's), every span the API hands out records nothing, every propagation is a
 * no-op and every context is the root one: the runtime then skips the API altogether, which keeps
 * it out of a one-call process's start (`mnote-tools call` loaded it for nothing: a tenth of a cold
 * start, bench/, coldStart). The API registers everything under one global symbol per major
 * version (opentelemetry.js.api.<major>; test/telemetry pins it against the installed API), so its
 * presence says whether anything could record.
 */
import type * as Api from "@opentelemetry/api";

const REGISTERED = Symbol.for("opentelemetry.js.api.1");
let api: typeof Api | undefined;

/** The API when something is registered with it (then spans may record), else undefined. */
export function activeOtel(): typeof Api | undefined {
  if (api) return api;
  if ((globalThis as Record<symbol, unknown>)[REGISTERED] === undefined) return undefined;
  // loaded on first use, synchronously: the callers are synchronous wrappers
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (see above)
  api = require("@opentelemetry/api") as typeof Api;
  return api;
}
