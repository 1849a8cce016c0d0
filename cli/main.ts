/**
 * mnote-tools: one CLI, a thin layer over the pure APIs in codegen/ and runtime/.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command, Option } from "commander";
import { reportExit } from "./exit";
import { fastRuntimeOptions } from "./fast-options";
import { addRuntimeOptions, DEFAULT_DB, DEFAULT_STATE } from "./runtime-options";
import { addHttpOptions } from "./http-options";
import { parseState } from "./state-url";
import {
  nonEmpty,
  option,
  parseBytes,
  parseApprovalPageUrl,
  parseHttpUrl,
  parseJwsAlgorithms,
  parseListenHost,
  parseOAuthUrl,
  parsePort,
  parseRedisUrl,
  parseSeconds,
  parseWorkers,
} from "./options";

/**
 * This package's version and the contract version it speaks, "0.1.0 (contract mnote-page-ai-tools
 * 2.0.0)": package.json and contract/contract.json sit two folders above dist/cli/, in the clone and
 * in the published package alike.
 */
function versionText(): string {
  const read = (...path: string[]) =>
    JSON.parse(readFileSync(join(__dirname, "..", "..", ...path), "utf8")) as { name?: string; version: string };
  const contract = read("contract", "contract.json");
  return `${read("package.json").version} (contract ${contract.name} ${contract.version})`;
}

/**
 * Each verb's options and action, by name, in the order `--help` lists them. Each action loads its
 * implementation only when it runs, so `mnote-tools call` does not pay for the generator.
 */
const COMMANDS: Readonly<Record<string, (program: Command) => void>> = {
  generate: addGenerate,
  diff: addDiff,
  call: addCall,
  serve: addServe,
  mcp: addMcp,
  tools: addTools,
  kernel: addKernel,
  session: addSession,
  state: addState,
  hermes: addHermes,
};

/**
 * Runs the command line and returns the process's exit code (cli/exit.ts): it never throws, and
 * prints at most one line on stderr for a user's mistake, a stack only for a bug.
 */
export async function main(argv: readonly string[]): Promise<number> {
  // a call whose options need no more than reading (cli/fast-options.ts) does not load commander
  const callOptions = argv[2] === "call" ? fastRuntimeOptions(argv.slice(3), process.env) : undefined;
  if (callOptions) {
    try {
      await (await import("./commands/call")).runCall(callOptions);
      return 0;
    } catch (e) {
      return reportExit(e);
    }
  }
  const program = programFor(argv);
  oneLineErrors(program);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    return reportExit(e);
  }
}

/**
 * The program with the verbs this command line can reach: only the one it names when its first
 * word is a verb (what that verb parses, prints for --help and refuses is the same either way, and
 * a one-shot `call` does not set up nine other commands), every verb otherwise (the program's
 * help, `help <verb>`, a misspelt verb's "did you mean").
 */
export function programFor(argv: readonly string[]): Command {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Command } = require("commander") as typeof import("commander");
  const program = new Command()
    .name("mnote-tools")
    .description("The mnote page-AI tool contract: generate code from it, and run its tools.")
    .version(versionText(), "-V, --version", "print the version of mnote-tools and of the contract it speaks")
    .exitOverride();
  const verb = argv[2];
  const only = verb !== undefined && Object.hasOwn(COMMANDS, verb) ? COMMANDS[verb] : undefined;
  if (only) only(program);
  else for (const add of Object.values(COMMANDS)) add(program);
  return program;
}

/** generate: the generator, from contract/ to generated/. */
function addGenerate(program: Command): void {
  program
    .command("generate")
    .description("generate types, validators, registry, kernel client, agent surfaces and docs from contract/")
    .option(
      "--config <file>",
      "which targets to run, into which folders, with which options (default: mnote-tools.config.json when there; schema: mnote-tools/config.schema.json)",
    )
    .option("--contract <dir>", "the contract folder (default: the config's, or contract)")
    .option("--out <dir>", "the output folder of targets that name none (default: the config's, or generated)")
    .option("--check", "write nothing; exit 1 when an output folder differs from what would be generated")
    .option("--watch", "regenerate whenever a contract file changes")
    .option("--quiet", "print only problems")
    .option("--no-cache", "neither read nor write the generator's cache (default: in ~/.cache/mnote-tools/codegen)")
    .action(async (opts) => (await import("./commands/generate")).runGenerate(opts));
}

