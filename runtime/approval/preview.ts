/**
 * The preview a person approves: the tool's own dry run, as the contract's ApprovalPreview. The
 * diff carries counts, and titles or option values the call itself names, never page content, so
 * a preview shows nothing page.get would not show the same session (less: no block text at all).
 */
import type * as T from "../../generated/types";

/** The preview of a dry-run result (DryRunResult). */
export function previewOf(dryRun: Record<string, unknown>): T.ApprovalPreview {
  const result = dryRun as unknown as T.DryRunResult;
  const preview: T.ApprovalPreview = { commandName: result.commandName, ops: result.diff };
  if (typeof result.baseRevision === "number") preview.revision = result.baseRevision;
  // a body replaced: the block counts before and after (an append adds to a count the dry run does not report)
  const replace = result.diff.find((op) => op.op === "replace");
  if (replace && typeof replace.blocks === "number" && typeof replace.removedBlocks === "number")
    preview.blockCounts = { before: replace.removedBlocks, after: replace.blocks };
  return preview;
}

/**
 * One screen for a person: what the call would change, in English, from the preview and the
 * call's own args (never from the page). Used by the MCP server's elicitation; the Hermes plugin
 * renders the same preview in Python (codegen/templates/hermes).
 */
export function previewSummary(toolTitle: string, preview: T.ApprovalPreview): string {
  const lines = [`${toolTitle}${preview.revision !== undefined ? ` (page revision ${preview.revision})` : ""}:`];
  for (const op of preview.ops) lines.push(`- ${describeOp(op)}`);
  if (preview.ops.length === 0) lines.push("- no change");
  return lines.join("\n");
}

function describeOp(op: T.DiffOp): string {
  const n = (count: number | undefined, what: string) => `${count ?? 0} ${what}${count === 1 ? "" : "s"}`;
  switch (op.op) {
    case "replace":
      return `replace the whole body: ${n(op.removedBlocks, "block")} removed, ${n(op.blocks, "block")} written`;
    case "append":
      return `append ${n(op.blocks, "block")}`;
    case "set_title":
      return `rename the page to ${JSON.stringify(op.value)}`;
    case "set_option":
      return `set option ${op.field} to ${JSON.stringify(op.value)}`;
    default:
      return [op.op.replace(/_/g, " "), op.chars !== undefined ? `(${n(op.chars, "character")})` : ""].join(" ").trim();
  }
}
