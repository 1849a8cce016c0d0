/**
 * generated/mcp/tools.ts: the MCP server definition. One MCP tool per contract tool, under its
 * provider-safe name, with the model-facing inputSchema, the response envelope as the model reads
 * it (modelView: toolName is the provider name) as outputSchema (an object at the root, as MCP
 * clients require) and annotations from the tool's semantics.
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

/** Every tool under its provider-safe name; the schemas are the registry's (the response envelope is the output). */
export const mcpTools: readonly McpToolDefinition[] = Object.values(tools).map((tool) => ({
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
