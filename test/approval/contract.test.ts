/**
 * Approval is a contract fact: a tool's level goes from x-mnote-tool through the generator into
 * the registry the dispatcher reads, so a seventh tool (or a changed level) needs no hand edit; and
 * the generator refuses a level the runtime could not honour, naming the file and place.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { contractWith, contractWithSeventhTool } from "../support/fixtures";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { seedKernel } from "../../kernel/seed";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { demoSeed, failed, hashTables, ok } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { tools } from "../../generated/registry";
import type { ToolDescriptor } from "../../generated/registry";
import type { ContractFacts } from "../../kernel/facts";
import type { CommandHandler } from "../../kernel/commands";

/** Sets a tool file's x-mnote-tool approval by editing its text (the fact sits after semantics). */
function setApproval(file: string, approval: unknown): void {
  const text = readFileSync(file, "utf8").replace(/("approval": [^\n]*\n)/, "");
  writeFileSync(
    file,
    text.replace(
      /("semantics": \{[^}]*\})(,?)\n/,
      (_m, s: string, comma: string) => `${s},\n    "approval": ${JSON.stringify(approval)}${comma}\n`,
    ),
  );
}

describe("approval from the contract", () => {
  it("the registry carries each tool's level as the contract states it", () => {
    expect(tools["mnote.page.get"].approval).toEqual({ default: "allow", when: [] });
    expect(tools["mnote.page.update_title"].approval).toEqual({ default: "ask", when: [] });
    expect(tools["mnote.page.save"].approval).toEqual({
      default: "allow",
      when: [{ args: { mode: "replace" }, approval: "ask" }],
    });
    expect(tools["mnote.page.save"].revisionField).toBe("baseRevision");
    expect(tools["mnote.page.get"].revisionField).toBeNull();
  });

  it("a seventh tool's level and a changed level reach the dispatcher with no hand edit", async () => {
    const contract = contractWithSeventhTool();
    setApproval(join(contract, "tools", "page.get_outline.tool.json"), "deny");
    setApproval(join(contract, "tools", "page.update_options.tool.json"), "ask");
    const out = join(contract, "..", "generated");
    const gen = runCli(["generate", "--contract", contract, "--out", out, "--quiet"], { cwd: join(out, "..") });
    expect(gen.stderr).toBe("");
    const registry = require(join(out, "registry.ts")) as ContractFacts & {
      toolByName(name: string): ToolDescriptor | undefined;
    };
    const outline: CommandHandler = () => ({
      commandId: null,
      replayed: false,
      result: { documentId: "doc_1", headings: [] },
    });
    const kernel = new ReferenceKernel({ contract: registry, handlers: { "page.outline.read": outline } });
    seedKernel(kernel, demoSeed());
    const grants = new SqliteGrantStore(openDatabase(":memory:"));
    const ids = {
      sessionId: "s7",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read", "page.write"],
    };
    await grants.put({
      ...ids,
      capabilityScope: ["page.read", "page.write"],
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    const dispatcher = createDispatcher({
      kernel,
      grants,
      idempotency: new SqliteIdempotencyStore(openDatabase(":memory:")),
      toolByName: registry.toolByName,
    });
    const before = hashTables(kernel);
    const denied = failed(await dispatcher.dispatch(makeRequest("mnote.page.get_outline", {}, {}, ids)));
    expect([denied.error.code, denied.error.reason]).toEqual(["mnote_tool_approval_denied", "policy"]);
    const args = { options: { smallText: true }, baseRevision: 0 };
    const asked = failed(await dispatcher.dispatch(makeRequest("mnote.page.update_options", args, {}, ids)));
    expect(asked.error.code).toBe("mnote_tool_approval_required");
    expect(asked.error.approval!.preview.ops).toEqual([{ op: "set_option", field: "smallText", value: true }]);
    expect(hashTables(kernel)).toBe(before);
    const token = asked.error.approval!.token;
    ok(await dispatcher.dispatch(makeRequest("mnote.page.update_options", args, { approval: { token } }, ids)));
    kernel.close();
  });

  it("generation refuses a condition on a field the tool does not have, and ask for a tool without a dry run", () => {
    const saveFile = join("tools", "page.save.tool.json");
    const save = readFileSync(join(__dirname, "..", "..", "contract", saveFile), "utf8").replace(
      /"approval": [^\n]*\n/,
      `"approval": { "default": "allow", "when": [{ "args": { "force": true }, "approval": "ask" }] },\n`,
    );
    const generate = (contract: string) =>
      runCli(["generate", "--contract", contract, "--out", join(contract, "..", "generated"), "--quiet"], {
        cwd: join(contract, ".."),
      });
    const r1 = generate(contractWith(saveFile, save));
    expect(r1.status).toBe(2);
    expect(r1.stderr).toMatch(
      /page\.save\.tool\.json:\d+:\d+ at \/x-mnote-tool\/approval\/when\/0\/args\/force: mnote\.page\.save has no top-level args field "force"/,
    );
    const getFile = join("tools", "page.get.tool.json");
    const get = readFileSync(join(__dirname, "..", "..", "contract", getFile), "utf8").replace(
      /"approval": "allow"/,
      `"approval": "ask"`,
    );
    const r2 = generate(contractWith(getFile, get));
    expect(r2.status).toBe(2);
    expect(r2.stderr).toMatch(
      /page\.get\.tool\.json:\d+:\d+ at \/x-mnote-tool\/approval: mnote\.page\.get has no dry run/,
    );
  });
});
