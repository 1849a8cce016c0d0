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

/**
 * sha256 of (workspaceId, actorId, toolName, key): another actor's identical key is another scope.
 * The text hashed is the canonical JSON of the four strings, which for an array of strings is
 * exactly JSON.stringify's (no object keys to sort), so JSON.stringify writes it directly.
 */
export function idempotencyScope(parts: KeyParts): string {
  return sha256Hex(JSON.stringify([parts.workspaceId, parts.actorId, parts.toolName, parts.idempotencyKey]));
}

/** sha256 of the canonical JSON of documentId and args: key order and 1 vs 1.0 do not matter. */
export function requestFingerprint(documentId: string, args: unknown): string {
  return sha256Hex(canonicalJson({ documentId, args }));
}

/** Command name -> id stem, computed once per command (the regexes ran on every write). */
const stems = new Map<string, string>();

/** "page.head.updateTitle" + scope -> "page_head_update_title_<24 hex>". */
export function commandIdFor(commandName: string, scope: string): string {
  let stem = stems.get(commandName);
  if (stem === undefined) {
    stem = commandName
      .replace(/([A-Z])/g, "_$1")
      .replace(/\./g, "_")
      .toLowerCase();
    stems.set(commandName, stem);
  }
  return `${stem}_${scope.slice(0, 24)}`;
}

export interface SlotParts {
  sessionId: string;
  workspaceId: string;
  actorId: string;
  toolName: string;
  /** requestFingerprint of the raised request: the same args on the same page. */
  fingerprint: string;
}

/**
 * The slot of an uncertain write: sha256 of the session, identity, tool and request fingerprint.
 * Stored as this hash (64 hex), never as the arguments, so each remembered write is a few hundred
 * bytes whatever its size.
 */
export function uncertainSlot(parts: SlotParts): string {
  return sha256Hex(
    canonicalJson([parts.sessionId, parts.workspaceId, parts.actorId, parts.toolName, parts.fingerprint]),
  );
}
