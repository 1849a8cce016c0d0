/**
 * @mnote/runtime/serve: the HTTP tool server (`mnote-tools serve`) over a runtime (the runtime of
 * ./sqlite, so the optional peer better-sqlite3).
 */
export { createToolServer, type ToolServerOptions } from "./transports/tool-server";