/** diff: the contract against a released one (its options are diff/options.ts's, shared with mnote-diff). */
function addDiff(program: Command): void {
  // loaded here, not at the top: a command line that does not name diff loads nothing of the diff
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DIFF_DESCRIPTION, DIFF_OPTIONS } = require("../diff/options") as typeof import("../diff/options");
  const command = program.command("diff").description(DIFF_DESCRIPTION);
  for (const o of DIFF_OPTIONS) command.option(o.value ? `${o.flag} ${o.value}` : o.flag, o.description, o.default);
  command.action(async (opts) => (await import("./commands/diff")).runDiff(opts));
}

/** call: the CLI JSON adapter. */
function addCall(program: Command): void {
  addRuntimeOptions(
    program
      .command("call")
      .description("the CLI JSON adapter: one request envelope on stdin, one response envelope on stdout"),
  ).action(async (opts) => (await import("./commands/call")).runCall(opts));
}

/** serve: the tools over HTTP. */
function addServe(program: Command): void {
  addRuntimeOptions(
    addHttpOptions(
      program
        .command("serve")
        .description(
          "serve the tools over HTTP (POST /v1/tools/call, POST /v1/tools/model-call, GET /v1/tools, /v1/sessions, /healthz)",
        )
        .addOption(option("--host <host>", "address to listen on", parseListenHost, { default: "127.0.0.1" }))
        .addOption(
          option("--port <port>", "port (0: any free port; the chosen one is printed)", parsePort, {
            default: 8787,
            env: "MNOTE_TOOLS_PORT",
          }),
        )
        .addOption(
          option(
            "--token <token>",
            "bearer token for tool calls (when absent: generated into serve.token beside --state, mode 0600, and its path printed)",
            nonEmpty,
            {
              env: "MNOTE_TOOLS_TOKEN",
            },
          ),
        )
        .addOption(
          option("--host-token <token>", "bearer token the mnote app uses to register session grants", nonEmpty, {
            env: "MNOTE_TOOLS_HOST_TOKEN",
          }),
        )
        .addOption(option("--max-bytes <n>", "largest request body", parseBytes, { default: 1024 * 1024 }))
        .addOption(
          option(
            "--workers <n>",
            "serve in n processes sharing the port and the state (SQLite files in WAL mode, or --store/--grants redis://)",
            parseWorkers,
            { default: 1, env: "MNOTE_TOOLS_WORKERS" },
          ),
        ),
    ),
  ).action(async (opts) => (await import("./commands/serve")).runServe(opts));
}

