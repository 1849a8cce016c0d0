/**
 * `mnote-tools hermes install`: copies the generated plugin into $HERMES_HOME/plugins/mnote and
 * prints what to add to Hermes' config.yaml and environment.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import { makeFolders } from "../../common/make-folder";
import { CliExit, environmentError } from "../exit";
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
  /** Replace a plugin folder install did not write, or one edited since (it is kept as a backup). */
  force?: boolean;
}

/** The file install writes in the plugin folder: the hash of every file it copied. */
export const INSTALL_RECORD = ".mnote-install.json";

/** sha256 of every file under dir (Python's __pycache__ and the record itself left out), by relative path. */
function fileHashes(dir: string): Record<string, string> {
  const hashes = Object.create(null) as Record<string, string>;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const rel = relative(dir, path);
    if (!entry.isFile() || rel === INSTALL_RECORD || rel.split(/[\\/]/).includes("__pycache__")) continue;
    hashes[rel] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return hashes;
}

/**
 * Why an existing plugin folder must not be replaced without --force: install did not write it (no
 * record), or a file in it changed, appeared or went away since; undefined when it is install's own.
 */
export function foreignPluginFolder(target: string): string | undefined {
  const recorded = new Map<string, unknown>();
  try {
    const record = JSON.parse(readFileSync(join(target, INSTALL_RECORD), "utf8")) as unknown;
    const files = (record as { files?: unknown } | null)?.files;
    if (typeof files !== "object" || files === null || Array.isArray(files)) throw new Error("no files");
    for (const [name, hash] of Object.entries(files)) recorded.set(name, hash);
  } catch {
    return "it was not written by mnote-tools hermes install";
  }
  const now = fileHashes(target);
  const names = new Set([...recorded.keys(), ...Object.keys(now)]);
  const edited = [...names].filter((n) => recorded.get(n) !== now[n]).sort();
  return edited.length ? `it was edited since it was installed (${edited.slice(0, 3).join(", ")})` : undefined;
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
  const backup = existsSync(target) ? keepOrRefuse(home, target, opts.force === true) : undefined;
  rmSync(target, { recursive: true, force: true });
  cpSync(source, target, { recursive: true, filter: (path) => !path.includes("__pycache__") });
  writeFileSync(join(target, INSTALL_RECORD), JSON.stringify({ files: fileHashes(target) }, null, 2) + "\n");
  const env = hermesEnvironmentLines(opts);
  if (backup) console.log(`kept the plugin folder that was there in ${backup}`);
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

/**
 * An existing plugin folder: replaced when install wrote it and nothing changed in it; else refused
 * (exit 3), or with --force moved aside (outside plugins/, where Hermes would load it as a second
 * mnote) and its new place returned.
 */
function keepOrRefuse(home: string, target: string, force: boolean): string | undefined {
  const why = foreignPluginFolder(target);
  if (why === undefined) return undefined;
  if (!force)
    throw environmentError(
      `${target} is there and ${why}: nothing was replaced (move it away, or pass --force to keep it as a backup and install)`,
    );
  const backup = join(home, `mnote-plugin-backup-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  renameSync(target, backup);
  return backup;
}
