/**
 * A seventh tool in the contract is served with no dispatcher change: the dispatcher is given the
 * registry generated from the fixture contract, and the kernel gets the new command as one more
 * handler (the one place a new tool needs code). Without that handler the kernel does not start.
 */
import { join } from "node:path";
import { runCli } from "../support/paths";
import { contractWithSeventhTool } from "../support/fixtures";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { seedKernel } from "../../kernel/seed";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { demoSeed, failed, ok } from "../support/runtime";
import { makeRequest } from "../support/requests";
import type { ToolDescriptor } from "../../generated/registry";
import { KernelStartupError, type ContractFacts } from "../../kernel/facts";
import type { CommandHandler } from "../../kernel/commands";

describe("the dispatcher with a seventh tool", () => {
  it("serves mnote.page.get_outline from the fixture contract's generated registry", async () => {
    const contract = contractWithSeventhTool();
    const out = join(contract, "..", "generated");
    expect(runCli(["generate", "--contract", contract, "--out", out, "--quiet"], { cwd: join(out, "..") }).status).toBe(
      0,
    );
    const registry = require(join(out, "registry.ts")) as ContractFacts & {
      toolByName(name: string): ToolDescriptor | undefined;
    };

    // the kernel works from the fixture contract's facts; its one new command is one more handler
    const outline: CommandHandler = (k, payload: { context: never; args: { maxLevel?: number } }, command) => {
      const page = k.requireAccess(payload.context, command);
      const headings = k
        .blocksOf(page.id)
        .filter((b) => b.type === "heading" && (b.level ?? 1) <= (payload.args.maxLevel ?? 3));
      return {
        commandId: null,
        replayed: false,
        result: {
          documentId: page.id,
          headings: headings.map((h) => ({ id: h.id, level: h.level ?? 1, text: h.text })),
        },
      };
    };
    const kernel = new ReferenceKernel({ contract: registry, handlers: { "page.outline.read": outline } });
    seedKernel(kernel, demoSeed());
    const state = openDatabase(":memory:");
    const grants = new SqliteGrantStore(state);
    const ids = {
      sessionId: "s7",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read"],
    };
    await grants.put({
      ...ids,
      capabilityScope: ["page.read"],
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    const dispatcher = createDispatcher({
      kernel,
      grants,
      idempotency: new SqliteIdempotencyStore(state),
      toolByName: registry.toolByName,
    });

    const r = ok(await dispatcher.dispatch(makeRequest("mnote.page.get_outline", { maxLevel: 1 }, {}, ids)));
    expect(r.result).toEqual({ documentId: "doc_1", headings: [{ id: "heading_1", level: 1, text: "章节一" }] });
    expect(r.audit.effect).toBe("read");
    // the contract's rules apply to it like to the six: validation, scope, permissions
    expect(
      failed(await dispatcher.dispatch(makeRequest("mnote.page.get_outline", { maxLevel: 9 }, {}, ids))).error.pointer,
    ).toBe("/args/maxLevel");
    const outsider = { ...ids, sessionId: "s8", actorId: "user_3" };
    await grants.put({
      ...outsider,
      capabilityScope: ["page.read"],
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    expect(
      failed(await dispatcher.dispatch(makeRequest("mnote.page.get_outline", {}, {}, outsider))).error.reason,
    ).toBe("not_member");
    // and the six still work through the same registry
    expect(ok(await dispatcher.dispatch(makeRequest("mnote.page.get", {}, {}, ids))).result.title).toBe("项目计划");
    kernel.close();
  });

  it("a contract command the kernel has no handler for stops the kernel at start-up, naming the command", () => {
    const contract = contractWithSeventhTool();
    const out = join(contract, "..", "generated");
    expect(runCli(["generate", "--contract", contract, "--out", out, "--quiet"], { cwd: join(out, "..") }).status).toBe(
      0,
    );
    const registry = require(join(out, "registry.ts")) as ContractFacts;
    expect(() => new ReferenceKernel({ contract: registry })).toThrow(KernelStartupError);
    expect(() => new ReferenceKernel({ contract: registry })).toThrow(
      /no handler for kernel command page\.outline\.read .*kernel\/commands\/index\.ts/,
    );
    // the same kernel starts on this contract, whose every command has its handler file
    expect(() => new ReferenceKernel().close()).not.toThrow();
  });
});
