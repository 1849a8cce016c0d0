/**
 * The Hermes plugin's templates name no error code or reason by hand: each comes from the catalog
 * through the helpers {{errorCode "<name>"}} and {{errorReason "<name>" "<reason>"}}, so a code or reason the
 * catalog lacks stops the generator instead of shipping a plugin that answers with it. The same for
 * the envelope's field names and enum values: {{field "<place>" "<name>"}} and
 * {{enumValue "<place>" "<name>" "<value>"}} (codegen/targets/hermes-names.ts) take them from
 * contract/envelope/, and one the contract lacks stops the generator.
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
import { envelopeNames, ENVELOPE_PLACES } from "../../codegen/targets/hermes-names";

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

/**
 * What a template may still write in quotes that happens to equal an envelope name: each pattern is
 * a name of something else (tools.json's entries, the plugin's own dicts, Hermes' API), cut out of
 * the text before the scan. Everything else quoted that the envelope names is a name spelled by hand.
 */
const NOT_ENVELOPE: Array<[RegExp, string]> = [
  [/"deny": (?=_APPROVAL)|answer\["choice"\] = "error"/g, "Hermes' own answers"],
  [/\{"action": "approve", "message"/g, "Hermes' pre_tool_call directive"],
  [
    /prepared\["(args|request|write)"\]|prepared\.update\(\{"args": args, "request": request, "write"/g,
    "the plugin's own prepared call",
  ],
  [
    /_APPROVAL(_ANSWERS)?(\["answers"\])?\["\w+"\]/g,
    "tools.json's approvalCodes (checked against the catalog by the generator)",
  ],
  [
    /tool\["(dryRun|idempotency)"\] == "required"|tool\["effect"\] != "write"/g,
    "tools.json's tool facts (the tool schema's values)",
  ],
  [
    /tool\.get\("approval"\)|condition\["(args|approval)"\]|\{"default": "allow", "when": \[\]\}|rule\.get\("when"\)|rule\["default"\]/g,
    "tools.json's approval rule (in _contract_level, rule is the tool's approval rule)",
  ],
  [/entry\["retryable"\]/g, "tools.json's error entries"],
  [/"unchanged" in shape|shape\.get\("unchanged"\)/g, "raise.json's shapes"],
  [/\{"token": challenge\[|kept\["token"\]/g, "the plugin's own record of a question on the approval page"],
  [
    /status == "(approved|declined)"/g,
    "the approval record's status (GET /v1/approvals/<id>), which contract/ does not describe",
  ],
];

/** A template's code: its Python docstrings, comments, handlebars expressions and NOT_ENVELOPE cut out. */
function codeOf(name: string, text: string): string {
  const bare = text.replace(/\{\{[^}]*\}\}/g, "");
  const code = name.endsWith(".py.hbs") ? bare.replace(/"""[\s\S]*?"""/g, "").replace(/(^|\s)#.*$/gm, "$1") : bare;
  return NOT_ENVELOPE.reduce((t, [pattern]) => t.replace(pattern, ""), code);
}

describe("Hermes templates: envelope fields and values from the contract", () => {
  const model = buildModel(readContractDir(contractDir));
  const envelope = envelopeNames(model);
  const names = new Set(
    Object.values(envelope).flatMap((fields) => [
      ...Object.keys(fields),
      ...Object.values(fields).flatMap((values) => values.filter((v): v is string => typeof v === "string")),
    ]),
  );

  it("reads every place's fields from the contract", () => {
    expect(Object.keys(envelope)).toEqual(Object.keys(ENVELOPE_PLACES));
    expect(Object.keys(envelope.request!)).toEqual(
      expect.arrayContaining(["toolCallId", "idempotencyKey", "keyOrigin"]),
    );
    expect(envelope.request!.keyOrigin).toEqual(["caller", "tool_call"]);
    expect(envelope.audit!.effect).toEqual(expect.arrayContaining(["none", "write"]));
    expect(envelope.approvalAudit!.level).toEqual(expect.arrayContaining(["ask"]));
  });

  it("no template spells an envelope field or value by hand", () => {
    expect(names.size).toBeGreaterThan(40);
    const spelled = templates.flatMap(({ name, text }) => {
      // quoted in the Python ("toolCallId", or dict(envelope, toolName=...)), quoted or in a code span in the guide
      const quoted = name.endsWith(".py.hbs") ? /"([\w-]+)"|\bdict\([^()]*?,\s*(\w+)=/g : /["`]([\w-]+)/g;
      return [...codeOf(name, text).matchAll(quoted)]
        .map((m) => m[1] ?? m[2]!)
        .filter((word) => names.has(word))
        .map((word) => `${name}: ${word}`);
    });
    expect(spelled).toEqual([]);
  });

  it("the Python reads and writes the envelope through the helpers, whatever the name", () => {
    // any literal key on a variable holding an envelope part, a contract name or not (a typo too)
    const access =
      /\b(request|response|envelope|error|rule|refusal|binding|challenge|failure|previewed|retried|partial|envelope_fields)(\[[^\]]*\])*(\[|\.get\()"(\w+)"/g;
    const python = templates.filter((t) => t.name.endsWith(".py.hbs"));
    const literal = python.flatMap(({ name, text }) =>
      [...codeOf(name, text).matchAll(access)].map((m) => `${name}: ${m[0]}`),
    );
    expect(literal).toEqual([]);
    const init = python.find((t) => t.name === "__init__.py.hbs")!.text;
    expect(init).toContain(
      'request["{{field "request" "keyOrigin"}}"] = "{{enumValue "request" "keyOrigin" "tool_call"}}"',
    );
  });

  it("the rendered plugin carries the contract's names where the templates name them", () => {
    const files = emitFrom(contractDir);
    const init = files.find((f) => f.path.endsWith("/__init__.py"))!.content;
    expect(init).toContain('request["keyOrigin"] = "tool_call"');
    expect(init).toContain('"toolCallId": tool_call_id,');
    expect(init).toContain('"audit": {"effect": "none", "commandId": None,');
    const skill = files.find((f) => f.path.endsWith("/SKILL.md"))!.content;
    expect(skill).toContain('`"ok": true` and `"audit": {"effect": "write"}`');
  });

  it.each([
    [
      "a field",
      '"keyOrigin": {',
      '"keySource": {',
      "the Hermes template names the field keyOrigin of request (envelope/request.schema.json#/$defs/ToolRequest), which the contract lacks",
    ],
    [
      "a value",
      '"enum": ["caller", "tool_call"]',
      '"enum": ["caller", "model_call"]',
      "the Hermes template names the value tool_call of request.keyOrigin, which the contract does not allow",
    ],
  ])("%s the template names but the envelope lacks stops the generator", (_what, from, to, named) => {
    const path = "envelope/request.schema.json";
    const text = readFileSync(join(contractDir, path), "utf8");
    expect(text).toContain(from);
    const dir = contractWith(path, text.replace(from, to));
    expect(() => emitFrom(dir)).toThrow(named);
  });
});
