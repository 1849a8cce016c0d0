#!/usr/bin/env node
/**
 * mnote-diff, the bin of @mnote/diff: `mnote-tools diff` for a CI that installs only this package
 * (docs/CONTRACT-DIFF.md). The same command (diff/command.ts), the same options (diff/options.ts),
 * the same output and exit codes; the arguments read with node:util's parseArgs, not commander, so
 * the package stays small. 0 no error-severity change; 1 breaking changes (or warnings with
 * --fail-on warning, or an expired ignore entry); 2 usage, or contracts that cannot be compared;
 * 3 a bad ignore, severity or baseline file, or a file that cannot be read; 70 a bug.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DIFF_EXIT, diffCommand, type DiffOptions } from "./command";
import { DIFF_DESCRIPTION, DIFF_OPTIONS, optionKey } from "./options";

const NAME = "mnote-diff";
/** Node's system error codes that mean "the environment" (exit 3), as the CLI has them (cli/exit.ts). */
const SYSTEM = new Set(["ENOENT", "EACCES", "EPERM", "EROFS", "ENOSPC", "EIO", "EISDIR", "ENOTDIR", "EMFILE"]);

function usage(): string {
  const width = Math.max(...DIFF_OPTIONS.map((o) => `${o.flag} ${o.value ?? ""}`.length));
  const lines = DIFF_OPTIONS.map((o) => {
    const flag = `${o.flag} ${o.value ?? ""}`.padEnd(width);
    return `  ${flag}  ${o.description}${o.default !== undefined ? ` (default: "${o.default}")` : ""}`;
  });
  return [
    `Usage: ${NAME} [options]`,
    "",
    DIFF_DESCRIPTION,
    "",
    "Options:",
    ...lines,
    `  ${"--version".padEnd(width)}  the version of @mnote/diff`,
    `  ${"-h, --help".padEnd(width)}  this help`,
    "",
  ].join("\n");
}

/** The arguments as DiffOptions; a `[value]` option given without one (last, or before a flag) is true. */
function parse(argv: string[]): DiffOptions | "help" | "version" {
  const optionalValue = DIFF_OPTIONS.filter((o) => o.value?.startsWith("[")).map((o) => o.flag as string);
  const args = argv.map((a, i) =>
    optionalValue.includes(a) && (i + 1 >= argv.length || argv[i + 1]!.startsWith("-")) ? `${a}=` : a,
  );
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean" },
  };
  for (const o of DIFF_OPTIONS) options[o.flag.slice(2)] = { type: o.value ? "string" : "boolean" };
  const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
  if (values.help) return "help";
  if (values.version) return "version";
  const opts: Record<string, unknown> = {};
  for (const o of DIFF_OPTIONS) {
    const value = values[o.flag.slice(2)] ?? o.default;
    if (value === undefined) continue;
    opts[optionKey(o.flag)] = o.value?.startsWith("[") && value === "" ? true : value;
  }
  return opts as unknown as DiffOptions;
}

/** The exit code of an error the command did not know, with its line on stderr (cli/exit.ts's rules, shortly). */
function exitFor(e: unknown): number {
  const err = e as { name?: string; code?: unknown; message?: string; stack?: string };
  const named = (name: string) => {
    for (let p: unknown = e; p && p !== Error.prototype; p = Object.getPrototypeOf(p))
      if ((p as { constructor?: { name?: string } }).constructor?.name === name) return true;
    return err?.name === name;
  };
  if (named("ContractError")) {
    console.error(`${NAME}: ${err.message}`);
    return DIFF_EXIT.usage;
  }
  if (typeof err?.code === "string" && SYSTEM.has(err.code)) {
    console.error(`${NAME}: ${err.message}`);
    return DIFF_EXIT.environment;
  }
  console.error(`${NAME}: internal error: ${err?.stack ?? String(e)}`);
  console.error(`this is a bug in ${NAME}: please report it with the command you ran and the text above`);
  return 70;
}

function main(argv: string[]): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    console.error(`${NAME}: ${(e as Error).message} (see ${NAME} --help)`);
    return DIFF_EXIT.usage;
  }
  if (parsed === "help") {
    process.stdout.write(usage());
    return DIFF_EXIT.ok;
  }
  if (parsed === "version") {
    const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
      version: string;
    };
    console.log(manifest.version);
    return DIFF_EXIT.ok;
  }
  try {
    return diffCommand(parsed);
  } catch (e) {
    return exitFor(e);
  }
}

process.exitCode = main(process.argv.slice(2));
