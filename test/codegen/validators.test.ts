/**
 * The generated validators accept the contract's requests and the note's responses, and reject
 * mutated ones. Every case runs against both builds: ajv over contract/ in memory, and the
 * standalone code in generated/.
 */
import { contractModel, validatorBuilds } from "../support/contract";
import { makeRequest, sampleArgs } from "../support/requests";

const model = contractModel();
const without = (o: Record<string, unknown>, key: string) => {
  const { [key]: _gone, ...rest } = o;
  return rest;
};

describe.each(validatorBuilds())("validators: %s", (_build, validatorFor) => {
  describe.each(model.tools.map((t) => [t.name, t]))("%s", (_name, tool) => {
    const validRequest = makeRequest(tool.name);
    const isValid = (v: unknown) => validatorFor(tool.requestType)(v);

    it("accepts a valid request", () => {
      expect(isValid(validRequest)).toBe(true);
      expect(validatorFor("ToolRequest")(validRequest)).toBe(true);
    });

    it.each([
      "toolName",
      "workspaceId",
      "documentId",
      "actorId",
      "sessionId",
      "runId",
      "toolCallId",
      "traceId",
      "capabilityScope",
      "args",
    ])("rejects a request without %s", (field) => {
      expect(isValid(without(validRequest, field))).toBe(false);
    });

    if (tool.effect === "write") {
      it.each(["idempotencyKey", "dryRun"])("rejects a write without %s", (field) => {
        expect(isValid(without(validRequest, field))).toBe(false);
      });
    }

    it("rejects a wrong type (dryRun as a string, args as an array)", () => {
      expect(isValid({ ...validRequest, dryRun: "false" })).toBe(false);
      expect(isValid({ ...validRequest, args: [] })).toBe(false);
    });

    it("rejects an extra property in the envelope and in the args", () => {
      expect(isValid({ ...validRequest, extra: 1 })).toBe(false);
      expect(isValid({ ...validRequest, args: { ...sampleArgs[tool.name], extra: 1 } })).toBe(false);
    });

    it("rejects another tool's name", () => {
      expect(isValid({ ...validRequest, toolName: "mnote.page.delete" })).toBe(false);
    });

    it("rejects a missing required arg", () => {
      const required = (tool.parameters.required as string[] | undefined) ?? [];
      for (const arg of required)
        expect([arg, isValid({ ...validRequest, args: without(sampleArgs[tool.name]!, arg) })]).toEqual([arg, false]);
    });

    it("rejects unknown, wildcard and miscased capability scopes", () => {
      for (const scope of ["*", "page.*", "Page.Read", "PAGE.WRITE", "page.admin", ""]) {
        expect([scope, isValid({ ...validRequest, capabilityScope: [scope] })]).toEqual([scope, false]);
      }
    });
  });

  it("rejects an empty or blank title", () => {
    const check = validatorFor("PageUpdateTitleRequest");
    for (const title of ["", "   ", "two\nlines"]) {
      expect([title, check(makeRequest("mnote.page.update_title", { title }))]).toEqual([title, false]);
    }
  });

  it("rejects an unknown page option and an empty options object", () => {
    const check = validatorFor("PageUpdateOptionsRequest");
    expect(check(makeRequest("mnote.page.update_options", { options: { darkMode: true } }))).toBe(false);
    expect(check(makeRequest("mnote.page.update_options", { options: {} }))).toBe(false);
    expect(check(makeRequest("mnote.page.update_options", { options: { showToc: true } }))).toBe(true);
  });

  describe("responses from the note, mutated", () => {
    const examples = model.examples.filter((e) => e.of.endsWith("Response"));
    it.each(examples.map((e) => [`${e.file} ${e.name}`, e]))("%s", (_n, example) => {
      const check = validatorFor(example.of);
      const value = example.value as Record<string, unknown>;
      expect(check(value)).toBe(true);
      expect(check(without(value, "audit"))).toBe(false);
      expect(check(without(value, "error"))).toBe(false);
      expect(check({ ...value, ok: String(value.ok) })).toBe(false);
      expect(check({ ...value, extra: true })).toBe(false);
      expect(check({ ...value, audit: { ...(value.audit as object), effect: "deleted" } })).toBe(false);
      if (value.ok === false) {
        expect(check({ ...value, error: { code: "mnote_tool_oops", message: "x" } })).toBe(false);
        expect(check({ ...value, result: {} })).toBe(false);
      }
    });
  });
});
