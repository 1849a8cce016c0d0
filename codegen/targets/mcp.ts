/**
 * generated/mcp/tools.ts: the MCP server definition. One MCP tool per contract tool, under its
 * provider-safe name, with the model-facing inputSchema, the response envelope as outputSchema
 * (an object at the root, as MCP clients require) and annotations from the tool's semantics.
 */
import type { Target } from "./target";
import { banner } from "../support/banner";
import { tsLiteral } from "../support/ts-literal";

export const mcpTarget: Target = {
  name: "mcp",
  emit(model) {
    const tools = model.tools.map((t) => ({
      name: t.providerName,
      title: t.title,
      description: t.description,
      inputSchema: t.parameters,
      outputSchema: { type: "object", ...t.responseSchema },
      annotations: {
        title: t.title,
        readOnlyHint: t.effect === "read",
        destructiveHint: t.effect === "write" && t.semantics.destructive,
        idempotentHint: t.semantics.idempotent,
        // the tools act on one mnote page, not on an open world
        openWorldHint: false,
      },
      canonicalName: t.name,
    }));
    const content = `${banner(model, "ts")}
import type { RegisteredToolName } from "../registry";

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

export const mcpTools: readonly McpToolDefinition[] = ${tsLiteral(tools)};
`;
    return [{ path: "mcp/tools.ts", content }];
  },
};
