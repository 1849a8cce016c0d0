/** Reference edges from an artifact to its page, shared by the artifact commands (not a command itself). */
import { randomId } from "../common/ids";
import type { KernelPort } from "./port";

export function edgeOf(kernel: KernelPort, fromId: string, toId: string): { id: string } | undefined {
  return kernel.sql("SELECT id FROM edges WHERE from_id = ? AND to_id = ? AND kind = 'reference'").get(fromId, toId) as
    { id: string } | undefined;
}

/** Creates the reference edge, or confirms the one that is there: never a duplicate. */
export function ensureEdge(
  kernel: KernelPort,
  fromId: string,
  toId: string,
  commandId: string,
): { edgeId: string; edgeCreated: boolean } {
  const existing = edgeOf(kernel, fromId, toId);
  if (existing) return { edgeId: existing.id, edgeCreated: false };
  const edgeId = randomId("edge");
  kernel
    .sql("INSERT INTO edges (id, from_id, to_id, kind, created_command_id) VALUES (?, ?, ?, 'reference', ?)")
    .run(edgeId, fromId, toId, commandId);
  return { edgeId, edgeCreated: true };
}
