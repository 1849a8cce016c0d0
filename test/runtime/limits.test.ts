/**
 * The request limits (runtime/dispatch/limits.ts, issue 12 item 3, issue 21): bounded memory
 * whatever the shape, the pre-scan that refuses before JSON.parse (prescan.ts), and duplicate member
 * names found by counting. Memory is checked with a heap cap on a child process (deterministic,
 * unlike a timing): the old walk copied the path for every node and pushed every sibling at once,
 * 588 MB for the 1 MiB wide-deep array.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/paths";
import fc from "fast-check";
import { checkShape, DEFAULT_LIMITS, readRequest, shapeKeys } from "../../runtime/dispatch/limits";
import { pointerAt, prescanJson } from "../../runtime/dispatch/prescan";
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
    // every shape is refused: the ones JSON.parse itself would pay for, before it parses them
    expect(JSON.parse(run.stdout)).toEqual({
      "wide-deep array (60 deep, 524k zeros)": "mnote_tool_payload_too_large",
      "122k-key object": "mnote_tool_payload_too_large",
      "524k-deep nesting": "mnote_tool_payload_too_large",
      "175k-deep objects": "mnote_tool_payload_too_large",
      "1 MiB string": "passed",
      "1 MiB of \\u escapes": "passed",
      "349k empty objects": "mnote_tool_payload_too_large",
      "262k short strings": "mnote_tool_payload_too_large",
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
    const unlimited = { maxDepth: 1000, maxValues: 1e9 };
    expect(prescanJson('{"a":{"b":[{"c":1}]},"d" :"e:f"}', unlimited)).toBe(4);
    expect(prescanJson('{"k\\\\":"\\\\","q\\"":"]}{[","n":{}}', unlimited)).toBe(3);
  });

  it("the pre-scan refuses nesting and size from the text, with the same answer as the walk of the parsed value", () => {
    for (const text of [
      "[".repeat(65) + "]".repeat(65),
      '{"a":[' + '{"b":'.repeat(70) + "1" + "}".repeat(70) + "]}",
      '{"x":"[[[[","y":[0,{"z\\"":' + "[".repeat(70) + "]".repeat(70) + "}]}",
    ]) {
      const fromText = refusal(text);
      expect(fromText).toMatchObject({ code: "mnote_tool_payload_too_large" });
      // the parsed value, checked by the walk alone, is refused at the same place
      expect(refusal(JSON.parse(text))).toEqual(fromText);
    }
    expect(refusal("[".repeat(64) + "]".repeat(64))).toBeUndefined();
    expect(pointerAt('{"a/b":[1,{"c~":[', 16)).toBe("/a~1b/1/c~0");
    // values: every scalar, array and object counts one, from the text and from a parsed value alike
    const wide = (n: number) => `{"a":[${Array.from({ length: n }, () => "0").join(",")}]}`;
    const limit = DEFAULT_LIMITS.maxValues;
    expect(refusal(wide(limit - 2))).toBeUndefined(); // root, a, and limit - 2 zeros
    expect(refusal(wide(limit - 1))).toMatchObject({ code: "mnote_tool_payload_too_large", pointer: "" });
    expect(refusal(JSON.parse(wide(limit - 1)))).toMatchObject({ code: "mnote_tool_payload_too_large" });
    expect(refusal(JSON.parse(wide(limit - 2)))).toBeUndefined();
    const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":{}`).join(",")}}`;
    expect(refusal(keys(limit - 1))).toBeUndefined();
    expect(refusal(keys(limit))).toMatchObject({ code: "mnote_tool_payload_too_large" });
    expect(refusal("[[],[ ],[0]]")).toBeUndefined();
    expect(prescanJson("[[],[ ],[0, 1]]", { maxDepth: 64, maxValues: 6 })).toBe(0);
    expect(() => prescanJson("[[],[ ],[0, 1]]", { maxDepth: 64, maxValues: 5 })).toThrow();
  });

  it("the fast walk answers exactly as the path-keeping walk: the same key count, the same refusal at the same place", () => {
    const small = { maxBytes: 1e6, maxDepth: 4, maxValues: 40, maxStringLength: 6 };
    const scalar = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom("\ud800", "a\udfff", "ok", ""),
      fc.integer(),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 1.5, -0),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 5 }),
      object: fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constant("\udc00k")), tie("value"), {
        maxKeys: 5,
      }),
    }));
    const outcome = (walk: () => number) => {
      try {
        return { keys: walk() };
      } catch (e) {
        if (!(e instanceof ToolFailure)) throw e;
        return { code: e.code, ...e.detail };
      }
    };
    fc.assert(
      fc.property(value, (v) => {
        expect(outcome(() => shapeKeys(v, small))).toEqual(outcome(() => checkShape(v, small)));
      }),
      { numRuns: 2000 },
    );
  });

  it("bytes that are not UTF-8 are refused (not_json), never decoded with U+FFFD", () => {
    const bytes = Buffer.concat([Buffer.from('{"t":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expect(refusal(bytes)).toMatchObject({ code: "mnote_tool_invalid_input", reason: "not_json" });
    expect(refusal(Buffer.from('{"t":"é"}'))).toBeUndefined();
  });
});
