/**
 * One CLI error policy (cli/exit.ts): every subcommand, driven with the mistakes people make, ends
 * with the documented exit code (2 usage or invalid value, 3 configuration or environment, 70 only
 * for a bug), one line on stderr, and no stack trace; and nothing is written where the command was
 * refused before acting.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { exitFor, EXIT } from "../../cli/exit";
import { cliPath, repoRoot, runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { tempDir } from "../support/tmp";

const STACK = /\n\s+at /;

/** Runs the CLI in an empty folder with none of the variables that would change its defaults. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = tempDir("mnote-cli-")) {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("MNOTE_") && !k.startsWith("OTEL_")) clean[k] = v;
  const run = runCli(args, { cwd, env: { ...clean, ...env }, timeoutMs: 30_000 });
  return { ...run, cwd };
}

/** Exit code, exactly one line on stderr, no stack; the line is returned for further checks. */
function expectOneLine(run: { status: number | null; stderr: string }, code: number): string {
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: code, stderr: expect.any(String) });
  expect(run.stderr).not.toMatch(STACK);
  const lines = run.stderr.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

const GRANT = ["session", "grant", "--session", "s", "--workspace", "ws_1", "--document", "doc_1", "--actor", "u"];
const GRANT_OK = [...GRANT, "--scope", "page.read"];

