/**
 * `mnote-tools hermes install`: copies the generated plugin into $HERMES_HOME/plugins/mnote and
 * prints what to add to Hermes' config.yaml and environment.
 */
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CliExit } from "../exit";

export function pluginSourceDir(): string {
  // dist/cli/commands -> the package root
  return resolve(__dirname, "..", "..", "..", "generated", "hermes-plugin", "mnote");
}

export async function runHermesInstall(opts: { hermesHome?: string; source?: string }): Promise<void> {
  const home = resolve(opts.hermesHome ?? process.env.HERMES_HOME ?? join(homedir(), ".hermes"));
  const source = resolve(opts.source ?? pluginSourceDir());
  if (!existsSync(join(source, "plugin.yaml"))) {
    console.error(`no generated plugin at ${source}: run mnote-tools generate first`);
    throw new CliExit(2);
  }
  const target = join(home, "plugins", "mnote");
  mkdirSync(join(home, "plugins"), { recursive: true });
  rmSync(target, { recursive: true, force: true });
  cpSync(source, target, { recursive: true, filter: (path) => !path.includes("__pycache__") });
  console.log(`installed the mnote plugin in ${target}

Enable it in ${join(home, "config.yaml")}:

  plugins:
    enabled: [mnote]

and give Hermes a way to reach the runtime (one of):

  MNOTE_TOOLS_URL=http://127.0.0.1:8787   # where \`mnote-tools serve\` listens
  MNOTE_TOOLS_TOKEN=<its --token>

  MNOTE_TOOLS_CLI="node ${resolve(__dirname, "..", "..", "..", "bin", "mnote-tools.js")}"   # the CLI adapter, on the same machine

The mnote app must register a session grant for each Hermes session (POST /v1/sessions with the
host token, or \`mnote-tools session grant\`), or every call is refused as not authenticated.`);
}
