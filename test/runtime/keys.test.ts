/**
 * Idempotency identities stay exact when their code is made faster (issue 21): the scope and the
 * fingerprint hash the same bytes as before, so records written by an older runtime still replay
 * and conflict as they did.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { canonicalJson } from "../../common/ids";
import { idempotencyScope, requestFingerprint } from "../../runtime/dispatch/keys";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The canonical JSON as first written: keys always sorted, no shortcut. */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return "null";
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  const record = value as Record<string, unknown>;
  const parts = Object.keys(record)
    .sort()
    .filter((k) => record[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference(record[k])}`);
  return `{${parts.join(",")}}`;
}

describe("idempotency identities", () => {
  it("the scope is the sha256 of the four strings' canonical JSON, escapes and non-ASCII included", () => {
    const parts = { workspaceId: "ws_1", actorId: "user_1", toolName: "mnote.page.save", idempotencyKey: 'k"\\é' };
    expect(idempotencyScope(parts)).toBe(sha256('["ws_1","user_1","mnote.page.save","k\\"\\\\é"]'));
    expect(idempotencyScope(parts)).toBe(
      sha256(canonicalJson([parts.workspaceId, parts.actorId, parts.toolName, parts.idempotencyKey])),
    );
  });

  it("the fingerprint is the sha256 of the canonical JSON of documentId and args, whatever the key order", () => {
    const args = { mode: "replace", content: [{ type: "heading", text: "Plan", level: 2 }], baseRevision: 3 };
    const text =
      '{"args":{"baseRevision":3,"content":[{"level":2,"text":"Plan","type":"heading"}],"mode":"replace"},"documentId":"doc_1"}';
    expect(requestFingerprint("doc_1", args)).toBe(sha256(text));
    const reordered = { baseRevision: 3, content: [{ level: 2, text: "Plan", type: "heading" }], mode: "replace" };
    expect(requestFingerprint("doc_1", reordered)).toBe(sha256(text));
  });

  it("canonical JSON gives the same text as sorting every object's keys, on any value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.anything(), (json, anything) => {
        expect(canonicalJson(json)).toBe(reference(json));
        expect(canonicalJson(anything)).toBe(reference(anything));
      }),
      { numRuns: 1000 },
    );
  });
});
