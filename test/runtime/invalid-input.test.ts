/**
 * invalid_input says what to fix (issue 11, item 7): the failed rule as data (keyword, limit,
 * pointer) and as a sentence from the catalog's templates in the caller's language; and bad input
 * never turns into an internal error (issue 12, item 6: a 600-character argument name).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { contractDir, repoRoot, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { failed, testRuntime, type TestRuntime } from "../support/runtime";
import { validateToolResponse } from "../../generated/validators";

/** The title rule as the contract states it (the message quotes the contract's pattern). */
const TITLE_PATTERN = (
  JSON.parse(readFileSync(join(contractDir, "tools", "page.update_title.tool.json"), "utf8")) as {
    $defs: { Args: { properties: { title: { pattern: string } } } };
  }
).$defs.Args.properties.title.pattern;
import { errorCatalog } from "../../generated/registry";

const longTitle = "t".repeat(501);

describe("in process", () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await testRuntime();
  });
  afterAll(() => t.close());

  const refused = async (
    tool: string,
    args: Record<string, unknown>,
    overrides: Record<string, unknown> = {},
    locale?: "en" | "zh-CN",
  ) => {
    const who = await t.session({ actorId: "user_1" });
    const before = t.kernelStateHash();
    // invalid input is refused before the grant is read, so the locale comes from the request
    const response = await t.call(tool, who, args, { ...(locale ? { locale } : {}), ...overrides });
    expect(validateToolResponse(response)).toBe(true);
    expect(t.kernelStateHash()).toBe(before);
    const f = failed(response);
    expect(f.error.code).toBe("mnote_tool_invalid_input");
    return f.error;
  };

  it("an over-long title: the rule and the limit, in zh-CN and in en", async () => {
    expect(await refused("mnote.page.update_title", { title: longTitle })).toMatchObject({
      message: "title：最多 500 个字符",
      pointer: "/args/title",
      rule: { keyword: "maxLength", limit: 500, pointer: "/args/title" },
    });
    expect(await refused("mnote.page.update_title", { title: longTitle }, {}, "en")).toMatchObject({
      message: "title: at most 500 characters",
      rule: { keyword: "maxLength", limit: 500, pointer: "/args/title" },
    });
  });

  it.each([
    [
      "mnote.page.update_title",
      { title: "" },
      {},
      { keyword: "minLength", limit: 1, pointer: "/args/title" },
      "title: at least 1 characters",
    ],
    [
      "mnote.page.update_title",
      { title: 5 },
      {},
      { keyword: "type", limit: "string", pointer: "/args/title" },
      "title: must be of type string",
    ],
    [
      "mnote.page.update_title",
      {},
      {},
      { keyword: "required", pointer: "/args/title" },
      "title: required, but missing",
    ],
    [
      "mnote.page.update_title",
      { title: "t", color: "red" },
      {},
      { keyword: "additionalProperties", pointer: "/args/color" },
      "color: not an allowed field; remove it",
    ],
    [
      "mnote.page.update_title",
      { title: "a\nb" },
      {},
      { keyword: "pattern", limit: TITLE_PATTERN, pointer: "/args/title" },
      // the message quotes a long pattern only in part (the rule data carries it whole)
      `title: must match the pattern ${TITLE_PATTERN.slice(0, 40)}`,
    ],
    [
      "mnote.page.update_title",
      { title: "t", baseRevision: -1 },
      {},
      { keyword: "minimum", limit: 0, pointer: "/args/baseRevision" },
      "baseRevision: at least 0",
    ],
    [
      "mnote.page.save",
      { content: [{ type: "table", text: "" }] },
      {},
      {
        keyword: "enum",
        limit: [
          "paragraph",
          "heading",
          "bulleted_list_item",
          "numbered_list_item",
          "to_do",
          "quote",
          "code",
          "divider",
        ],
        pointer: "/args/content/0/type",
      },
      'content[0].type: must be one of "paragraph", "heading"',
    ],
    [
      "mnote.page.update_options",
      { options: {} },
      {},
      { keyword: "minProperties", limit: 1, pointer: "/args/options" },
      "options: at least 1 fields",
    ],
    [
      "mnote.page.save",
      { content: [] },
      { idempotencyKey: undefined },
      { keyword: "required", pointer: "/idempotencyKey" },
      "idempotencyKey: required, but missing",
    ],
    [
      "mnote.page.get",
      {},
      { capabilityScope: [] },
      { keyword: "minItems", limit: 1, pointer: "/capabilityScope" },
      "capabilityScope: at least 1 items",
    ],
  ])("%s %j %j: %j", async (tool, args, overrides, rule, message) => {
    const error = await refused(tool, args as Record<string, unknown>, overrides, "en");
    expect(error.rule).toEqual(rule);
    expect(error.pointer).toBe(rule.pointer);
    expect(error.message.startsWith(message)).toBe(true);
  });

  it("every template the catalog has is used, not the validator's own English", async () => {
    const error = await refused("mnote.page.update_title", { title: "t", baseRevision: 1.5 }, {}, "en");
    expect(error.rule).toEqual({ keyword: "type", limit: "integer", pointer: "/args/baseRevision" });
    expect(error.message).toBe("baseRevision: must be of type integer");
    expect(Object.keys(errorCatalog.mnote_tool_invalid_input.rules)).toEqual(
      expect.arrayContaining([
        "maxLength",
        "minLength",
        "maximum",
        "minimum",
        "type",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "pattern",
        "minItems",
        "maxItems",
        "minProperties",
        "format",
        "not",
        "oneOf",
        "default",
      ]),
    );
  });

  it("an unknown argument with a 600-character name is invalid_input, its pointer cut back to a place that fits", async () => {
    const writes: string[] = [];
    const spy = jest.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    try {
      const name = "x".repeat(600);
      const error = await refused("mnote.page.update_title", { title: "ok", [name]: 1 }, {}, "en");
      expect(error.rule).toEqual({ keyword: "additionalProperties", pointer: "/args" });
      expect(error.pointer).toBe("/args");
      expect(error.message).toBe("args: not an allowed field; remove it");
      // a name that fits is named exactly
      const fits = await refused("mnote.page.update_title", { title: "ok", ["y".repeat(400)]: 1 }, {}, "en");
      expect(fits.pointer).toBe("/args/" + "y".repeat(400));
    } finally {
      spy.mockRestore();
    }
    expect(writes.filter((w) => w.includes("bug"))).toEqual([]);
  });
});

