/**
 * A catalog message names the error's own fields in braces: `{retryAfterSeconds}` in
 * mnote_tool_rate_limited's text is the value of `error.retryAfterSeconds` (contract/README.md,
 * "Facts code reads from the contract"). The runtime fills any `{name}` from the error it answers,
 * so it spells no placeholder itself; this check makes a placeholder that names no field of
 * ToolError a contract error (file and place), instead of text a model reads unfilled. A
 * rules template (`{field}`, `{limit}`) has its own two placeholders and is not checked here.
 */
import type { ContractModel, Messages } from "../model";

type PathReport = (path: string, pointer: string, message: string) => void;

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g;
const RESPONSE_FILE = "envelope/response.schema.json";

/** Every `{name}` in a catalog or tool message names a string, integer or number field of ToolError. */
export function checkMessagePlaceholders(model: ContractModel, report: PathReport): void {
  const toolError = model.schemas.find((s) => s.file === RESPONSE_FILE && s.ref.endsWith("#/$defs/ToolError"));
  const properties = (toolError?.schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const fillable = new Set(
    Object.entries(properties)
      .filter(([, p]) => p.type === "string" || p.type === "integer" || p.type === "number")
      .map(([name]) => name),
  );
  const check = (file: string, pointer: string, messages: Messages) => {
    for (const [locale, text] of Object.entries(messages as unknown as Record<string, string>))
      for (const [, name = ""] of text.matchAll(PLACEHOLDER))
        if (!fillable.has(name))
          report(
            file,
            `${pointer}/${locale}`,
            `{${name}} names no field of the error (ToolError's string or number fields: ${[...fillable].join(", ")})`,
          );
  };
  model.errors.forEach((e, i) => {
    const at = `/$defs/ErrorCode/oneOf/${i}/x-mnote-error`;
    check("catalog/errors.schema.json", `${at}/messages`, e.messages);
    for (const [reason, messages] of Object.entries(e.reasons))
      check("catalog/errors.schema.json", `${at}/reasons/${reason}`, messages);
  });
  for (const tool of model.tools)
    for (const [code, messages] of Object.entries(tool.messages))
      check(tool.file, `/x-mnote-tool/messages/${code}`, messages);
}
