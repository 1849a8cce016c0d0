/**
 * The Hermes plugin's templates name no error code or reason by hand: each comes from the catalog
 * through the helpers {{errorCode "<name>"}} and {{errorReason "<name>" "<reason>"}}, so a code or reason the
 * catalog lacks stops the generator instead of shipping a plugin that answers with it.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readContractDir } from "../../codegen/phases/load";
import { buildModel } from "../../codegen/pipeline";
import { hermesPluginTarget } from "../../codegen/targets/hermes-plugin";
import type { GeneratedFile } from "../../codegen/targets/target";
import { templatesDir } from "../../codegen/support/templates";
import { contractDir } from "../support/paths";
import { contractWith } from "../support/fixtures";
import { errorCatalog } from "../../generated/registry";

const CATALOG = "catalog/errors.schema.json";
const templates = readdirSync(templatesDir("hermes")).map((name) => ({
  name,
  text: readFileSync(join(templatesDir("hermes"), name), "utf8"),
}));
const codes = Object.keys(errorCatalog);

function emitFrom(dir: string): GeneratedFile[] {
  const files = hermesPluginTarget.emit(buildModel(readContractDir(dir)), { options: {}, targets: ["hermes-plugin"] });
  if (files instanceof Promise) throw new Error("the Hermes target emits at once");
  return files;
}

describe("Hermes templates: codes and reasons from the catalog", () => {
  it("no template spells out a catalog code", () => {
    expect(codes.length).toBeGreaterThan(10);
    const spelled = templates.flatMap(({ name, text }) =>
      codes.filter((code) => text.includes(code)).map((code) => `${name}: ${code}`),
    );
    expect(spelled).toEqual([]);
  });

  it("every reason the Python hands to _failure or compares with is a catalog expression", () => {
    const python = templates.filter((t) => t.name.endsWith(".py.hbs"));
    const literal = python.flatMap(({ name, text }) =>
      [...text.matchAll(/reason="([^"]*)"/g)].filter((m) => !m[1]!.startsWith("{{")).map((m) => `${name}: ${m[0]}`),
    );
    expect(literal).toEqual([]);
    // the reasons the templates name are rendered: at least the plugin's own not_authenticated ones
    const init = python.find((t) => t.name === "__init__.py.hbs")!.text;
    expect(init).toContain('{{errorReason "not_authenticated" "token_rejected"}}');
  });

  it("the rendered plugin carries the catalog's values where the template names them", () => {
    const files = emitFrom(contractDir);
    const init = files.find((f) => f.path.endsWith("/__init__.py"))!.content;
    expect(init).toContain('_failure(tool, "mnote_tool_not_authenticated", partial, reason="token_rejected")');
    expect(init).toMatch(/_RETRY_CODES = \("mnote_tool_unavailable", /);
    const reasons = errorCatalog.mnote_tool_not_authenticated.reasons;
    expect(Object.keys(reasons)).toEqual(expect.arrayContaining(["no_session", "token_rejected"]));
  });

  it.each([
    [
      "a reason",
      '"token_rejected": {',
      '"token_rejected_gone": {',
      "the Hermes template names reason token_rejected of mnote_tool_not_authenticated, which the error catalog lacks",
    ],
    [
      "a code",
      '"const": "mnote_tool_unavailable"',
      '"const": "mnote_tool_unreachable"',
      "the Hermes template names mnote_tool_unavailable, which the error catalog lacks",
    ],
  ])("%s the template names but the catalog lacks stops the generator", (_what, from, to, named) => {
    const text = readFileSync(join(contractDir, CATALOG), "utf8");
    expect(text).toContain(from);
    const dir = contractWith(CATALOG, text.replace(from, to));
    expect(() => emitFrom(dir)).toThrow(named);
  });
});
