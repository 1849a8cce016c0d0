/**
 * The signed requestState of an MCP approval round (2026-07-28 multi-round-trip requests). The SDK's
 * codec (createRequestStateCodec: HMAC-SHA256, expiry) signs it; it is not encrypted, so the client
 * could read it. What it binds is plain: the principal (the session grant, and the OAuth issuer
 * and subject when there is one), the tool, the fingerprint of the model's raw arguments, the previewed
 * revision and the expiry. The approval token itself (the runtime's single-use nonce lives in it,
 * consumed by the dispatcher's consumeApproval) travels sealed with AES-256-GCM: the client holds
 * it and echoes it, and no one outside this server reads it, so no model and no client can send it
 * back on another path.
 *
 * The spec says requestState is not single-use; the token's nonce is what makes an approval write
 * at most once: a replayed requestState reaches the dispatcher with a used nonce and is refused.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { createRequestStateCodec, type RequestStateCodec } from "@modelcontextprotocol/server";
import { canonicalJson } from "../../common/ids";

export interface ApprovalState {
  v: 1;
  /** The principal the approval was asked for: the session grant (and OAuth issuer and subject). */
  p: string;
  /** The tool's provider name. */
  t: string;
  /** sha256 of the canonical JSON of the model's raw arguments. */
  f: string;
  /** The revision the preview was planned on (null: none reported). */
  r: number | null;
  /** Expiry, milliseconds since the epoch (the approval token's own). */
  e: number;
  /** The approval token, sealed (AES-256-GCM, base64url iv.tag.ciphertext). */
  k: string;
  /** The person's preview the form showed, to show again when a retry carries no answer. */
  m?: string;
  /**
   * A URL round (mcp-approval-page.ts): the approval record the person answers on the page. Absent:
   * a form round.
   */
  u?: string;
}

export interface McpRequestStates {
  codec: RequestStateCodec<ApprovalState>;
  seal(token: string): string;
  unseal(sealed: string): string | undefined;
}

/** The fingerprint of a call's raw arguments, as the requestState binds it. */
export function argumentsFingerprint(args: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(args ?? {}))
    .digest("base64url");
}

/** The codec and the sealing key, both derived from one secret (the runtime's approval secret). */
export function mcpRequestStates(secret: Buffer, ttlSeconds = 900): McpRequestStates {
  const derive = (label: string) => Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), label, 32));
  const codec = createRequestStateCodec<ApprovalState>({
    key: new Uint8Array(derive("mnote-mcp-request-state-v1")),
    ttlSeconds,
  });
  const sealKey = derive("mnote-mcp-approval-seal-v1");
  return {
    codec,
    seal(token) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", sealKey, iv);
      const body = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
      return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
    },
    unseal(sealed) {
      const parts = sealed.split(".");
      if (parts.length !== 3) return undefined;
      try {
        const [iv, tag, body] = parts.map((p) => Buffer.from(p, "base64url")) as [Buffer, Buffer, Buffer];
        const decipher = createDecipheriv("aes-256-gcm", sealKey, iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
      } catch {
        return undefined;
      }
    },
  };
}
