/**
 * @mnote/runtime/sqlite: the runtime over a SQLite state file (grants and idempotency records) and
 * the embedded reference kernel. Needs the optional peer better-sqlite3 (a native module).
 */
export { createRuntime, type Runtime, type RuntimeOptions, type KernelChoice } from "./runtime";
export { SqliteGrantStore } from "./state/grant-store";
export { SqliteIdempotencyStore } from "./state/sqlite-idempotency-store";
export { openDatabase, type Db } from "../common/sqlite";
export { secretFromText, stateSecret } from "./approval/secret";
