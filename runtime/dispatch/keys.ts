/**
 * Idempotency identities: the scope a key lives in, the fingerprint of a request, and the kernel
 * command id derived from the scope (so a retry carries the same id and the kernel can refuse to
 * apply it twice).
 */
import { canonicalJson } from "../../common/ids";
import { sha256Hex } from "../../common/hash";

export interface KeyParts {
  workspaceId: string;
  actorId: string;
  toolName: string;
  idempotencyKey: string;
}

/** sha256 of (workspaceId, actorId, toolName, key): another actor's identical key is another scope. */
export function idempotencyScope(parts: KeyParts): string {
  return sha256Hex(canonicalJson([parts.workspaceId, parts.actorId, parts.toolName, parts.idempotencyKey]));
}

/** sha256 of the canonical JSON of documentId and args: key order and 1 vs 1.0 do not matter. */
export function requestFingerprint(documentId: string, args: unknown): string {
  return sha256Hex(canonicalJson({ documentId, args }));
}

/** "page.head.updateTitle" + scope -> "page_head_update_title_<24 hex>". */
export function commandIdFor(commandName: string, scope: string): string {
  const stem = commandName
    .replace(/([A-Z])/g, "_$1")
    .replace(/\./g, "_")
    .toLowerCase();
  return `${stem}_${scope.slice(0, 24)}`;
}
