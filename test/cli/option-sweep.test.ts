/**
 * Every option of every verb, swept (issue 47): a bad value of its kind stops the command before
 * anything starts, with one line and exit 2 (a bad value) or 3 (a resource that cannot be used),
 * never 70; a good value of the same kind is taken. The list of options comes from the CLI itself
 * (programFor), so an option added without a kind here fails the completeness test below.
 *
 * Options checked where commander reads them are swept in this process, with every action replaced
 * by nothing (so an accepted value starts nothing); the ones a verb checks when it runs, and the
 * resources that must answer at start (a Redis, a file, a folder), are run as real processes.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
// the built CLI (dist/): it reads package.json and contract/ beside dist/, and its CliError is the
// class its own exitFor knows
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { programFor } = require("../../dist/cli/main") as typeof import("../../cli/main");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { exitFor } = require("../../dist/cli/exit") as typeof import("../../cli/exit");
import { runCli } from "../support/paths";
import { tempDir } from "../support/tmp";

type Kind =
  | "host"
  | "port"
  | "http-url"
  | "page-url"
  | "redis-url"
  | "duration"
  | "count"
  | "log-level"
  | "non-empty"
  | "state"
  | "allowed-hosts"
  | "allowed-origins"
  | "on-off"
  | "issuer-url";

/** Bad values (each refused with exit 2 unless it says otherwise) and good ones, per kind. */
const VALUES: Record<Kind, { bad: Array<string | [string, number]>; good: string[] }> = {
  host: {
    bad: ["999.1.1.1", "1.2.3", "localhost:80", "http://127.0.0.1", "a..b", "[::1]", " ", "-x.example"],
    good: ["127.0.0.1", "::1", "0.0.0.0", "localhost", "my-host.example"],
  },
  port: { bad: ["65536", "-1", "80.5", "0x50", "1e3", "x", ""], good: ["0", "8787", "65535"] },
  "http-url": {
    bad: ["not-a-url", "nope", "ftp://x", "http://user:pw@h", "http://", ""],
    good: ["http://127.0.0.1:8788", "https://kernel.example/base"],
  },
  // an origin only, https:// or http:// on loopback: its links may carry a sign-in ticket (docs/MCP.md)
  "page-url": {
    bad: [
      "nope",
      "ftp://x",
      "http://203.0.113.5:8080",
      "http://mcp.example",
      "https://mcp.example/mnote",
      "https://mcp.example/?a=1",
      "https://user:pw@mcp.example",
      "",
    ],
    good: ["https://mcp.example", "https://mcp.example:8443/", "http://127.0.0.1:8788", "http://localhost:3000"],
  },
  "redis-url": {
    bad: ["nope", "http://x", "redis://h/x", "redis://", ""],
    good: ["redis://127.0.0.1:6379/0", "rediss://cache.example:6380"],
  },
  duration: { bad: ["0", "1.5", "1e3", "-5", "x", "", "99999999999"], good: ["1", "30000"] },
  count: { bad: ["0", "1.5", "x", "-1", ""], good: ["1", "2"] },
  "log-level": { bad: ["loud", "INFO", ""], good: ["debug", "silent"] },
  "non-empty": { bad: ["", "  "], good: ["x", "/some/path"] },
  // a URL that is not postgres:// is an environment mistake (exit 3): it names a store this is not
  state: { bad: ["", ["redis://127.0.0.1/0", 3], ["mysql://h/db", 3]], good: ["st.db", "postgres://u@h:5432/db"] },
  "allowed-hosts": { bad: ["localhost:80", "http://a.example", "a/b"], good: ["localhost,app.example", "*"] },
  "allowed-origins": { bad: ["app.example", "ftp://a.example"], good: ["https://app.example", "*"] },
  "on-off": { bad: ["yes", "ON", "0", ""], good: ["on", "off"] },
  "issuer-url": { bad: ["not-a-url", "nope", "ftp://x", ""], good: ["https://issuer.example"] },
};

