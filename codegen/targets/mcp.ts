/**
 * generated/mcp/tools.ts: the MCP server definition. One MCP tool per contract tool, under its
 * provider-safe name, with the model-facing inputSchema, the response envelope as the model reads
 * it (modelView: toolName is the provider name) as outputSchema (an object at the root, as MCP
 * clients require) and annotations from the tool's semantics (readOnlyHint from its effect,
 * destructiveHint and idempotentHint from its semantics). Tools are listed sorted by name, so
 * tools/list is the same bytes on every server and every run (a client's cache and a model's
 * prompt cache both see one list); the cache hint says how long a client may keep it.
 */
import type { Target } from "./target";
import { banner } from "../support/banner";
import { tsLiteral } from "../support/ts-literal";

export const mcpTarget: Target = {
  name: "mcp",
  emit(model) {
    const annotations = Object.fromEntries(
      model.tools.map((t) => [
        t.name,
        {
          title: t.title,
          readOnlyHint: t.effect === "read",
          destructiveHint: t.effect === "write" && t.semantics.destructive,
          idempotentHint: t.semantics.idempotent,
          // the tools act on one mnote page, not on an open world
          openWorldHint: false,
        },
      ]),
    );
    const content = `${banner(model, "ts")}
import { modelResponseSchema, tools, type RegisteredToolName } from "../registry";

export interface McpToolAnnotations {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** What an MCP server lists for a tool (tools/list), plus the contract's canonical name. */
export interface McpToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { readonly type: "object"; readonly [keyword: string]: unknown };
  readonly outputSchema: { readonly type: "object"; readonly [keyword: string]: unknown };
  readonly annotations: McpToolAnnotations;
  readonly canonicalName: RegisteredToolName;
}

export const mcpServerInfo = { name: ${JSON.stringify(model.name)}, version: ${JSON.stringify(model.version)} } as const;

/** Annotations from each tool's effect and semantics. */
export const mcpAnnotations: Readonly<Record<RegisteredToolName, McpToolAnnotations>> = ${tsLiteral(annotations)};

/**
 * The cache hint of tools/list and server/discover (2026-07-28 ttlMs/cacheScope): the list depends
 * on the contract and the server's --provider only, never on the caller, so a shared cache may keep
 * it; five minutes bounds how long a client keeps a list a server restart may have changed.
 */
export const mcpCacheHint = { ttlMs: 300_000, cacheScope: "public" } as const;

/** Every tool under its provider-safe name, sorted by it; the schemas are the registry's (the response envelope is the output). */
export const mcpTools: readonly McpToolDefinition[] = Object.values(tools)
  .slice()
  .sort((a, b) => (a.providerName < b.providerName ? -1 : a.providerName > b.providerName ? 1 : 0))
  .map((tool) => ({
  name: tool.providerName,
  title: tool.title,
  description: tool.description,
  inputSchema: { ...tool.parameters, type: "object" },
  // what the model reads: the response envelope with toolName the provider name (modelView)
  outputSchema: { type: "object", ...modelResponseSchema(tool) },
  annotations: mcpAnnotations[tool.name],
  canonicalName: tool.name,
}));
`;
    return [{ path: "mcp/tools.ts", content }];
  },
};
