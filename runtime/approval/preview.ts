/**
 * The preview a person approves: the tool's own dry run, as the contract's ApprovalPreview. The
 * diff carries counts, the values the call itself names, the page's title and the first words of
 * the blocks written and removed (bounded by the kernel: contract/envelope/results.schema.json),
 * so a preview shows nothing page.get would not show the same session.
 */
import type * as T from "../../generated/types";

/** The preview of a dry-run result (DryRunResult). */
export function previewOf(dryRun: Record<string, unknown>): T.ApprovalPreview {
  const result = dryRun as unknown as T.DryRunResult;
  const preview: T.ApprovalPreview = { commandName: result.commandName, ops: result.diff };
  if (typeof result.baseRevision === "number") preview.revision = result.baseRevision;
  if (typeof result.pageTitle === "string") preview.pageTitle = result.pageTitle;
  // a body replaced: the block counts before and after (an append adds to a count the dry run does not report)
  const replace = result.diff.find((op) => op.op === "replace");
  if (replace && typeof replace.blocks === "number" && typeof replace.removedBlocks === "number")
    preview.blockCounts = { before: replace.removedBlocks, after: replace.blocks };
  return preview;
}