/** The kind of each option that commander checks, by its long name. */
const KIND_OF: Record<string, Kind> = {
  "--host": "host",
  "--port": "port",
  "--kernel-url": "http-url",
  "--url": "http-url",
  "--approval-page-url": "page-url",
  "--store": "redis-url",
  "--grants": "redis-url",
  "--kernel-timeout": "duration",
  "--idempotency-ttl": "duration",
  "--approval-ttl": "duration",
  "--lease": "duration",
  "--request-timeout": "duration",
  "--ttl": "duration",
  "--max-bytes": "count",
  "--workers": "count",
  "--log-level": "log-level",
  "--db": "non-empty",
  "--token": "non-empty",
  "--host-token": "non-empty",
  "--kernel-token": "non-empty",
  "--kernel-cli": "non-empty",
  "--approval-policy": "non-empty",
  "--state": "state",
  "--allowed-hosts": "allowed-hosts",
  "--allowed-origins": "allowed-origins",
  "--budgets": "on-off",
  // the grant's principal (both or neither is checked when the grant is made: test/mcp/oauth-cli)
  "--principal-issuer": "issuer-url",
  "--principal-subject": "non-empty",
};

/**
 * Options a verb checks when it runs (each has a real-process case in RUNTIME_CASES), and free
 * text (ids the grant's schema checks, a folder any path may name). The OAuth options of mcp are
 * checked by their own tests (test/mcp), owned with the OAuth work.
 */
const CHECKED_WHEN_RUN = new Set([
  "generate --config",
  "generate --contract",
  "generate --out",
  "diff --base",
  "diff --format",
  "diff --fail-on",
  "diff --ignore",
  "diff --rules",
  "diff --category",
  "diff --baseline",
  "diff --contract",
  "diff --releases",
  "tools --provider",
  "tools --format",
  "mcp --provider",
  "session grant --scope",
  "session grant --locale",
  "session grant --trace",
  "session grant --session",
  "session grant --workspace",
  "session grant --document",
  "session grant --actor",
  "hermes install --hermes-home",
]);
const FREE_TEXT = new Set(["mcp --session", "diff --changelog"]);
const OAUTH = new Set(["mcp --oauth-issuer", "mcp --oauth-jwks", "mcp --oauth-resource", "mcp --oauth-algorithms"]);

/** The arguments each command needs besides the swept option (its required options). */
const BASE: Record<string, string[]> = {
  mcp: ["--session", "s"],
  "kernel seed": ["seed.json"],
  "session show": ["s"],
  "session revoke": ["s"],
  "session grant": ["--session", "s", "--workspace", "w", "--document", "d", "--actor", "a", "--scope", "page.read"],
};

interface Swept {
  command: string;
  flag: string;
  parsed: boolean;
}

function optionsOf(command: Command, path: string[] = []): Swept[] {
  const here = path.join(" ");
  const own = command.options
    .filter((o) => o.required || o.optional)
    .map((o) => ({ command: here, flag: o.long!, parsed: typeof o.parseArg === "function" }));
  return [...own, ...command.commands.flatMap((c) => optionsOf(c, [...path, c.name()]))];
}

const ALL = optionsOf(programFor(["node", "mnote-tools"]));

