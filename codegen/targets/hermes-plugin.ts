/**
 * generated/hermes-plugin/mnote: a Hermes directory plugin (plugin.yaml, __init__.py with
 * register(ctx), a SKILL.md) whose tools are the contract's, under their provider-safe names, with
 * the model-facing parameter schemas. The Python is a handlebars template with no per-tool code;
 * the tools themselves travel as data in tools.json. The guide (SKILL.md) names the tool of each
 * guideRole the contract assigns; no tool name is written here.
 */
import type { Target } from "./target";
import { banner, bannerText } from "../support/banner";
import { template as loadTemplate, type TemplateSet } from "../support/templates";
import { lowerTools } from "../providers/lower";
import { NAME_HELPERS, envelopeNames, errorNames } from "./hermes-names";

export const HERMES_PLUGIN_DIR = "hermes-plugin/mnote";

/**
 * Strict: a field the Python or the guide names must exist. A contract name is never spelled out in
 * a template: error codes and reasons, envelope fields and their values come through the helpers of
 * ./hermes-names ({{errorCode "unavailable"}}, {{field "request" "toolCallId"}}, {{enumValue "request"
 * "keyOrigin" "tool_call"}}), and one the contract lacks stops the generator, naming it.
 */
export const HERMES_TEMPLATES: TemplateSet = {
  folder: "hermes",
  strict: true,
  helpers: NAME_HELPERS,
};

export const hermesPluginTarget: Target = {
  name: "hermes-plugin",
  emit(model) {
    const template = (name: string) => loadTemplate(HERMES_TEMPLATES, name);
    const modelEnvelopeFields = model.requestFields
      .filter((f) => f.filledBy === "model" && f.name !== "args")
      .map((f) => f.name);
    // Hermes registers the portable variant: it lowers further itself for its native Gemini adapter
    const portable = new Map(lowerTools("portable", model.tools).map((p) => [p.canonicalName, p.parameters]));
    const tools = model.tools.map((t) => ({
      name: t.name,
      providerName: t.providerName,
      title: t.title,
      description: t.modelDescription,
      effect: t.effect,
      capability: t.capability,
      idempotency: t.idempotency,
      dryRun: t.dryRun,
      parameters: portable.get(t.name)!,
      modelEnvelopeFields: modelEnvelopeFields.filter((f) => f in ((t.parameters.properties as object) ?? {})),
      // the contract's approval rule: on Hermes 0.21 pre_tool_call puts such a write to Hermes' own gate
      approval: t.approval,
      argDefaults: t.argDefaults,
    }));
    const approvalCodes = approvalCodesOf(model);
    const spec = {
      generated: bannerText(model),
      approvalCodes,
      contract: { name: model.name, version: model.version, hash: model.hash },
      tools,
      errors: Object.fromEntries(
        model.errors.map((e) => [
          e.code,
          { retryable: e.retryable, messages: e.messages, reasons: e.reasons, rules: e.rules },
        ]),
      ),
    };
    // The guide names a tool per role; validate guarantees each role has exactly one tool.
    const byRole = (role: string) => {
      const tool = model.tools.find((t) => t.guideRole === role);
      if (!tool) throw new Error(`no tool has guideRole "${role}" (validate should have refused this contract)`);
      return tool;
    };
    const context = {
      banner: banner(model, "py").trimEnd(),
      version: model.version,
      contractName: model.name,
      // the toolset description (Hermes shows it with the toolset): model-facing, from contract.json
      description: model.toolsetDescription,
      tools: model.tools.map((t) => ({ ...t, isWrite: t.effect === "write" })),
      errors: model.errors.map((e) => ({ ...e, description: e.modelDescription })),
      // the codes and reasons the Python and the guide name, through the errorCode and errorReason helpers
      err: errorNames(model),
      // the envelope's fields and values, through the field and enumValue helpers
      envelope: envelopeNames(model),
      get: byRole("read"),
      save: byRole("body_write"),
      summary: byRole("summary"),
      note: byRole("note"),
    };
    return [
      {
        path: `${HERMES_PLUGIN_DIR}/plugin.yaml`,
        content: template("plugin.yaml.hbs")({ ...context, banner: banner(model, "yaml").trimEnd() }),
      },
      { path: `${HERMES_PLUGIN_DIR}/__init__.py`, content: template("__init__.py.hbs")(context) },
      { path: `${HERMES_PLUGIN_DIR}/gate.py`, content: template("gate.py.hbs")(context) },
      {
        path: `${HERMES_PLUGIN_DIR}/SKILL.md`,
        content: template("SKILL.md.hbs")({ ...context, banner: banner(model, "yaml").trimEnd() }),
      },
      { path: `${HERMES_PLUGIN_DIR}/tools.json`, content: JSON.stringify(spec, null, 2) + "\n" },
    ];
  },
};

/** The approval codes and answers the plugin acts on (docs/APPROVAL.md), each checked against the catalog. */
function approvalCodesOf(model: Parameters<Target["emit"]>[0]) {
  // the codes the plugin's approval steps act on
  const approvalCodes = {
    required: "mnote_tool_approval_required",
    denied: "mnote_tool_approval_denied",
    // refused by the plugin itself: arguments rewritten after the preview (Hermes 0.21's modify)
    invalid: "mnote_tool_approval_invalid",
    // the answers a host sends when the person did not say yes (ApprovalGrant.answer): approval_denied reasons
    answers: { declined: "declined", timed_out: "timed_out", no_one_to_ask: "no_one_to_ask" },
  };
  for (const code of [approvalCodes.required, approvalCodes.denied, approvalCodes.invalid]) {
    if (!model.errors.some((e) => e.code === code)) throw new Error(`the error catalog has no ${code}`);
  }
  const invalidReasons = model.errors.find((e) => e.code === approvalCodes.invalid)?.reasons ?? {};
  if (!Object.prototype.hasOwnProperty.call(invalidReasons, "other_args"))
    throw new Error(`the error catalog has no reason other_args for ${approvalCodes.invalid}`);
  const deniedReasons = model.errors.find((e) => e.code === approvalCodes.denied)?.reasons ?? {};
  for (const answer of Object.values(approvalCodes.answers)) {
    if (!Object.prototype.hasOwnProperty.call(deniedReasons, answer))
      throw new Error(`the error catalog has no reason ${answer} for ${approvalCodes.denied}`);
  }
  return approvalCodes;
}
