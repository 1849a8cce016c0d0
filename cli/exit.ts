/**
 * The CLI's one error policy: every way a command can end, as an exit code and at most one line on
 * stderr. The table of codes is in the README ("Exit codes"):
 *
 *   0   done
 *   1   findings: drift (`generate --check`), breaking changes (`diff`), a failed check (`session show`)
 *   2   usage: an unknown command or option, a missing or invalid option value, invalid input named
 *       on the command line (a contract to generate from or compare, a seed file)
 *   3   configuration or environment: an invalid configuration file (the generator config, the
 *       diff's ignore, severity and baseline files), a file that is missing or cannot be read or
 *       written (a full disk, a read-only filesystem), a port in use, a kernel that refuses our
 *       token or cannot be started
 *   70  a bug (EX_SOFTWARE): an error nothing here expected; printed with a "please report" line and
 *       the stack
 *
 * Commands print what they have to say and throw CliExit, or throw CliError with the line to print;
 * errors of other modules are mapped here by type (TYPED_ERRORS, SYSTEM_ERRORS), so a module that
 * throws a typed error gets the right exit code by adding one row, not by catching in every verb.
 */

/** Exit codes, by meaning. */
export const EXIT = { ok: 0, findings: 1, usage: 2, environment: 3, bug: 70 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Thrown by a verb to end the process with a code after it has printed what it had to say. */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** A user-facing failure: the message is printed as one line, the process exits with the code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: ExitCode = EXIT.usage,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** An invalid option value or usage (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** A configuration or environment problem (exit 3). */
export function environmentError(message: string): CliError {
  return new CliError(message, EXIT.environment);
}

/**
 * Errors of other modules, by class name (matched along the prototype chain, so a subclass counts;
 * by name so this table loads none of them: `mnote-tools call` must not load the generator to
 * report an error). Their messages are written for people already.
 */
const TYPED_ERRORS: ReadonlyArray<{ name: string; code: ExitCode; prefix?: string }> = [
  { name: "ContractError", code: EXIT.usage }, // the message starts "invalid contract"
  { name: "ConfigError", code: EXIT.environment, prefix: "invalid config: " }, // codegen/config.ts
  { name: "DiffInputError", code: EXIT.usage }, // diff/load/load-base.ts
  { name: "DiffConfigError", code: EXIT.environment }, // diff/load/config-files.ts: ignore, severity, baseline files
  { name: "SeedError", code: EXIT.usage }, // kernel/seed.ts
  { name: "KernelStartupError", code: EXIT.environment }, // kernel/facts.ts: a kernel built for another contract
  { name: "KernelMisconfigured", code: EXIT.environment }, // generated/kernel/transport.ts
  { name: "DatabaseOpenError", code: EXIT.environment }, // common/sqlite.ts
  { name: "StateFileExposedError", code: EXIT.environment }, // runtime/approval/state-file.ts
  { name: "ClusterStartError", code: EXIT.environment }, // common/http/cluster.ts: serve --workers
  { name: "OAuthSetupError", code: EXIT.environment }, // runtime/transports/oauth-keys.ts: the issuer cannot be used
];

/** Node's system error codes that mean "the environment", with the words a person reads. */
const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EIO: "input/output error",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  EEXIST: "already exists",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  EXDEV: "the two paths are on different file systems",
  EADDRINUSE: "the address is already in use (another process listens there; choose another --port)",
  EADDRNOTAVAIL: "the address is not available on this machine (check --host)",
  ENOTFOUND: "the host name does not resolve",
};

/** SQLite result codes (better-sqlite3's SqliteError.code) that mean "the environment". */
const SQLITE_ENVIRONMENT = /^SQLITE_(CANTOPEN|READONLY|FULL|IOERR|PERM|NOTADB|CORRUPT|AUTH|BUSY|LOCKED)/;

export interface ExitDecision {
  code: number;
  /** The line(s) to print on stderr; none when the command printed already. */
  message?: string;
}

/** What the process does for an error that ended a command. Pure, for tests. */
export function exitFor(e: unknown): ExitDecision {
  if (e instanceof CliExit) return { code: e.code };
  if (e instanceof CliError) return { code: e.code, message: e.message };
  const err = e as { code?: unknown; exitCode?: unknown; message?: unknown; syscall?: unknown; path?: unknown };
  if (typeof err?.code === "string" && err.code.startsWith("commander.")) {
    // commander printed its own line. Help asked for and --version are not errors; help shown because
    // no command was given (exit code 1 in commander) is usage, like every other commander error.
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return { code: EXIT.ok };
    if (err.code === "commander.help" && err.exitCode === 0) return { code: EXIT.ok };
    return { code: EXIT.usage };
  }
  if (e instanceof Error) {
    // a native module built for another Node.js (a clone built on one version, run on another):
    // said as such, not as the database or the module that happened to load it first
    const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(e.message);
    if (abi)
      return {
        code: EXIT.environment,
        message: `a native module was compiled for another Node.js (NODE_MODULE_VERSION ${abi[1]}; this ${process.version} needs ${abi[2]}): run npm rebuild better-sqlite3 with this Node.js`,
      };
    const typed = TYPED_ERRORS.find((t) => hasClassName(e, t.name));
    if (typed) {
      const prefix = typed.prefix && !e.message.startsWith(typed.prefix) ? typed.prefix : "";
      return { code: typed.code, message: prefix + e.message };
    }
    if (typeof err.code === "string" && err.code in SYSTEM_ERRORS)
      return { code: EXIT.environment, message: systemMessage(e, err.code) };
    if (typeof err.code === "string" && SQLITE_ENVIRONMENT.test(err.code))
      return { code: EXIT.environment, message: `a database could not be used: ${e.message} (${err.code})` };
  }
  return { code: EXIT.bug, message: bugReport(e) };
}

function hasClassName(e: Error, name: string): boolean {
  if (e.name === name) return true;
  for (let p: unknown = Object.getPrototypeOf(e); p && p !== Error.prototype; p = Object.getPrototypeOf(p))
    if ((p as { constructor?: { name?: string } }).constructor?.name === name) return true;
  return false;
}

/** "cannot open missing.json: no such file or directory", from Node's error fields. */
function systemMessage(e: Error, code: string): string {
  const { syscall, path, address, port } = e as NodeJS.ErrnoException & { address?: string; port?: number };
  const words = SYSTEM_ERRORS[code]!;
  if (syscall === "listen" || code === "EADDRINUSE" || code === "EADDRNOTAVAIL")
    return `cannot listen on ${address ?? "the address"}${port !== undefined ? `:${port}` : ""}: ${words}`;
  if (path) return `cannot ${verbOf(syscall)} ${path}: ${words}`;
  return `${e.message.replace(/^[A-Z]+: /, "")} (${words})`;
}

function verbOf(syscall: string | undefined): string {
  if (syscall === "mkdir") return "create the folder";
  if (syscall === "scandir") return "read the folder";
  if (syscall === "spawn" || syscall?.startsWith("spawn ")) return "start";
  if (syscall === "write" || syscall === "rename" || syscall === "unlink") return "write";
  return "open";
}

/** The text of an unexpected error: a bug, to be reported with the stack. */
function bugReport(e: unknown): string {
  const stack = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
  return (
    `internal error: ${e instanceof Error ? e.message : String(e)}\n` +
    `this is a bug in mnote-tools: please report it with the command you ran and the text below\n${stack}`
  );
}

/** Prints the decision's message (prefixed with the program name) and returns the exit code. */
export function reportExit(e: unknown, write: (text: string) => void = (t) => void process.stderr.write(t)): number {
  const decision = exitFor(e);
  if (decision.message !== undefined) write(`mnote-tools: ${decision.message}\n`);
  return decision.code;
}
