/**
 * @mnote/runtime/mcp: the MCP server (stdio and Streamable HTTP) over a runtime. Needs the optional
 * peer @modelcontextprotocol/server (and the runtime of ./sqlite, so better-sqlite3).
 */
export { createMcpServer, serveMcpStdio, type McpServerOptions } from "./transports/mcp-server";
export { createMcpHttpServer, type McpHttpOptions } from "./transports/mcp-http";
