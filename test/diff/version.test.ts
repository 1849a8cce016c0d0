/** The version rule: breaking changes fail unless contract.json's major version went up. */
import { diffContracts } from "../../diff";
import { compareVersions, parseVersion, verdictFor } from "../../diff/load/version";
import { modelWith, set, type Edit } from "./harness";

const narrowMode = set("tools/page.save.tool.json", "/$defs/Args/properties/mode/enum", ["append"]);
const newArg = set("tools/page.save.tool.json", "/$defs/Args/properties/note", { type: "string", maxLength: 100 });
const version = (v: string): Edit => set("contract.json", "/version", v);

describe('the version rule on a breaking change (mode loses "replace")', () => {
  it("fails with the same major version and names the version to use", () => {
    const report = diffContracts(modelWith([]), modelWith([narrowMode]));
    expect(report.counts.breaking).toBe(1);
    expect(report.verdict).toMatchObject({ ok: false, requiredVersion: "2.0.0" });
    expect(report.verdict.message).toContain("breaking changes need version 2.0.0");
  });

  it("fails with a minor bump too", () => {
    const report = diffContracts(modelWith([]), modelWith([narrowMode, version("1.1.0")]));
    expect(report.verdict).toMatchObject({ ok: false, requiredVersion: "2.0.0" });
  });

  it("passes with a new major version and still lists the change", () => {
    const report = diffContracts(modelWith([]), modelWith([narrowMode, version("2.0.0")]));
    expect(report.verdict).toMatchObject({ ok: true, requiredVersion: null });
    expect(report.verdict.message).toContain("allowed by the new major version 2.0.0");
    expect(report.changes.map((c) => [c.rule, c.level, c.pointer])).toEqual([
      ["request-enum-narrowed", "breaking", "/args/properties/mode/enum"],
    ]);
    expect(report.head.version).toBe("2.0.0");
    // the harness pins the base to 1.0.0, whatever contract/ says today
    expect(report.base.version).toBe("1.0.0");
  });

  it("passes with a major prerelease (2.0.0-rc.1)", () => {
    expect(diffContracts(modelWith([]), modelWith([narrowMode, version("2.0.0-rc.1")])).verdict.ok).toBe(true);
  });
});

describe("the version rule without breaking changes", () => {
  it("passes safe changes with the version unchanged", () => {
    const report = diffContracts(modelWith([]), modelWith([newArg]));
    expect(report.counts).toEqual({ breaking: 0, warning: 0, safe: 1 });
    expect(report.verdict).toMatchObject({ ok: true, requiredVersion: null });
  });

  it("passes warnings", () => {
    const report = diffContracts(
      modelWith([]),
      modelWith([set("tools/page.save.tool.json", "/x-mnote-tool/title", "Save")]),
    );
    expect(report.counts.warning).toBe(1);
    expect(report.verdict.ok).toBe(true);
  });

  it("says so when nothing changed", () => {
    expect(diffContracts(modelWith([]), modelWith([])).verdict).toEqual({
      ok: true,
      requiredVersion: null,
      message: "no changes",
    });
  });

  it("a version bump alone is not a change", () => {
    expect(diffContracts(modelWith([]), modelWith([version("1.0.1")])).changes).toEqual([]);
  });
});

describe("versions", () => {
  it("parses semantic versions and rejects others", () => {
    expect(parseVersion("1.2.3")).toEqual({ major: 1, minor: 2, patch: 3, prerelease: "" });
    expect(parseVersion("2.0.0-rc.1")).toEqual({ major: 2, minor: 0, patch: 0, prerelease: "rc.1" });
    expect(parseVersion("1.2")).toBeNull();
    expect(parseVersion("v1.2.3")).toBeNull();
  });

  it("orders numerically, a prerelease before its release", () => {
    const sorted = ["1.10.0", "1.2.0", "2.0.0-rc.1", "2.0.0", "1.9.9"].sort((a, b) =>
      compareVersions(parseVersion(a)!, parseVersion(b)!),
    );
    expect(sorted).toEqual(["1.2.0", "1.9.9", "1.10.0", "2.0.0-rc.1", "2.0.0"]);
  });

  it("asks for the major after the base's, even when the head went down", () => {
    expect(verdictFor("3.4.5", "2.0.0", { breaking: 1, warning: 0, safe: 0 })).toMatchObject({
      ok: false,
      requiredVersion: "4.0.0",
    });
  });
});
