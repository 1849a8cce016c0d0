/**
 * The kernel takes every contract fact from a generated registry: flipping facts in a copy of the
 * contract and regenerating changes the kernel's answers with no kernel edit. One generated copy
 * flips four facts at once: showToc becomes wired, smallText's initial value is true, a page holds at
 * most 4 blocks, and bodySummary is cut after 5 characters.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contractDir, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";
import { demoSeed, ok } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { seedKernel } from "../../kernel/seed";
import type { ContractFacts } from "../../kernel/facts";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import type { ToolDescriptor } from "../../generated/registry";
import { KernelRefusal } from "../../generated/kernel/transport";

type Registry = ContractFacts & { toolByName(name: string): ToolDescriptor | undefined };

/** contract/ with the four facts flipped, generated into a temporary folder; its registry. */
function flippedRegistry(): Registry {
  const root = tempDir("mnote-facts-");
  const contract = join(root, "contract");
  cpSync(contractDir, contract, { recursive: true });
  const edit = (path: string, change: (json: any) => void) => {
    const file = join(contract, path);
    const json = JSON.parse(readFileSync(file, "utf8"));
    change(json);
    writeFileSync(file, JSON.stringify(json, null, 2));
  };
  edit("model/page-options.schema.json", (j) => {
    j.$defs.PageOptions.properties.showToc["x-mnote-runtimeSupport"] = "wired";
    j.$defs.PageOptions.properties.smallText["x-mnote-initialValue"] = true;
  });
  edit("tools/page.get.tool.json", (j) => {
    j.$defs.Result.properties.blocks.maxItems = 4;
    j.$defs.Result.properties.bodySummary["x-mnote-truncate"].length = 5;
    j.$defs.Result.properties.bodySummary.maxLength = 8;
  });
  const out = join(root, "generated");
  const run = runCli(["generate", "--contract", contract, "--out", out, "--quiet"], { cwd: root });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return require(join(out, "registry.ts")) as Registry;
}

const context = {
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  traceId: "t",
  sessionId: "s",
  runId: "r",
  toolCallId: "c",
};
const write = (n: number) => ({
  commandId: `page_cmd_${n}`,
  idempotencyScope: String(n).padStart(64, "0"),
  fingerprint: "f".repeat(64),
  ttlMs: 60_000,
});

function kernelOn(contract?: ContractFacts): ReferenceKernel {
  const kernel = new ReferenceKernel(contract ? { contract } : {});
  seedKernel(kernel, demoSeed());
  return kernel;
}

describe("the kernel's contract facts come from the generated registry", () => {
  let flipped: Registry;
  beforeAll(() => {
    flipped = flippedRegistry();
  }, 120_000);

  it("showToc wired in the contract: the kernel stores it; on this contract it refuses it", () => {
    const payload = { context, args: { options: { showToc: true } }, dryRun: false, write: write(1) };
    const today = kernelOn();
    expect(() => today.execute("page.layout.updateOptions", payload)).toThrow(
      expect.objectContaining({ code: "mnote_tool_unsupported_option", field: "showToc" }),
    );
    today.close();

    const kernel = kernelOn(flipped);
    expect(kernel.execute("page.layout.updateOptions", payload).result).toEqual({
      commandName: "page.layout.updateOptions",
      revision: 1,
    });
    const page = kernel.execute("page.snapshot.read", { context, args: {} }).result as {
      pageOptions: Record<string, boolean>;
    };
    expect(page.pageOptions.showToc).toBe(true);
    kernel.close();
  });

  it("showToc wired: the dispatcher over the regenerated registry serves the real call end to end", async () => {
    const kernel = kernelOn(flipped);
    const state = openDatabase(":memory:");
    const grants = new SqliteGrantStore(state);
    const ids = {
      sessionId: "s1",
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
      idempotency: new SqliteIdempotencyStore(state),
      toolByName: flipped.toolByName,
      kernelTimeoutMs: null,
    });
    const dry = ok(
      await dispatcher.dispatch(
        makeRequest("mnote.page.update_options", { options: { showToc: true } }, { dryRun: true }, ids),
      ),
    );
    expect(dry.result.warnings).toBeUndefined();
    const real = ok(
      await dispatcher.dispatch(
        makeRequest("mnote.page.update_options", { options: { showToc: true } }, { idempotencyKey: "toc" }, ids),
      ),
    );
    expect(real.result.revision).toBe(1);
    kernel.close();
    state.close();
  });

  it("option initial values: a page that never set smallText reports the contract's x-mnote-initialValue", () => {
    const read = (k: ReferenceKernel) =>
      (k.execute("page.snapshot.read", { context, args: {} }).result as { pageOptions: Record<string, boolean> })
        .pageOptions;
    const today = kernelOn();
    expect(read(today)).toEqual({ wideLayout: true, smallText: false, showToc: false, protectEditing: false });
    today.close();
    const kernel = kernelOn(flipped);
    expect(read(kernel)).toEqual({ wideLayout: true, smallText: true, showToc: false, protectEditing: false });
    kernel.close();
  });

  it("the page block limit: 4 blocks in the flipped contract, so a fifth is refused with page_blocks and nothing written", () => {
    const kernel = kernelOn(flipped);
    const save = (n: number, blocks: number) =>
      kernel.execute("page.body.save", {
        context,
        args: { content: Array.from({ length: blocks }, () => ({ type: "paragraph", text: "x" })), mode: "append" },
        dryRun: false,
        write: write(n),
      });
    expect(save(1, 1).result).toEqual({ commandName: "page.body.save", revision: 1 }); // 3 seeded + 1
    let refusal: unknown;
    try {
      save(2, 1);
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(KernelRefusal);
    expect(refusal).toMatchObject({ code: "mnote_tool_payload_too_large", reason: "page_blocks" });
    expect(kernel.blocksOf("doc_1")).toHaveLength(4);
    kernel.close();
  });

  it("bodySummary is cut where the contract says", () => {
    const summary = (k: ReferenceKernel) =>
      (k.execute("page.snapshot.read", { context, args: {} }).result as { bodySummary: string }).bodySummary;
    const kernel = kernelOn(flipped);
    expect(summary(kernel)).toBe("章节一\n第...");
    kernel.close();
    const today = kernelOn();
    expect(summary(today)).toBe("章节一\n第一段：确定范围与里程碑。\n整理需求清单");
    today.close();
  });
});

describe("a contract that lacks a fact the kernel needs", () => {
  it("stops the kernel at start-up, naming the fact", () => {
    const base = require("../../generated/registry") as ContractFacts;
    expect(() => new ReferenceKernel({ contract: { ...base, limits: {} } })).toThrow(/names no limit "pageBlocks"/);
    expect(() => new ReferenceKernel({ contract: { ...base, truncations: {} } })).toThrow(
      /no truncation "bodySummary"/,
    );
    expect(() => new ReferenceKernel({ contract: { ...base, optionSets: {} } })).toThrow(/no PageOptions fields/);
  });
});