/** mcp: the tools over MCP. */
function addMcp(program: Command): void {
  addRuntimeOptions(
    addHttpOptions(
      program
        .command("mcp")
        .description(
          "serve the tools over MCP: stdio by default, Streamable HTTP with --http; bound to one session grant",
        )
        .requiredOption(
          "--session <id>",
          "the session grant the server acts under (over HTTP a request may name another with X-Mnote-Session)",
        )
        .option("--http", "serve Streamable HTTP at /mcp instead of stdio")
        .addOption(option("--host <host>", "address to listen on (--http)", parseListenHost, { default: "127.0.0.1" }))
        .addOption(option("--port <port>", "port (--http; 0: any free port)", parsePort, { default: 8789 }))
        .addOption(
          option(
            "--token <token>",
            "bearer token required over HTTP (when absent: generated into mcp.token beside --state, mode 0600, and its path printed)",
            nonEmpty,
            { env: "MNOTE_TOOLS_TOKEN" },
          ),
        )
        .addOption(option("--max-bytes <n>", "largest request body (--http)", parseBytes, { default: 1024 * 1024 }))
        .option(
          "--provider <name>",
          "which tool schemas tools/list shows: canonical, portable (default), openai-strict, gemini, anthropic",
        )
        .addOption(
          option(
            "--approval-page-url <url>",
            "the origin a browser reaches the approval page at (https://, or http:// on loopback; no path), for clients that cannot show a form (default with --http: --oauth-resource's origin, else the address it listens on; stdio: none)",
            parseApprovalPageUrl,
          ),
        )
        .addOption(
          option(
            "--oauth-issuer <url>",
            "also accept bearer JWTs from this OAuth issuer (--http; docs/MCP.md)",
            parseOAuthUrl,
          ),
        )
        .addOption(
          option(
            "--oauth-jwks <url>",
            "the issuer's key set (default: the jwks_uri of its RFC 8414 or OpenID metadata)",
            parseOAuthUrl,
          ),
        )
        .addOption(
          option(
            "--oauth-resource <url>",
            "this server's public /mcp URL, the audience tokens must name (default http://<host>:<port>/mcp)",
            parseHttpUrl,
          ),
        )
        .addOption(
          option(
            "--oauth-algorithms <list>",
            "the token signing algorithms accepted, comma-separated, asymmetric only (default RS256,PS256,ES256,EdDSA)",
            parseJwsAlgorithms,
          ),
        ),
    ),
  ).action(async (opts) => (await import("./commands/mcp")).runMcp(opts));
}

/** tools: the tool definitions a model sees. */
function addTools(program: Command): void {
  program
    .command("tools")
    .description("print the tool definitions a model sees, for one provider")
    .option("--provider <name>", "canonical, portable, openai-strict, gemini or anthropic", "portable")
    .option("--format <format>", "human or json", "human")
    .action(async (opts) => (await import("./commands/tools")).runTools(opts));
}

/** kernel: the embedded reference kernel on its own. */
function addKernel(program: Command): void {
  const kernel = program.command("kernel").description("the embedded reference kernel on its own");
  kernel
    .command("seed <file>")
    .description(
      "load users, workspaces, members, pages and grants from a seed file (see examples/demo-workspace.json)",
    )
    .addOption(dbOption())
    .action(async (file, opts) => (await import("./commands/kernel")).runKernelSeed(file, opts));
  addHttpOptions(
    kernel
      .command("serve")
      .description(
        "serve the kernel over HTTP (POST /v1/commands/:command), as mnote's Rust kernel would be; a token is required",
      )
      .addOption(dbOption())
      .addOption(option("--host <host>", "address to listen on", parseListenHost, { default: "127.0.0.1" }))
      .addOption(option("--port <port>", "port (0: any free port)", parsePort, { default: 8788 }))
      .addOption(
        option("--token <token>", "the bearer token every command must carry", nonEmpty, {
          env: "MNOTE_KERNEL_TOKEN",
        }),
      )
      .option("--insecure-no-auth", "run WITHOUT a token: loopback only, for local development (warns)"),
  ).action(async (opts) => (await import("./commands/kernel")).runKernelServe(opts));
  kernel
    .command("exec")
    .description("the kernel's CLI adapter: one {command, payload} on stdin, one reply on stdout")
    .addOption(dbOption())
    .action(async (opts) => (await import("./commands/kernel")).runKernelExec(opts));
}

/** session: session grants. */
function addSession(program: Command): void {
  const session = program
    .command("session")
    .description("session grants: the trusted binding of a session to an actor, page and scopes");
  session
    .command("grant")
    .description("register a session grant (what the mnote app does when a page-AI panel opens)")
    .addOption(stateOption())
    .addOption(grantsOption())
    .requiredOption("--session <id>", "the Hermes session id")
    .requiredOption("--workspace <id>", "workspace")
    .requiredOption("--document <id>", "page")
    .requiredOption("--actor <id>", "the signed-in user")
    .requiredOption("--scope <list>", "capabilities, comma-separated: page.read,page.write,artifact.write")
    .addOption(option("--ttl <seconds>", "lifetime", parseSeconds, { default: 3600 }))
    .option("--trace <id>", "the trace id every call of the session carries")
    .option("--locale <locale>", "zh-CN or en")
    .addOption(
      option(
        "--principal-issuer <url>",
        "the OAuth issuer of the person this grant is for (with --principal-subject; docs/MCP.md)",
        parseOAuthUrl,
      ),
    )
    .addOption(option("--principal-subject <sub>", "that person's subject (the sub of their tokens)", nonEmpty))
    .action(async (opts) => (await import("./commands/session")).runSessionGrant(opts));
  session
    .command("show <sessionId>")
    .description("print a live grant as JSON")
    .addOption(stateOption())
    .addOption(grantsOption())
    .action(async (id, opts) => (await import("./commands/session")).runSessionShow(id, opts));
  session
    .command("revoke <sessionId>")
    .description("revoke a grant")
    .addOption(stateOption())
    .addOption(grantsOption())
    .action(async (id, opts) => (await import("./commands/session")).runSessionRevoke(id, opts));
}

