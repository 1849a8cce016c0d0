/**
 * The config, a target it selects, or an output folder it names is unusable. One type for all of
 * them, so the CLI maps them to one exit code in one place (cli/commands/generate.ts); the message
 * is one line that names what is wrong and the rule it breaks.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}
