/**
 * The request limits (runtime/dispatch/limits.ts, issue 12 item 3): bounded memory whatever the
 * shape, and duplicate member names found by counting. Memory is checked with a heap cap on a child
 * process (deterministic, unlike a timing): the old walk copied the path for every node and pushed
 * every sibling at once, 588 MB for the 1 MiB wide-deep array.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/paths";
import { countMembers } from "../../runtime/dispatch/duplicate-keys";
import { DEFAULT_LIMITS, readRequest } from "../../runtime/dispatch/limits";
import { ToolFailure } from "../../runtime/dispatch/tool-failure";

function refusal(input: unknown): { code: string; reason?: string; pointer?: string } | undefined {
  try {
    readRequest(input, DEFAULT_LIMITS);
    return undefined;
  } catch (e) {
    if (!(e instanceof ToolFailure)) throw e;
    return { code: e.code, ...e.detail };
  }
}

describe("request limits", () => {
  it("checks every 1 MiB hostile shape under a 96 MB heap (the old walk needed about 600 MB for the wide-deep array)", () => {
    const script = `
      const { hostileShapes } = require(${JSON.stringify(join(repoRoot, "dist", "bench", "hostile.js"))});
      const { readRequest, DEFAULT_LIMITS } = require(${JSON.stringify(join(repoRoot, "dist", "runtime", "dispatch", "limits.js"))});
      const out = {};
      for (const [name, bytes] of Object.entries(hostileShapes())) {
        try { readRequest(bytes, DEFAULT_LIMITS); out[name] = "passed"; } catch (e) { out[name] = e.code; }
      }
      process.stdout.write(JSON.stringify(out));`;
    const run = spawnSync(process.execPath, ["--max-old-space-size=96", "-e", script], {
      encoding: "utf8",
      timeout: 120_000,
    });
    expect([run.status, run.stderr]).toEqual([0, ""]);
    expect(JSON.parse(run.stdout)).toEqual({
      "wide-deep array (60 deep, 500k zeros)": "passed",
      "100k-key object": "passed",
      "10k-deep nesting": "mnote_tool_payload_too_large",
      "1 MiB string": "passed",
    });
  });

  it("names the place of a refused value, built from the open containers only", () => {
    const deep = { a: [{ b: [0, 1, { c: "\ud800" }] }] };
    expect(refusal(deep)).toMatchObject({ code: "mnote_tool_invalid_input", pointer: "/a/0/b/2/c" });
    expect(refusal({ "x/y": [1, Number.NaN] })).toMatchObject({ pointer: "/x~1y/1" });
    const nested = JSON.parse("[".repeat(70) + "]".repeat(70));
    expect(refusal(nested)).toMatchObject({ code: "mnote_tool_payload_too_large", pointer: "/0".repeat(64) });
    expect(refusal(JSON.parse("[".repeat(64) + "]".repeat(64)))).toBeUndefined();
  });

  it("duplicate member names: found at any depth, and never confused by strings, arrays or escapes", () => {
    for (const text of ['{"a":1,"a":2}', '{"x":[{"k":1,"k":1}]}', '{"a\\u0062":1,"ab":2}', '[{"a":{"b":1,"b":2}}]']) {
      expect([text, refusal(text)]).toEqual([text, expect.objectContaining({ reason: "duplicate_key" })]);
    }
    for (const text of [
      '{"a":"a:","b":["a","a"],"c":{"a":1}}',
      '{"s":"\\"a\\":1,\\"a\\":2"}',
      '{"__proto__":1,"a":{"__proto__":2}}',
      '[":", {"a" : 1}]',
    ]) {
      expect([text, refusal(text)]).toEqual([text, undefined]);
    }
    expect(countMembers('{"a":{"b":[{"c":1}]},"d" :"e:f"}')).toBe(4);
  });

  it("bytes that are not UTF-8 are refused (not_json), never decoded with U+FFFD", () => {
    const bytes = Buffer.concat([Buffer.from('{"t":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expect(refusal(bytes)).toMatchObject({ code: "mnote_tool_invalid_input", reason: "not_json" });
    expect(refusal(Buffer.from('{"t":"é"}'))).toBeUndefined();
  });
});