/** state: the runtime's state. */
function addState(program: Command): void {
  program
    .command("state")
    .description("the runtime's state")
    .command("migrate")
    .description("bring a postgres:// state's schema up to date (serve, mcp and call also do it on start-up)")
    .addOption(stateOption())
    .action(async (opts) => (await import("./commands/state")).runStateMigrate(opts));
}

/** hermes: the generated Hermes plugin. */
function addHermes(program: Command): void {
  const hermes = program.command("hermes").description("the generated Hermes plugin");
  hermes
    .command("install")
    .description("copy the plugin into $HERMES_HOME/plugins/mnote and print the config.yaml lines that enable it")
    .option("--hermes-home <dir>", "Hermes' home folder (default $HERMES_HOME or ~/.hermes)")
    .addOption(
      option("--url <url>", "where mnote-tools serve listens, for the printed MNOTE_TOOLS_URL line", parseHttpUrl, {
        default: "http://127.0.0.1:8787",
      }),
    )
    .addOption(
      option(
        "--token <token>",
        "the serve's --token, for the printed MNOTE_TOOLS_TOKEN line (env MNOTE_TOOLS_TOKEN)",
        nonEmpty,
      ),
    )
    .addOption(
      option(
        "--state <path>",
        "the runtime's state file, for the printed MNOTE_TOOLS_STATE line (env MNOTE_TOOLS_STATE)",
        parseState,
      ),
    )
    .addOption(
      option("--db <path>", "the kernel database, for the printed MNOTE_TOOLS_DB line (env MNOTE_TOOLS_DB)", nonEmpty),
    )
    .option(
      "--force",
      "replace a plugin folder install did not write, or one edited since (it is moved to $HERMES_HOME/mnote-plugin-backup-<time>)",
    )
    .action(async (opts) => (await import("./commands/hermes")).runHermesInstall(opts));
}

/** --state, as session and state take it. */
function stateOption(): Option {
  return option(
    "--state <path|url>",
    "the runtime's state: a SQLite file or postgres://user@host:5432/db",
    parseState,
    {
      default: DEFAULT_STATE,
      env: "MNOTE_TOOLS_STATE",
    },
  );
}

/** --grants, as the session commands take it. */
function grantsOption(): Option {
  return option(
    "--grants <url>",
    "grants in a shared Redis instead of the state file (redis://host:port/db)",
    parseRedisUrl,
    {
      env: "MNOTE_TOOLS_GRANTS",
    },
  );
}

/** --db, as the kernel commands take it. */
function dbOption(): Option {
  return option("--db <path>", "the kernel database", nonEmpty, { default: DEFAULT_DB, env: "MNOTE_TOOLS_DB" });
}

/**
 * commander's errors as one line each on stderr, naming where the help is: "(Did you mean
 * --check?)" joins the line it follows instead of starting a second one.
 */
function oneLineErrors(command: Command, path = "mnote-tools"): void {
  command.configureOutput({
    outputError: (text, write) => write(`mnote-tools: ${text.trim().replace(/\s*\n\s*/g, " ")} (see ${path} --help)\n`),
  });
  for (const sub of command.commands) oneLineErrors(sub, `${path} ${sub.name()}`);
}
