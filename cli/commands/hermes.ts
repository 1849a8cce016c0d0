/**
 * `mnote-tools hermes install`: copies the generated plugin into $HERMES_HOME/plugins/mnote and
 * prints what to add to Hermes' config.yaml and environment.
 */
import { cpSync, existsSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { makeFolders } from "../../common/make-folder";
import { CliExit } from "../exit";
import { DEFAULT_DB, DEFAULT_STATE } from "../runtime-options";
import { stateLocation } from "../state-url";

export function pluginSourceDir(): string {
  // dist/cli/commands -> the package root
  return resolve(__dirname, "..", "..", "..", "generated", "hermes-plugin", "mnote");
}

export interface HermesInstallOptions {
  hermesHome?: string;
  source?: string;
  /** Where `mnote-tools serve` listens (HTTP transport). */
  url?: string;
  /** The serve's --token; printed as given (it goes into Hermes' own .env). */
  token?: string;
  /** The runtime's state file and the kernel database, for the CLI transport. */
  state?: string;
  db?: string;
}

/**
 * The environment lines Hermes needs, exactly: one block per transport. Paths are absolute
 * (resolved here, where the user runs install), so the plugin never has to guess them from
 * Hermes' working directory.
 */
export function hermesEnvironmentLines(
  opts: HermesInstallOptions,
  cwd = process.cwd(),
): { http: string[]; cli: string[] } {
  const url = opts.url ?? "http://127.0.0.1:8787";
  const token = opts.token ?? process.env.MNOTE_TOOLS_TOKEN;
  const bin = resolve(__dirname, "..", "..", "..", "bin", "mnote-tools.js");
  const given = opts.state ?? process.env.MNOTE_TOOLS_STATE ?? DEFAULT_STATE;
  // a postgres:// URL is passed as it is; a file path is made absolute
  const state = stateLocation(given).kind === "postgres" ? given : resolve(cwd, given);
  const db = resolve(cwd, opts.db ?? process.env.MNOTE_TOOLS_DB ?? DEFAULT_DB);
  return {
    http: [
      `MNOTE_TOOLS_URL=${url}`,
      token ? `MNOTE_TOOLS_TOKEN=${token}` : "MNOTE_TOOLS_TOKEN=<the --token of mnote-tools serve>",
    ],
    cli: [`MNOTE_TOOLS_CLI="${process.execPath} ${bin}"`, `MNOTE_TOOLS_STATE=${state}`, `MNOTE_TOOLS_DB=${db}`],
  };
}

export async function runHermesInstall(opts: HermesInstallOptions): Promise<void> {
  const home = resolve(opts.hermesHome ?? process.env.HERMES_HOME ?? join(homedir(), ".hermes"));
  const source = resolve(opts.source ?? pluginSourceDir());
  if (!existsSync(join(source, "plugin.yaml"))) {
    console.error(`mnote-tools: no generated plugin at ${source}: run mnote-tools generate first`);
    throw new CliExit(3);
  }
  const target = join(home, "plugins", "mnote");
  makeFolders(join(home, "plugins"));
  rmSync(target, { recursive: true, force: true });
  cpSync(source, target, { recursive: true, filter: (path) => !path.includes("__pycache__") });
  const env = hermesEnvironmentLines(opts);
  console.log(`installed the mnote plugin in ${target}

Enable it in ${join(home, "config.yaml")}:

  plugins:
    enabled: [mnote]

and put ONE of these blocks in Hermes' environment (for example ${join(home, ".env")}):

  # over HTTP, to \`mnote-tools serve\`
${env.http.map((l) => `  ${l}`).join("\n")}

  # or through the CLI adapter, on the same machine (the state file must be the one the app registers grants in)
${env.cli.map((l) => `  ${l}`).join("\n")}

The mnote app must register a session grant for each Hermes session (POST /v1/sessions with the
host token, or \`mnote-tools session grant\`), or every call is refused as not authenticated.`);
}
