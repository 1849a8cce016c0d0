/**
 * Option values, parsed and checked where commander reads them (its argParser), so a bad value
 * stops the command before it does anything, with one line naming the option, or the environment
 * variable it came from (commander says "from env 'X'"), and exit 2. A value of the wrong kind is
 * refused, never coerced: "1.5" is not a whole number, "0x10" and "1e3" are not decimal digits.
 * Every command builds its options with these, so the rules are written once.
 */
import type { Option } from "commander";

// The helpers of serve's and mcp's parsers, loaded when one of those parsers runs: `call` loads
// none of them (node:net, loaded first here, was 2 to 7 ms of a call's CPU).
/* eslint-disable @typescript-eslint/no-require-imports */
const isIP = (text: string) => (require("node:net") as typeof import("node:net")).isIP(text);
const asymmetricAlgorithms = () =>
  (require("../runtime/transports/jws-algorithms") as typeof import("../runtime/transports/jws-algorithms"))
    .ASYMMETRIC_ALGORITHMS;
const isLoopback = (host: string) =>
  (require("../common/http/loopback") as typeof import("../common/http/loopback")).isLoopback(host);
const approvalPageOrigin = (text: string) =>
  (require("../common/http/page-url") as typeof import("../common/http/page-url")).approvalPageOrigin(text);
/* eslint-enable @typescript-eslint/no-require-imports */

/** Longest delay Node's timers take (2^31 - 1 ms); a larger one fires at once, with a warning. */
/**
 * A value an option's parser refuses. commander recognises it by its code (its own class of the
 * same name has no more to it), so this module does not load commander: `call` parses its options
 * without it (cli/fast-options.ts), and commander, with its help and errors, is loaded only when
 * a command line needs it.
 */
export class InvalidArgumentError extends Error {
  readonly code = "commander.invalidArgument";
  readonly exitCode = 1;
  constructor(message: string) {
    super(message);
    this.name = "InvalidArgumentError";
  }
}

export const MAX_TIMER_MS = 2_147_483_647;

/** The log levels of the servers' logger (common/http/logger.ts). */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** A whole number written in decimal digits, between min and max; the parser of every count and duration. */
export function wholeNumber(what: string, min: number, max: number): (text: string) => number {
  return (text) => {
    const trimmed = text.trim();
    const n = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`Expected ${what}: a whole number from ${min} to ${max}.`);
    return n;
  };
}

/** A TCP port; 0 asks the system for any free one. */
export const parsePort = wholeNumber("a TCP port", 0, 65_535);

/** A positive duration in milliseconds that a timer can hold. */
export const parseMs = wholeNumber("a number of milliseconds", 1, MAX_TIMER_MS);

/** A positive number of seconds (a grant's lifetime: up to 68 years, still a valid date). */
export const parseSeconds = wholeNumber("a number of seconds", 1, MAX_TIMER_MS);

/** How many processes serve runs in (node:cluster): one per core is the useful most; 64 bounds a typo. */
export const parseWorkers = wholeNumber("a number of processes", 1, 64);

/** A positive number of bytes (a request body's limit: up to 1 GiB). */
export const parseBytes = wholeNumber("a number of bytes", 1, 1024 * 1024 * 1024);

/** One of a fixed list of words. */
export function oneOf(values: readonly string[]): (text: string) => string {
  return (text) => {
    if (!values.includes(text)) throw new InvalidArgumentError(`Expected one of ${values.join(", ")}.`);
    return text;
  };
}

/** A redis:// or rediss:// URL (the idempotency store, the grants). */
export function parseRedisUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "redis:" && url.protocol !== "rediss:") || !url.hostname)
    throw new InvalidArgumentError("Expected a redis:// URL, such as redis://127.0.0.1:6379/0.");
  const db = url.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db))
    throw new InvalidArgumentError(`Expected a database number after the port (redis://host:port/0), not "/${db}".`);
  return text;
}

