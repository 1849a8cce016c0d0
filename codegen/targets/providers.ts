/**
 * generated/providers.ts: the tool definitions a model sees, per provider (canonical, portable,
 * openai-strict, gemini, anthropic), lowered from the contract by codegen/providers/lower.ts.
 * Generation fails (with the tool, the JSON pointer and the rule) when a construct cannot be
 * lowered for a provider without changing its meaning, and when a variant breaks one of its
 * provider's rules (codegen/providers/check.ts): the generator never emits a definition a provider
 * would reject. The rules and sources are in docs/PROVIDERS.md.
 */
import type { Target } from "./target";
import type { ContractModel } from "../model";
import { banner } from "../support/banner";
import { tsLiteral } from "../support/ts-literal";
import { DEFAULT_PROVIDER, PROVIDERS, lowerTools, type ProviderTool } from "../providers/lower";
import { checkVariant } from "../providers/check";

/** Every variant, checked; throws on the first variant a provider would reject. */
export function providerVariants(tools: Parameters<typeof lowerTools>[1]): Record<string, ProviderTool[]> {
  const variants: Record<string, ProviderTool[]> = {};
  for (const provider of PROVIDERS) {
    const lowered = lowerTools(provider, tools);
    const violations = checkVariant(provider, lowered);
    if (violations.length > 0) {
      throw new Error(
        `the ${provider} tool definitions break its rules:\n` +
          violations.map((v) => `  ${v.tool} at ${v.pointer || "(root)"}: ${v.rule}: ${v.message}`).join("\n"),
      );
    }
    variants[provider] = lowered;
  }
  return variants;
}

/** Model-facing text still holding a [[...]] placeholder (one naming no tool), as "file: text" lines. */
export function unresolvedPlaceholders(model: ContractModel): string[] {
  const out: string[] = [];
  const scan = (where: string, text: string) => {
    for (const m of text.matchAll(/\[\[([^\]]*)\]\]/g))
      out.push(`${where}: [[${m[1]}]] names no tool of this contract`);
  };
  for (const t of model.tools)
    scan(t.file, t.modelDescription + JSON.stringify(t.parameters) + JSON.stringify(t.responseSchema));
  for (const e of model.errors) scan("catalog/errors.schema.json", e.modelDescription);
  scan("contract.json", model.toolsetDescription);
  return [...new Set(out)];
}

export const providersTarget: Target = {
  name: "providers",
  emit(model) {
    const unresolved = unresolvedPlaceholders(model);
    if (unresolved.length > 0)
      throw new Error(
        "model-facing text names a tool that does not exist:\n" + unresolved.map((u) => "  " + u).join("\n"),
      );
    const variants = providerVariants(model.tools);
    const content = `${banner(model, "ts")}
import type { RegisteredToolName } from "./registry";

/** The providers a tool definition can be lowered for. */
export const PROVIDERS = ${JSON.stringify(PROVIDERS)} as const;
export type ProviderName = (typeof PROVIDERS)[number];
/** What every surface lists unless told otherwise: one schema OpenAI (non-strict), Anthropic, Gemini's parametersJsonSchema and llama.cpp accept as it is. */
export const DEFAULT_PROVIDER: ProviderName = ${JSON.stringify(DEFAULT_PROVIDER)};

/** What the toolset is for and the workflow in short, for the model (Hermes' toolset description, MCP instructions). */
export const TOOLSET_DESCRIPTION = ${JSON.stringify(model.toolsetDescription)};

/** A contract rule the provider's schema does not carry, and who enforces it instead. */
export interface EnforcedElsewhere {
  readonly pointer: string;
  readonly keyword: string;
  readonly value: unknown;
  readonly by: "raise" | "validators";
}

export interface ProviderToolDefinition {
  readonly canonicalName: RegisteredToolName;
  /** The name the model sees. */
  readonly name: string;
  readonly description: string;
  /** The parameter schema, as this provider takes it. */
  readonly parameters: { readonly type: "object"; readonly [keyword: string]: unknown };
  /** The provider's own tool object (e.g. {type: "function", function: {...}} for OpenAI strict). */
  readonly definition: { readonly [key: string]: unknown };
  readonly enforcedElsewhere: readonly EnforcedElsewhere[];
}

export const providerTools: Readonly<Record<ProviderName, readonly ProviderToolDefinition[]>> = ${tsLiteral(variants)} as never;

/** Whether a string names a provider variant. */
export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** The tool definitions for a provider, or undefined for an unknown name. */
export function toolsForProvider(name: string): readonly ProviderToolDefinition[] | undefined {
  return isProviderName(name) ? providerTools[name] : undefined;
}
`;
    return [{ path: "providers.ts", content }];
  },
};
