/**
 * `mnote-tools call`'s options read without commander. A call is a one-shot process that spends
 * most of its CPU loading code, and commander (with the `node:child_process` it loads whatever the
 * verb) was a tenth of it (docs/BENCHMARKS.md, "`call` cold start by phase"). The options are the
 * same table commander is given (RUNTIME_OPTIONS), read by the same parsers, with commander's
 * rules: a flag's value follows it or its "=", the flag wins over its environment variable, the
 * variable over the default, a default is taken as it is.
 *
 * Only a command line this can read with certainty is read here. Anything else goes to commander,
 * which says what it always said: --help, an unknown or repeated flag, a value that is missing or
 * starts with "-", a value a parser or a choice refuses (from the flag or from the variable).
 */
import { RUNTIME_OPTIONS, type RuntimeCliOptions, type RuntimeOptionSpec } from "./runtime-options";

/** The options of `call <args>`, or undefined: commander is to parse this command line. */
export function fastRuntimeOptions(args: readonly string[], env: NodeJS.ProcessEnv): RuntimeCliOptions | undefined {
  const given = new Map<RuntimeOptionSpec, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const spec = SPEC_BY_FLAG.get(eq === -1 ? arg : arg.slice(0, eq));
    if (spec === undefined || given.has(spec)) return undefined;
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq === -1 && value.startsWith("-"))) return undefined;
    given.set(spec, value);
  }
  const opts: Record<string, unknown> = {};
  for (const spec of RUNTIME_OPTIONS) {
    const text = given.get(spec) ?? (spec.env !== undefined && spec.env in env ? env[spec.env] : undefined);
    if (text === undefined) {
      if (spec.default !== undefined) opts[attributeName(spec)] = spec.default;
      continue;
    }
    if (spec.choices && !spec.choices.includes(text)) return undefined;
    try {
      opts[attributeName(spec)] = spec.parse ? spec.parse(text) : text;
    } catch {
      return undefined;
    }
  }
  return opts as unknown as RuntimeCliOptions;
}

/** "--kernel-url <url>" -> "--kernel-url". */
function flagOf(spec: RuntimeOptionSpec): string {
  return spec.flags.split(" ")[0]!;
}

/** The key commander gives an option's value: "--kernel-url" -> "kernelUrl". */
function attributeName(spec: RuntimeOptionSpec): string {
  return flagOf(spec)
    .slice(2)
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

const SPEC_BY_FLAG = new Map(RUNTIME_OPTIONS.map((spec) => [flagOf(spec), spec]));
