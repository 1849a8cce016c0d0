/**
 * The reference kernel's tables. What the design note asks the kernel to keep: pages, artifacts,
 * edges, and an audit of commands; no chat history (nothing here holds a message). Every statement
 * is IF NOT EXISTS, so opening a file made by an older build adds what is new.
 */
export const KERNEL_SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS members (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE TABLE IF NOT EXISTS pages (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  title TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 0,
  options_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS blocks (
  page_id TEXT NOT NULL REFERENCES pages(id),
  position INTEGER NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  text TEXT NOT NULL,
  level INTEGER,
  checked INTEGER,
  language TEXT,
  PRIMARY KEY (page_id, position),
  UNIQUE (page_id, id)
);
CREATE TABLE IF NOT EXISTS page_grants (
  page_id TEXT NOT NULL REFERENCES pages(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  capability TEXT NOT NULL,
  PRIMARY KEY (page_id, user_id, capability)
);
CREATE TABLE IF NOT EXISTS artifacts (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  page_id TEXT NOT NULL REFERENCES pages(id),
  type TEXT NOT NULL CHECK (type IN ('summary', 'ai_note')),
  title TEXT,
  content TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_command_id TEXT NOT NULL,
  updated_command_id TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS one_summary_per_page ON artifacts(page_id) WHERE type = 'summary';
CREATE TABLE IF NOT EXISTS edges (
  id TEXT PRIMARY KEY,
  from_id TEXT NOT NULL REFERENCES artifacts(id),
  to_id TEXT NOT NULL REFERENCES pages(id),
  kind TEXT NOT NULL CHECK (kind = 'reference'),
  created_command_id TEXT NOT NULL,
  UNIQUE (from_id, to_id, kind)
);
CREATE TABLE IF NOT EXISTS command_log (
  command_id TEXT PRIMARY KEY,
  command_name TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  document_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  idempotency_key TEXT,
  idempotency_scope TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome = 'committed'),
  result_json TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS command_log_scope ON command_log(idempotency_scope);
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT PRIMARY KEY,
  command_id TEXT NOT NULL REFERENCES command_log(command_id),
  fingerprint TEXT NOT NULL,
  generation INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency(expires_at);
`;
