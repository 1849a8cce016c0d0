/** Names derived from contract names; one place so every target derives them the same way. */

/** "page.save" / "create_ai_note" / "aiNote" -> "PageSave" / "CreateAiNote" / "AiNote". */
export function pascalCase(name: string): string {
  return name
    .split(/[._\-\s]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

export function camelCase(name: string): string {
  const p = pascalCase(name);
  return p[0]!.toLowerCase() + p.slice(1);
}

/** The type-name prefix of a tool: "mnote.page.save" -> "PageSave". */
export function toolTypePrefix(toolName: string): string {
  return pascalCase(toolName.replace(/^mnote\./, ""));
}

/** The name model providers accept (^[a-zA-Z0-9_-]{1,64}$): "mnote.page.save" -> "mnote_page_save". */
export function providerSafeName(toolName: string): string {
  return toolName.replace(/\./g, "_");
}

export const PROVIDER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
