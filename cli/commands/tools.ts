/**
 * `mnote-tools tools --provider <name> [--format json]`: the tool definitions a model sees, as the
 * provider takes them (generated/providers.ts). JSON prints the provider's own tool objects, ready
 * to paste into a request; human prints each tool's name, description, parameters, and the rules
 * the provider cannot carry that the runtime enforces instead.
 */
import { CliExit } from "../exit";

export interface ToolsOptions {
  provider: string;
  format: string;
}

export async function runTools(opts: ToolsOptions): Promise<void> {
  const { PROVIDERS, toolsForProvider } = await import("../../generated/providers");
  const tools = toolsForProvider(opts.provider);
  if (!tools || !["human", "json"].includes(opts.format)) {
    process.stderr.write(
      tools
        ? `unknown format ${opts.format}: human or json\n`
        : `unknown provider ${opts.provider}: one of ${PROVIDERS.join(", ")}\n`,
    );
    throw new CliExit(2);
  }
  if (opts.format === "json") {
    process.stdout.write(
      JSON.stringify(
        tools.map((t) => t.definition),
        null,
        2,
      ) + "\n",
    );
    return;
  }
  const lines: string[] = [`${tools.length} tools for ${opts.provider} (definitions: --format json)`, ""];
  for (const t of tools) {
    lines.push(`${t.name}  (${t.canonicalName})`, `  ${t.description}`);
    const properties = (t.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
    const required = new Set((t.parameters.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(properties))
      lines.push(`  - ${name}: ${JSON.stringify(schema.type ?? "any")}${required.has(name) ? " (required)" : ""}`);
    for (const e of t.enforcedElsewhere)
      lines.push(`  enforced by the ${e.by === "raise" ? "raise step" : "validators"}: ${e.keyword} at ${e.pointer}`);
    lines.push("");
  }
  process.stdout.write(lines.join("\n"));
}