describe("usage and invalid option values: exit 2, one line naming the option", () => {
  const cases: Array<[string, string[], RegExp]> = [
    ["serve --port 70000", ["serve", "--port", "70000"], /--port.*'70000'.*0 to 65535/],
    ["serve --port abc", ["serve", "--port", "abc"], /--port.*'abc'/],
    ["session grant --ttl 0", [...GRANT_OK, "--ttl", "0"], /--ttl.*'0'/],
    ["session grant --ttl abc", [...GRANT_OK, "--ttl", "abc"], /--ttl.*'abc'/],
    ["session grant --ttl -5", [...GRANT_OK, "--ttl", "-5"], /--ttl.*'-5'/],
    ["session grant --ttl 1.5", [...GRANT_OK, "--ttl", "1.5"], /--ttl.*'1\.5'/],
    ["serve --max-bytes abc", ["serve", "--max-bytes", "abc"], /--max-bytes.*'abc'/],
    ["mcp --max-bytes abc", ["mcp", "--session", "s", "--http", "--max-bytes", "abc"], /--max-bytes/],
    ["serve --store http://x", ["serve", "--store", "http://x"], /--store.*redis:\/\//],
    ["call --store http://x", ["call", "--store", "http://x"], /--store/],
    ["mcp --store http://x", ["mcp", "--session", "s", "--store", "http://x"], /--store/],
    ["session grant --grants http://x", [...GRANT_OK, "--grants", "http://x"], /--grants/],
    ["serve --kernel-url ftp://x", ["serve", "--kernel-url", "ftp://x"], /--kernel-url.*http/],
    ["serve --kernel-timeout 0", ["serve", "--kernel-timeout", "0"], /--kernel-timeout/],
    ["serve --lease 1.5", ["serve", "--lease", "1.5"], /--lease/],
    ["call --idempotency-ttl 1e3", ["call", "--idempotency-ttl", "1e3"], /--idempotency-ttl/],
    ["serve --request-timeout -1", ["serve", "--request-timeout", "-1"], /--request-timeout/],
    ["serve --log-level loud", ["serve", "--log-level", "loud"], /--log-level.*'loud'/],
    ["kernel serve --port 65536", ["kernel", "serve", "--port", "65536", "--token", "K"], /--port/],
    ["mcp --port x", ["mcp", "--session", "s", "--http", "--port", "x"], /--port/],
    ["serve --token ''", ["serve", "--token", ""], /--token/],
    [
      "both kernels",
      ["call", "--kernel-url", "http://127.0.0.1:1", "--kernel-cli", "x"],
      /--kernel-url and --kernel-cli/,
    ],
    ["diff --bogus", ["diff", "--bogus"], /unknown option '--bogus'.*mnote-tools diff --help/],
    ["generate --chek", ["generate", "--chek"], /unknown option '--chek'.*Did you mean --check\?/],
    ["an unknown command", ["genrate"], /unknown command 'genrate'/],
    ["a missing required option", ["mcp"], /--session/],
    ["session grant without --scope", GRANT, /--scope/],
    ["an unknown option of call", ["call", "--nope"], /--nope/],
    ["an unknown option of tools", ["tools", "--nope"], /--nope/],
    ["an unknown option of kernel seed", ["kernel", "seed", "x.json", "--nope"], /--nope/],
    ["an unknown option of kernel exec", ["kernel", "exec", "--nope"], /--nope/],
    ["an unknown option of session show", ["session", "show", "s", "--nope"], /--nope/],
    ["an unknown option of session revoke", ["session", "revoke", "s", "--nope"], /--nope/],
    ["an unknown option of hermes install", ["hermes", "install", "--nope"], /--nope/],
    ["tools --provider nobody", ["tools", "--provider", "nobody"], /unknown provider nobody/],
    ["diff --format yaml", ["diff", "--format", "yaml"], /--format must be one of/],
    // a port in an allowed host: refused with the entry to write (the Host check ignores ports)
    [
      "serve --allowed-hosts localhost:8787",
      ["serve", "--allowed-hosts", "localhost:8787"],
      /--allowed-hosts.*"localhost:8787" has a port: write the host name alone \("localhost"\)/,
    ],
    [
      "mcp --http --allowed-hosts localhost:8787",
      ["mcp", "--session", "s", "--http", "--allowed-hosts", "127.0.0.1,localhost:8787"],
      /--allowed-hosts.*has a port/,
    ],
    [
      "kernel serve --allowed-hosts [::1]:8788",
      ["kernel", "serve", "--token", "K", "--allowed-hosts", "[::1]:8788"],
      /--allowed-hosts.*"\[::1\]:8788" has a port/,
    ],
    ["serve --allowed-hosts http://x.example", ["serve", "--allowed-hosts", "http://x.example"], /not a host name/],
    // an origin without its scheme could never match a browser's Origin header
    [
      "serve --allowed-origins app.example",
      ["serve", "--allowed-origins", "app.example"],
      /--allowed-origins.*"app\.example" is not an origin.*"https:\/\/app\.example"/,
    ],
    [
      "mcp --http --allowed-origins with a path",
      ["mcp", "--session", "s", "--http", "--allowed-origins", "https://app.example/editor"],
      /--allowed-origins.*not an origin/,
    ],
    [
      "kernel serve --allowed-origins app.example",
      ["kernel", "serve", "--token", "K", "--allowed-origins", "app.example"],
      /--allowed-origins/,
    ],
  ];
  it.each(cases)("%s", (_name, args, message) => {
    const run = cli(args);
    expect(expectOneLine(run, EXIT.usage)).toMatch(message);
    // refused before acting: no state folder, no database
    expect(existsSync(join(run.cwd, ".mnote"))).toBe(false);
  });

  it("a bad value from an environment variable is blamed on the variable, not on the flag", () => {
    const level = expectOneLine(cli(["serve"], { MNOTE_TOOLS_LOG_LEVEL: "verbose" }), EXIT.usage);
    expect(level).toContain("from env 'MNOTE_TOOLS_LOG_LEVEL'");
    expect(level).toContain("'verbose'");
    const port = expectOneLine(cli(["serve"], { MNOTE_TOOLS_PORT: "99999" }), EXIT.usage);
    expect(port).toContain("from env 'MNOTE_TOOLS_PORT'");
    const store = expectOneLine(cli(["call"], { MNOTE_TOOLS_STORE: "http://x" }), EXIT.usage);
    expect(store).toContain("from env 'MNOTE_TOOLS_STORE'");
  });

  it("no command at all is usage too (help on stderr, exit 2); --help and --version are not errors", () => {
    expect(cli([]).status).toBe(EXIT.usage);
    const help = cli(["serve", "--help"]);
    expect(help.status).toBe(EXIT.ok);
    expect(help.stdout).toContain("--port <port>");
    const version = cli(["--version"]);
    expect(version.status).toBe(EXIT.ok);
    // the package's version and the contract's it speaks (an operator reporting a problem names both)
    const contract = JSON.parse(readFileSync(join(repoRoot, "contract", "contract.json"), "utf8"));
    expect(version.stdout).toBe(
      `${JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version} (contract ${contract.name} ${contract.version})\n`,
    );
  });
});

describe("configuration and environment: exit 3, one line", () => {
  it("kernel seed of a file that is not there", () => {
    const run = cli(["kernel", "seed", "missing.json"]);
    expect(expectOneLine(run, EXIT.environment)).toBe(
      "mnote-tools: cannot open missing.json: no such file or directory",
    );
    expect(existsSync(join(run.cwd, ".mnote"))).toBe(false);
  });

  describe("a port already in use", () => {
    let holder: Server;
    let port: number;
    beforeAll(async () => {
      holder = createServer();
      await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
      port = (holder.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((r) => holder.close(() => r())));

    it.each([
      // an empty in-memory kernel: a kernel database file must exist (see "a mistyped --db")
      ["serve", ["serve", "--token", "T", "--db", ":memory:"]],
      ["mcp --http", ["mcp", "--session", "s", "--http", "--token", "T", "--db", ":memory:"]],
      ["kernel serve", ["kernel", "serve", "--token", "K", "--db", ":memory:"]],
    ])("%s", (_name, args) => {
      const line = expectOneLine(cli([...args, "--port", String(port)]), EXIT.environment);
      expect(line).toBe(
        `mnote-tools: cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens there; choose another --port)`,
      );
    });
  });

  it("a database path that is a folder", () => {
    const dir = tempDir("mnote-cli-");
    const line = expectOneLine(
      cli(["kernel", "seed", join(repoRoot, "examples", "demo-workspace.json"), "--db", dir]),
      3,
    );
    expect(line).toContain(`cannot open the database ${dir}`);
  });

  it.each([
    ["call", ["call", "--db", "kernal.db"]],
    ["serve", ["serve", "--token", "T", "--port", "0", "--db", "kernal.db"]],
    ["mcp --http", ["mcp", "--session", "s", "--http", "--token", "T", "--port", "0", "--db", "kernal.db"]],
    ["kernel serve", ["kernel", "serve", "--token", "K", "--port", "0", "--db", "kernal.db"]],
    ["kernel exec", ["kernel", "exec", "--db", "kernal.db"]],
  ])("a mistyped --db (%s) is named, and no empty database is made in its place", (_name, args) => {
    const run = cli(args);
    expect(expectOneLine(run, EXIT.environment)).toBe(
      "mnote-tools: the kernel database kernal.db does not exist (check --db; mnote-tools kernel seed <file> --db kernal.db creates one)",
    );
    expect(existsSync(join(run.cwd, "kernal.db"))).toBe(false);
  });

  it("kernel seed is what creates a kernel database", () => {
    const dir = tempDir("mnote-cli-");
    const seed = cli(["kernel", "seed", join(repoRoot, "examples", "demo-workspace.json"), "--db", "new.db"], {}, dir);
    expect([seed.status, seed.stderr]).toEqual([0, ""]);
    expect(existsSync(join(dir, "new.db"))).toBe(true);
  });

  it("a seed file that is not a seed is the input's fault: exit 2", () => {
    const dir = tempDir("mnote-cli-");
    writeFileSync(join(dir, "seed.json"), JSON.stringify({ users: "nobody" }));
    expect(expectOneLine(cli(["kernel", "seed", "seed.json"], {}, dir), EXIT.usage)).toContain("invalid seed file");
  });

  it("session grants in a Redis that does not answer", () => {
    const line = expectOneLine(cli([...GRANT_OK, "--grants", "redis://:secret@127.0.0.1:9/0"]), EXIT.environment);
    expect(line).toContain("--grants redis://:***@127.0.0.1:9/0: Redis does not answer");
    expect(line).not.toContain("secret");
  });
});

/**
 * A full disk and a read-only filesystem, made for real: a small tmpfs in a private mount
 * namespace (unshare -m, as root, or -rm as a user where user namespaces are allowed). Where
 * neither can be had, the cases say skipped.
 */
function mountNamespace(): string[] | null {
  const dir = tempDir("mnote-mnt-");
  for (const flags of [["-m"], ["-r", "-m"]]) {
    const probe = spawnSync("unshare", [...flags, "sh", "-c", `mount -t tmpfs -o size=64k tmpfs ${dir}`], {
      encoding: "utf8",
    });
    if (probe.status === 0) return flags;
  }
  return null;
}
const unshare = mountNamespace();

/** Runs a shell script in a private mount namespace with a tmpfs at $MNT; $M is the CLI. */
function inTmpfs(script: string) {
  const mnt = tempDir("mnote-mnt-");
  return spawnSync("unshare", [...unshare!, "sh", "-c", script], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: mnt, MNT: mnt, M: `${process.execPath} ${cliPath}` },
    timeout: 60_000,
  });
}

(unshare ? describe : describe.skip)(
  unshare ? "a full disk, a read-only filesystem" : "skipped: a full disk, a read-only filesystem (no unshare -m)",
  () => {
    it("serve on a read-only filesystem: exit 3, one line naming the state file", () => {
      const run = inTmpfs(
        'mount -t tmpfs -o size=1m tmpfs "$MNT" && mount -o remount,ro "$MNT" && cd "$MNT" && $M serve --port 0 --token T --db :memory:',
      );
      expect(expectOneLine(run, EXIT.environment)).toBe(
        "mnote-tools: cannot open the database .mnote/runtime.db: read-only file system (EROFS)",
      );
    });

    it("call on a full disk: exit 3, one line naming the state file", () => {
      const seed = join(repoRoot, "examples", "demo-workspace.json");
      const run = inTmpfs(
        `mount -t tmpfs -o size=4m tmpfs "$MNT" && cd "$MNT" && $M kernel seed ${seed} >/dev/null && ` +
          `(head -c 8000000 /dev/zero > fill 2>/dev/null; true) && echo '{}' | $M call`,
      );
      const line = expectOneLine(run, EXIT.environment);
      expect(line).toMatch(/^mnote-tools: cannot open the database \.mnote\/runtime\.db: .* \(SQLITE_\w+\)$/);
      expect(run.stdout).toBe("");
    });
  },
);

describe("a bug: exit 70, the error with its stack and a line asking to report it", () => {
  it("exitFor: an unexpected error is a bug; typed and system errors are not", () => {
    const bug = exitFor(new TypeError("cannot read properties of undefined"));
    expect(bug.code).toBe(EXIT.bug);
    expect(bug.message).toContain("please report it");
    expect(bug.message).toMatch(STACK);
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), {
      code: "ENOENT",
      syscall: "open",
      path: "x",
    });
    expect(exitFor(enoent)).toEqual({ code: EXIT.environment, message: "cannot open x: no such file or directory" });
    class ConfigError extends Error {}
    expect(exitFor(new ConfigError("targets: must be an array"))).toEqual({
      code: EXIT.environment,
      message: "invalid config: targets: must be an array",
    });
  });

  it("through the process: a failure nothing expected prints the stack and exits 70", () => {
    const inject = join(tempDir("mnote-bug-"), "inject.js");
    writeFileSync(inject, 'JSON.stringify = () => { throw new TypeError("injected bug"); };\n');
    const run = spawnSync(process.execPath, ["--require", inject, cliPath, "tools", "--format", "json"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(run.status).toBe(EXIT.bug);
    expect(run.stderr).toContain("mnote-tools: internal error: injected bug");
    expect(run.stderr).toContain("please report it");
    expect(run.stderr).toMatch(STACK);
  });
});
