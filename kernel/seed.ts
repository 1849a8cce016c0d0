/** Loads a seed file (see seed.schema.json) into the reference kernel, in one transaction. */
import Ajv2020 from "ajv/dist/2020";
import schema from "./seed.schema.json";
import type { ReferenceKernel } from "./reference-kernel";
import { blockRow, INSERT_BLOCK_SQL, planBody } from "./blocks";
import type * as T from "../generated/types";
import { capabilityScopes } from "../generated/registry";
import type { Db } from "../common/sqlite";

export interface SeedFile {
  users?: Array<{ id: string; name: string; active?: boolean }>;
  workspaces?: Array<{ id: string; name: string; members?: Array<{ userId: string; role: "owner" | "member" }> }>;
  pages?: Array<{
    id: string;
    workspaceId: string;
    title: string;
    revision?: number;
    options?: Record<string, boolean>;
    blocks?: T.ContentBlockInput[];
    grants?: Array<{ userId: string; capabilities: T.CapabilityScope[] }>;
  }>;
}

export class SeedError extends Error {}

export function validateSeed(data: unknown): SeedFile {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  const validate = ajv.compile(schema);
  if (!validate(data)) {
    const e = validate.errors![0]!;
    throw new SeedError(`invalid seed file at ${e.instancePath || "/"}: ${e.message}`);
  }
  return data as SeedFile;
}

export interface SeedCounts {
  users: number;
  workspaces: number;
  members: number;
  pages: number;
  blocks: number;
  grants: number;
}

type SeedPage = NonNullable<SeedFile["pages"]>[number];

export function seedKernel(kernel: ReferenceKernel, data: unknown): SeedCounts {
  const seed = validateSeed(data);
  const db = kernel.db;
  const counts: SeedCounts = { users: 0, workspaces: 0, members: 0, pages: 0, blocks: 0, grants: 0 };
  db.transaction(() => {
    for (const u of seed.users ?? []) seedUser(db, u, counts);
    for (const w of seed.workspaces ?? []) seedWorkspace(db, w, counts);
    for (const p of seed.pages ?? []) seedPage(db, p, counts);
  })();
  return counts;
}

function seedUser(db: Db, u: NonNullable<SeedFile["users"]>[number], counts: SeedCounts): void {
  db.prepare(
    "INSERT INTO users (id, name, active) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, active = excluded.active",
  ).run(u.id, u.name, u.active === false ? 0 : 1);
  counts.users++;
}

/** A workspace and its members (each must be a user already). */
function seedWorkspace(db: Db, w: NonNullable<SeedFile["workspaces"]>[number], counts: SeedCounts): void {
  db.prepare("INSERT INTO workspaces (id, name) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name").run(
    w.id,
    w.name,
  );
  counts.workspaces++;
  for (const m of w.members ?? []) {
    requireRow(
      db.prepare("SELECT 1 FROM users WHERE id = ?").get(m.userId),
      `member ${m.userId} of ${w.id} is not a user`,
    );
    db.prepare(
      "INSERT INTO members (workspace_id, user_id, role) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET role = excluded.role",
    ).run(w.id, m.userId, m.role);
    counts.members++;
  }
}

/** A page (in a workspace that exists, and not moved from another), its blocks and its grants, each replaced whole. */
function seedPage(db: Db, p: SeedPage, counts: SeedCounts): void {
  requireRow(
    db.prepare("SELECT 1 FROM workspaces WHERE id = ?").get(p.workspaceId),
    `page ${p.id}: workspace ${p.workspaceId} does not exist`,
  );
  const existing = db.prepare("SELECT workspace_id, revision FROM pages WHERE id = ?").get(p.id) as
    { workspace_id: string; revision: number } | undefined;
  if (existing && existing.workspace_id !== p.workspaceId)
    throw new SeedError(`page ${p.id} already exists in workspace ${existing.workspace_id}`);
  db.prepare(
    "INSERT INTO pages (id, workspace_id, title, revision, options_json) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title, revision = excluded.revision, options_json = excluded.options_json",
  ).run(p.id, p.workspaceId, p.title, p.revision ?? existing?.revision ?? 0, JSON.stringify(p.options ?? {}));
  seedBlocks(db, p, counts);
  seedGrants(db, p, counts);
  counts.pages++;
}

function seedBlocks(db: Db, p: SeedPage, counts: SeedCounts): void {
  db.prepare("DELETE FROM blocks WHERE page_id = ?").run(p.id);
  const insert = db.prepare(INSERT_BLOCK_SQL);
  // blocks without an id get a positional one, so seeding twice gives the same page
  const blocks = (p.blocks ?? []).map((b, i) => ({ ...b, id: b.id ?? `b${i + 1}` }));
  planBody([], blocks, "replace").forEach((b, i) => {
    insert.run(...blockRow(p.id, i, b));
    counts.blocks++;
  });
}

/** Each grant's user must exist and each capability must be one the contract names. */
function seedGrants(db: Db, p: SeedPage, counts: SeedCounts): void {
  db.prepare("DELETE FROM page_grants WHERE page_id = ?").run(p.id);
  for (const g of p.grants ?? []) {
    requireRow(
      db.prepare("SELECT 1 FROM users WHERE id = ?").get(g.userId),
      `page ${p.id}: grant to ${g.userId}, who is not a user`,
    );
    for (const c of g.capabilities) {
      if (!capabilityScopes.includes(c))
        throw new SeedError(
          `page ${p.id}: unknown capability "${c}" (the contract has ${capabilityScopes.join(", ")})`,
        );
      db.prepare("INSERT OR IGNORE INTO page_grants (page_id, user_id, capability) VALUES (?, ?, ?)").run(
        p.id,
        g.userId,
        c,
      );
      counts.grants++;
    }
  }
}

function requireRow(row: unknown, message: string): void {
  if (row === undefined) throw new SeedError(message);
}