/** An http:// or https:// URL (a remote kernel). */
export function parseHttpUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname)
    throw new InvalidArgumentError("Expected an http:// or https:// URL, such as http://127.0.0.1:8788.");
  if (url.username || url.password)
    throw new InvalidArgumentError("Expected a URL without a user or password: the token goes in --kernel-token.");
  return text;
}

/** The approval page's base (--approval-page-url): an origin only, https:// or http:// on a loopback host. */
export function parseApprovalPageUrl(text: string): string {
  const checked = approvalPageOrigin(text);
  if ("problem" in checked) throw new InvalidArgumentError(checked.problem);
  return checked.origin;
}

/** An OAuth issuer or key-set URL: https://, or http:// on a loopback host (a local test issuer). */
export function parseOAuthUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const loopback = url !== undefined && isLoopback(url.hostname);
  if (!url || !(url.protocol === "https:" || (url.protocol === "http:" && loopback)))
    throw new InvalidArgumentError(
      "Expected an https:// URL (http:// only on a loopback host), such as https://auth.example.com.",
    );
  if (url.username || url.password || url.hash)
    throw new InvalidArgumentError("Expected a URL without a user, password or #fragment.");
  return text;
}

/** A comma-separated list of asymmetric JWS algorithms. */
export function parseJwsAlgorithms(text: string): string[] {
  const list = text
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  const ASYMMETRIC_ALGORITHMS = asymmetricAlgorithms();
  const wrong = list.find((a) => !ASYMMETRIC_ALGORITHMS.includes(a));
  if (list.length === 0 || wrong !== undefined)
    throw new InvalidArgumentError(
      `Expected asymmetric JWS algorithms among ${ASYMMETRIC_ALGORITHMS.join(", ")}${wrong ? `, not ${wrong}` : ""}.`,
    );
  return list;
}

/** Text that must not be empty (a token, a command line). */
export function nonEmpty(text: string): string {
  if (text.trim() === "") throw new InvalidArgumentError("Expected a value, not an empty one.");
  return text;
}

/**
 * An option with a parser, an optional default, and an environment variable it is read from when
 * the flag is absent (the variable's value is checked by the same parser; a bad one is blamed on
 * the variable).
 */
export function option<T>(
  flags: string,
  description: string,
  parse?: (text: string) => T,
  settings: { default?: T | string; env?: string; defaultDescription?: string } = {},
): Option {
  // commander is loaded by the command line that builds options, not by this module (see InvalidArgumentError)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Option: CommanderOption } = require("commander") as typeof import("commander");
  const o = new CommanderOption(flags, description);
  if (parse) o.argParser((value: string) => parse(value));
  if (settings.env) o.env(settings.env);
  if (settings.default !== undefined) o.default(settings.default, settings.defaultDescription);
  return o;
}

/**
 * The address a server listens on: an IP address or a host name, alone (no scheme, port or path).
 * Four dotted numbers that are not an IPv4 address ("999.1.1.1") are refused here: they would
 * otherwise reach the resolver, or the Host check, and end as a crash. A name that does not resolve,
 * or an address this machine does not have, is refused when the server listens (exit 3).
 */
export function parseListenHost(text: string): string {
  const host = text.trim();
  if (host === "") throw new InvalidArgumentError("Expected an address to listen on, not an empty one.");
  if (isIP(host) !== 0) return host;
  if (/^\[.*\]$/.test(host) && isIP(host.slice(1, -1)) === 6)
    throw new InvalidArgumentError(`Expected the IPv6 address without brackets ("${host.slice(1, -1)}").`);
  if (/^[\d.]+$/.test(host))
    throw new InvalidArgumentError(`"${host}" is not an IPv4 address (four numbers from 0 to 255).`);
  if (host.includes(":") || host.includes("/"))
    throw new InvalidArgumentError(
      `"${host}" is not an address: give the host alone, such as 127.0.0.1 or ::1 (the port goes in --port).`,
    );
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
  if (
    host.length > 253 ||
    !host
      .replace(/\.$/, "")
      .split(".")
      .every((l) => label.test(l))
  )
    throw new InvalidArgumentError(`"${host}" is not a host name or an IP address.`);
  return host;
}