describe("through the transports", () => {
  const dir = tempDir("mnote-invalid-input-");
  const db = join(dir, "kernel.db");
  const state = join(dir, "runtime.db");
  beforeAll(() => {
    expect(runCli(["kernel", "seed", join(repoRoot, "examples", "demo-workspace.json"), "--db", db]).status).toBe(0);
    const grant = runCli([
      "session",
      "grant",
      "--state",
      state,
      "--session",
      "s_owner",
      "--workspace",
      "ws_1",
      "--document",
      "doc_1",
      "--actor",
      "user_1",
      "--scope",
      "page.read,page.write",
    ]);
    expect(grant.stderr).toBe("");
  });
  const ids = { sessionId: "s_owner", actorId: "user_1", capabilityScope: ["page.read", "page.write"] };
  const overLong = (locale: string) => makeRequest("mnote.page.update_title", { title: longTitle }, { locale }, ids);
  const expected = {
    "zh-CN": {
      code: "mnote_tool_invalid_input",
      message: "title：最多 500 个字符",
      pointer: "/args/title",
      rule: { keyword: "maxLength", limit: 500, pointer: "/args/title" },
    },
    en: {
      code: "mnote_tool_invalid_input",
      message: "title: at most 500 characters",
      pointer: "/args/title",
      rule: { keyword: "maxLength", limit: 500, pointer: "/args/title" },
    },
  };

  it("mnote-tools call", () => {
    for (const locale of ["zh-CN", "en"] as const) {
      const run = runCli(["call", "--db", db, "--state", state], { input: JSON.stringify(overLong(locale)) });
      expect([run.status, run.stderr]).toEqual([0, ""]);
      expect(JSON.parse(run.stdout).error).toMatchObject(expected[locale]);
    }
  });

  it("POST /v1/tools/call", async () => {
    const server = await start([
      "serve",
      "--db",
      db,
      "--state",
      state,
      "--port",
      "0",
      "--token",
      "tok",
      "--host-token",
      "host",
    ]);
    try {
      for (const locale of ["zh-CN", "en"] as const) {
        const r = await postJson(`${server.url}/v1/tools/call`, overLong(locale), "tok");
        expect([r.status, r.body.error]).toEqual([200, expect.objectContaining(expected[locale])]);
      }
    } finally {
      await server.stop();
    }
  });
});