/** Parses argv with every action replaced by nothing and no output; the exit code it would end with. */
async function parseOnly(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; line?: string }> {
  const program = programFor(["node", "mnote-tools", ...argv]);
  const quiet = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    if (c.commands.length === 0) c.action(() => undefined);
    c.commands.forEach(quiet);
  };
  quiet(program);
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith("MNOTE_")) delete process.env[k];
  Object.assign(process.env, env);
  try {
    await program.parseAsync(["node", "mnote-tools", ...argv]);
    return { code: 0 };
  } catch (e) {
    const decision = exitFor(e);
    return { code: decision.code, line: decision.message ?? (e as Error).message };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

describe("every option has a kind, or a case where the verb checks it", () => {
  it("the CLI's options are all accounted for (a new option needs a kind here)", () => {
    const unaccounted = ALL.filter(({ command, flag, parsed }) => {
      const name = `${command} ${flag}`;
      if (OAUTH.has(name) || FREE_TEXT.has(name)) return false;
      if (CHECKED_WHEN_RUN.has(name)) return parsed; // a parser now: sweep it instead
      return !(parsed && KIND_OF[flag]);
    });
    expect(unaccounted.map((o) => `${o.command} ${o.flag}${o.parsed ? "" : " (no parser)"}`)).toEqual([]);
    expect(ALL.length).toBeGreaterThan(80);
  });
});

describe("sweep: a bad value of each option's kind is refused at parse, a good one taken", () => {
  const swept = ALL.filter((o) => o.parsed && KIND_OF[o.flag] && !OAUTH.has(`${o.command} ${o.flag}`));
  it.each(swept.map((o) => [`${o.command} ${o.flag}`, o] as const))("%s", async (_name, o) => {
    const base = [...o.command.split(" "), ...(BASE[o.command] ?? [])];
    const { bad, good } = VALUES[KIND_OF[o.flag]!];
    for (const entry of bad) {
      const [value, code] = typeof entry === "string" ? [entry, 2] : entry;
      const result = await parseOnly([...base, o.flag, value]);
      expect({ value, code: result.code }).toEqual({ value, code });
      expect(result.line).not.toMatch(/internal error|\n/);
    }
    for (const value of good)
      expect({ value, ...(await parseOnly([...base, o.flag, value])) }).toEqual({ value, code: 0 });
  });

  it("a bad value from an environment variable is refused the same way, naming the variable", async () => {
    expect(await parseOnly(["serve"], { MNOTE_TOOLS_PORT: "80.5" })).toMatchObject({ code: 2 });
    expect(await parseOnly(["serve"], { MNOTE_KERNEL_URL: "nope" })).toMatchObject({ code: 2 });
    expect(await parseOnly(["call"], { MNOTE_TOOLS_STORE: "nope" })).toMatchObject({ code: 2 });
    expect(await parseOnly(["serve"], { MNOTE_TOOLS_PORT: "8787" })).toEqual({ code: 0 });
  });
});

/** Runs the CLI in a scratch folder with no MNOTE_* variables; at most 60 s (it must not start). */
function cli(args: string[], options: { cwd?: string; input?: string } = {}) {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("MNOTE_") && !k.startsWith("OTEL_")) env[k] = v;
  const cwd = options.cwd ?? tempDir("mnote-sweep-");
  const run = runCli(args, { cwd, input: options.input ?? "", env, timeoutMs: 60_000 });
  const lines = (run.stderr ?? "").split("\n").filter((l) => l !== "");
  return { status: run.status, lines, stderr: run.stderr, cwd };
}

