/**
 * Where a change is reported: a pointer into the inlined schema relative to the tool, and the file
 * and pointer a user would edit (the definition behind a $ref, the $ref's own sibling, the catalog
 * entry).
 */
import { diffContracts } from "../../diff";
import { buildModel } from "../../codegen/pipeline";
import { readContractDir } from "../../codegen/phases/load";
import { contractDir } from "../support/paths";
import { modelWith, set, original } from "./harness";

/** The one schema finding of a report (the package's exports, judged apart, are left out). */
// the place of a change for callers (a tool's Result is also judged for kernels, at the same place)
const only = (report: ReturnType<typeof diffContracts>) => {
  const changes = report.changes.filter((c) => c.subject !== "package" && !c.rule.startsWith("kernel-reply-"));
  expect(changes).toHaveLength(1);
  return changes[0]!;
};

describe("where changes are reported", () => {
  it("a change inside a $ref'd definition names the definition's file", () => {
    const c = only(
      diffContracts(
        modelWith([]),
        modelWith([set("model/block.schema.json", "/$defs/ContentBlock/properties/level/maximum", 6)]),
      ),
    );
    expect(c).toMatchObject({
      rule: "response-constraint-loosened",
      subject: "mnote.page.get",
      pointer: "/result/properties/blocks/items/properties/level/maximum",
      file: "model/block.schema.json",
      filePointer: "/$defs/ContentBlock/properties/level/maximum",
      before: 3,
      after: 6,
    });
  });

  it("a sibling of a $ref names the tool file, not the $ref's target", () => {
    const path = "/$defs/Args/properties/baseRevision/description";
    const c = only(
      diffContracts(modelWith([]), modelWith([set("tools/page.save.tool.json", path, "The revision you read.")])),
    );
    expect(c).toMatchObject({
      rule: "description-changed",
      pointer: "/args/properties/baseRevision/description",
      file: "tools/page.save.tool.json",
      filePointer: path,
    });
  });

  it("a removed field names the base's file", () => {
    const c = only(
      diffContracts(
        modelWith([]),
        modelWith([
          set(
            "tools/page.get.tool.json",
            "/$defs/Result/properties",
            (() => {
              const props = original<{ $defs: { Result: { properties: Record<string, unknown> } } }>(
                "tools/page.get.tool.json",
              ).$defs.Result.properties;
              delete props.bodySummary;
              return props;
            })(),
          ),
        ]),
      ),
    );
    expect(c).toMatchObject({
      rule: "optional-response-field-removed",
      pointer: "/result/properties/bodySummary",
      file: "tools/page.get.tool.json",
      filePointer: "/$defs/Result/properties/bodySummary",
    });
  });

  it("a catalog entry is named by code, and located by its oneOf index", () => {
    const entries = original<{ $defs: { ErrorCode: { oneOf: Array<{ const: string }> } } }>(
      "catalog/errors.schema.json",
    ).$defs.ErrorCode.oneOf;
    const i = entries.findIndex((e) => e.const === "mnote_tool_internal");
    const c = only(
      diffContracts(
        modelWith([]),
        modelWith([set("catalog/errors.schema.json", `/$defs/ErrorCode/oneOf/${i}/x-mnote-error/retryable`, true)]),
      ),
    );
    expect(c).toMatchObject({
      subject: "errors",
      pointer: "/mnote_tool_internal/retryable",
      file: "catalog/errors.schema.json",
      filePointer: `/$defs/ErrorCode/oneOf/${i}/x-mnote-error/retryable`,
      message: "mnote_tool_internal retryable false -> true",
    });
  });

  it("orders breaking changes first", () => {
    const report = diffContracts(
      modelWith([]),
      modelWith([
        set("tools/page.save.tool.json", "/$defs/Args/properties/note", { type: "string" }),
        set("tools/page.save.tool.json", "/x-mnote-tool/title", "Save"),
        set("tools/page.save.tool.json", "/$defs/Args/properties/mode/enum", ["append"]),
      ]),
    );
    expect(report.changes.map((c) => c.level)).toEqual(["breaking", "warning", "safe"]);
    expect(report.counts).toEqual({ breaking: 1, warning: 1, safe: 1 });
  });

  it("the real contract, examples and all, has no changes against itself", () => {
    const real = () => buildModel(readContractDir(contractDir));
    expect(diffContracts(real(), real()).changes).toEqual([]);
  });
});
