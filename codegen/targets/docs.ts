/** generated/docs: a Markdown reference of the tools, errors and kernel commands, from handlebars templates. */
import type { ContractModel, JsonSchema, ToolModel } from "../model";
import type { Target } from "./target";
import { banner } from "../support/banner";
import { template as loadTemplate, type TemplateSet } from "../support/templates";

/** Not strict: the docs print optional fields that some tools leave out. */
const DOCS: TemplateSet = {
  folder: "docs",
  strict: false,
  helpers: {
    cell: (value: unknown) => markdownCell(value),
    json: (value: unknown) => JSON.stringify(value, null, 2),
  },
};

export const docsTarget: Target = {
  name: "docs",
  emit(model) {
    const template = (name: string) => loadTemplate(DOCS, name);
    const head = banner(model, "md").trimEnd();
    const files = [
      {
        path: "docs/README.md",
        content: template("index.md.hbs")({ banner: head, ...model }),
      },
      {
        path: "docs/errors.md",
        content: template("errors.md.hbs")({
          banner: head,
          errors: model.errors.map((e) => ({ ...e, description: e.modelDescription })),
          reasons: reasonsOf(model),
          rules: rulesOf(model),
        }),
      },
      { path: "docs/kernel.md", content: template("kernel.md.hbs")({ banner: head, commands: model.kernelCommands }) },
    ];
    const toolTemplate = template("tool.md.hbs");
    for (const tool of model.tools) {
      files.push({
        path: `docs/tools/${tool.name}.md`,
        content: toolTemplate({
          banner: head,
          tool: { ...tool, description: tool.modelDescription },
          parameters: parameterRows(tool),
          approval: approvalText(tool),
          messages: Object.entries(tool.messages).map(([code, m]) => ({ code, zh: m["zh-CN"], en: m.en })),
          examples: model.examples.filter((e) => e.of === tool.requestType || e.of === tool.responseType),
        }),
      });
    }
    return files.map((f) => ({ ...f, content: f.content.replace(/\n{3,}/g, "\n\n").trimEnd() + "\n" }));
  },
};

/** The tool's approval fact in words: "ask when mode = "replace", else allow" (docs/APPROVAL.md). */
function approvalText(tool: ToolModel): string {
  const conditions = tool.approval.when.map(
    (c) =>
      `${c.approval} when ${Object.entries(c.args)
        .map(([field, value]) => `\`${field}\` = \`${JSON.stringify(value)}\``)
        .join(" and ")}`,
  );
  return conditions.length === 0 ? tool.approval.default : `${conditions.join("; ")}; else ${tool.approval.default}`;
}

function parameterRows(tool: ToolModel) {
  const props = (tool.parameters.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((tool.parameters.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, schema]) => ({
    name,
    type: typeOf(schema),
    required: required.has(name),
    description: schema.description ?? "",
  }));
}

/** A short human reading of a schema's type: `string (1–500)`, `"append" \| "replace"`, `array of object`. */
export function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(" \\| ") : String(schema.type ?? "any");
  if (type === "array" && schema.items && typeof schema.items === "object")
    return `array of ${typeOf(schema.items as JsonSchema)}`;
  const bounds = [schema.minLength ?? schema.minimum, schema.maxLength ?? schema.maximum];
  if (bounds[0] !== undefined || bounds[1] !== undefined) return `${type} (${bounds[0] ?? ""}–${bounds[1] ?? ""})`;
  return type;
}

function reasonsOf(model: ContractModel) {
  return model.errors.flatMap((e) =>
    Object.entries(e.reasons).map(([reason, m]) => ({ code: e.code, reason, zh: m["zh-CN"], en: m.en })),
  );
}

/** The per-keyword message templates of codes that name the failed rule (invalid_input). */
function rulesOf(model: ContractModel) {
  return model.errors.flatMap((e) =>
    Object.entries(e.rules).map(([keyword, m]) => ({ code: e.code, keyword, zh: m["zh-CN"], en: m.en })),
  );
}

function markdownCell(value: unknown): string {
  return String(value ?? "")
    .replace(/\|/g, "\\|")
    .replace(/\n/g, " ");
}