describe("checked when the verb runs, and resources that must answer at start: one line, exit 2 or 3", () => {
  const contract = join(__dirname, "..", "..", "contract");
  const releases = join(__dirname, "..", "..", "contract-releases");
  const diff = ["diff", "--contract", contract, "--releases", releases];
  const grant = (scratch: string) => ["session", "grant", "--state", join(scratch, "st.db"), ...BASE["session grant"]!];
  const scratch = tempDir("mnote-sweep-files-");
  writeFileSync(join(scratch, "a-file"), "");
  const cases: Array<[string, string[], number]> = [
    ["generate --config missing", ["generate", "--config", join(scratch, "none.json")], 3],
    ["generate --contract missing", ["generate", "--contract", join(scratch, "none")], 3],
    ["generate --out a file in the way", ["generate", "--contract", contract, "--out", join(scratch, "a-file")], 3],
    ["diff --format", [...diff, "--format", "x"], 2],
    ["diff --fail-on", [...diff, "--fail-on", "x"], 2],
    ["diff --category", [...diff, "--category", "x"], 2],
    ["diff --base", [...diff, "--base", join(scratch, "none")], 2],
    ["diff --ignore", [...diff, "--ignore", join(scratch, "none")], 3],
    ["diff --rules", [...diff, "--rules", join(scratch, "none")], 3],
    ["diff --baseline", [...diff, "--baseline", join(scratch, "none")], 3],
    ["diff --releases", ["diff", "--contract", contract, "--releases", join(scratch, "none")], 2],
    ["tools --provider", ["tools", "--provider", "x"], 2],
    ["tools --format", ["tools", "--format", "x"], 2],
    ["session grant --scope", [...grant(scratch), "--scope", "x"], 2],
    ["session grant --locale", [...grant(scratch), "--locale", "xx"], 2],
    ["session grant --trace", [...grant(scratch), "--trace", "!!"], 2],
    ["hermes install --hermes-home under /proc", ["hermes", "install", "--hermes-home", "/proc/mnote-none/h"], 3],
    // the list
    ["serve --host 999.1.1.1", ["serve", "--host", "999.1.1.1", "--port", "0", "--db", ":memory:"], 2],
    // TEST-NET-1: an address no machine here has
    ["serve --host 192.0.2.1", ["serve", "--host", "192.0.2.1", "--port", "0", "--db", ":memory:", "--token", "t"], 3],
    ["serve --store unreachable", ["serve", "--port", "0", "--db", ":memory:", "--store", "redis://127.0.0.1:1/0"], 3],
    [
      "serve --grants unreachable",
      ["serve", "--port", "0", "--db", ":memory:", "--grants", "redis://127.0.0.1:1/0"],
      3,
    ],
    ["call --store unreachable", ["call", "--db", ":memory:", "--store", "redis://127.0.0.1:1/0"], 3],
    [
      "serve --approval-policy missing",
      ["serve", "--port", "0", "--db", ":memory:", "--approval-policy", "/none.json"],
      3,
    ],
    ["call --db missing", ["call", "--db", join(scratch, "none.db")], 3],
    // the missing pair: two kernels named
    ["call --kernel-url with --kernel-cli", ["call", "--kernel-url", "http://127.0.0.1:1", "--kernel-cli", "k"], 2],
  ];
  it.concurrent.each(cases)("%s", async (_name, args, code) => {
    const run = cli(args);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: code, stderr: expect.any(String) });
    expect(run.lines).toHaveLength(1);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("--store and --grants name the URL (never its password) when Redis does not answer", () => {
    const run = cli(["serve", "--port", "0", "--db", ":memory:", "--store", "redis://:secret@127.0.0.1:1/0"]);
    expect(run.status).toBe(3);
    expect(run.lines).toEqual([expect.stringContaining("--store redis://:***@127.0.0.1:1/0: Redis does not answer")]);
    expect(run.stderr).not.toContain("secret");
  });

  it("call --state in a folder that does not exist: exit 3, and no folder or state made", () => {
    const cwd = tempDir("mnote-sweep-state-");
    mkdirSync(join(cwd, "real"));
    const run = cli(["call", "--db", ":memory:", "--state", "typo/dir/st.db"], { cwd, input: "{}" });
    expect(run.status).toBe(3);
    expect(run.lines).toEqual([
      expect.stringMatching(/--state typo\/dir\/st\.db: the folder .*typo\/dir does not exist/),
    ]);
    expect(existsSync(join(cwd, "typo"))).toBe(false);
    // a state file in a folder that is there is still made (its first call answers session_unknown)
    const ok = cli(["call", "--db", ":memory:", "--state", "real/st.db"], { cwd, input: "{}" });
    expect(ok.status).toBe(0);
    expect(existsSync(join(cwd, "real", "st.db"))).toBe(true);
  });
});
