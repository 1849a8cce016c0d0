/**
 * Per-tool comparison, tools matched by canonical name: the facts in x-mnote-tool (each its own
 * rule), then Args in the request direction and Result in the response direction.
 */
import type { ToolModel } from "../../codegen/model";
import { providerSafeName } from "../../codegen/support/names";
import { joinPointer } from "../../common/json-pointer";
import type { RuleId } from "../rules";
import type { Change } from "../types";
import { compareSchemas } from "./compare-schemas";
import { change, fromFinding } from "./change";
import { expanders, unchangedFile, type DiffSide } from "./side";
import { sameJson, show } from "../normalize/json";
import { compareApproval, describeCells } from "../judge/approval";
import { kernelReplyChanges } from "./kernel-replies";
import { fieldDomain, intersect } from "../normalize/arg-space";
import { compareBudget } from "./compare-budgets";

const FACTS = "/x-mnote-tool";

/**
 * The facts in x-mnote-tool and the rule a change of each is judged by: one table, so a new fact
 * (approval, …) is one row here and one rule in rules.ts. `semantics` is compared per hint, and
 * `messages` per error code (below).
 */
export const TOOL_FACT_RULES: ReadonlyArray<readonly [fact: keyof ToolModel, rule: RuleId]> = [
  ["providerName", "tool-provider-name-changed"],
  ["kernelCommand", "tool-kernel-command-changed"],
  ["capability", "tool-capability-changed"],
  ["effect", "tool-effect-changed"],
  ["idempotency", "tool-idempotency-changed"],
  ["dryRun", "tool-dry-run-changed"],
  ["title", "tool-title-changed"],
  ["description", "description-changed"],
  ["guideRole", "tool-guide-role-changed"],
];

const SCHEMAS = [
  { def: "Args", root: "/args", direction: "request" },
  { def: "Result", root: "/result", direction: "response" },
] as const;

export function compareTools(base: DiffSide, head: DiffSide): Change[] {
  const out: Change[] = [];
  const headNames = new Set(head.model.tools.map((t) => t.name));
  const baseNames = new Set(base.model.tools.map((t) => t.name));
  const removed = base.model.tools.filter((t) => !headNames.has(t.name));
  const added = head.model.tools.filter((t) => !baseNames.has(t.name));
  const renames = findRenames(removed, added);
  for (const old of removed) {
    const renamed = renames.get(old);
    if (!renamed) {
      // the base's file (the head has none): at the tool's name there
      const place = { file: old.file, filePointer: `${FACTS}/name` };
      out.push(
        change("tool-removed", old.name, "", place, `tool ${old.name} removed (it was in the base's ${old.file})`),
      );
      continue;
    }
    out.push(
      change(
        "tool-renamed",
        old.name,
        `${FACTS}/name`,
        { file: renamed.file, filePointer: `${FACTS}/name` },
        `tool ${old.name} renamed to ${renamed.name}`,
        old.name,
        renamed.name,
      ),
    );
    out.push(...compareTool(old, renamed, base, head, true));
  }
  const renamedTo = new Set(renames.values());
  for (const tool of added) {
    if (!renamedTo.has(tool))
      out.push(change("tool-added", tool.name, "", { file: tool.file, filePointer: "" }, `new tool ${tool.name}`));
  }
  for (const tool of base.model.tools) {
    const now = head.model.tools.find((t) => t.name === tool.name);
    if (now) out.push(...compareTool(tool, now, base, head, false));
  }
  return out;
}

/** A removed and an added tool running the same kernel command, one to one, are a rename. */
function findRenames(removed: ToolModel[], added: ToolModel[]): Map<ToolModel, ToolModel> {
  const out = new Map<ToolModel, ToolModel>();
  for (const old of removed) {
    const candidates = added.filter((t) => t.kernelCommand === old.kernelCommand);
    const rivals = removed.filter((t) => t.kernelCommand === old.kernelCommand);
    if (candidates.length === 1 && rivals.length === 1) out.set(old, candidates[0]!);
  }
  return out;
}

/** Approval, judged as a function from calls to levels, cell by cell (approval.ts): one rule each way. */
function compareToolApproval(
  b: ToolModel,
  a: ToolModel,
  base: DiffSide,
  head: DiffSide,
  at: (pointer: string) => { file: string; filePointer: string },
): Change[] {
  const out: Change[] = [];
  const subject = a.name;
  const argsOf = (side: DiffSide, tool: ToolModel) => side.inliner.at(tool.file, "/$defs/Args");
  const [argsBefore, argsAfter] = [argsOf(base, b), argsOf(head, a)];
  const shift = compareApproval(
    { before: b.approval, after: a.approval },
    { before: b.argDefaults, after: a.argDefaults },
    (field) => intersect(fieldDomain(argsBefore, field), fieldDomain(argsAfter, field)),
  );
  const pointer = joinPointer(FACTS, "approval");
  const approvalChange = (rule: RuleId, text: string) =>
    out.push(change(rule, subject, pointer, at(pointer), `approval ${text}`, b.approval, a.approval));
  if (shift.tooLarge)
    approvalChange("tool-approval-tightened", `${shift.tooLarge}: too many to judge, not proven unchanged`);
  if (shift.tightenedCount > 0)
    approvalChange("tool-approval-tightened", describeCells(shift.tightened, shift.tightenedCount).join("; "));
  if (shift.loosenedCount > 0)
    approvalChange("tool-approval-loosened", describeCells(shift.loosened, shift.loosenedCount).join("; "));
  return out;
}

function compareTool(b: ToolModel, a: ToolModel, base: DiffSide, head: DiffSide, renamed: boolean): Change[] {
  const out: Change[] = [];
  const subject = a.name;
  const at = (pointer: string) => ({ file: a.file, filePointer: pointer });
  for (const [fact, rule] of TOOL_FACT_RULES) {
    if (sameJson(b[fact], a[fact])) continue;
    // A rename changes the derived provider name too; only an override that differs is news.
    if (
      renamed &&
      fact === "providerName" &&
      b.providerName === providerSafeName(b.name) &&
      a.providerName === providerSafeName(a.name)
    )
      continue;
    const pointer = joinPointer(FACTS, fact);
    out.push(
      change(rule, subject, pointer, at(pointer), `${fact} ${show(b[fact])} -> ${show(a[fact])}`, b[fact], a[fact]),
    );
  }
  for (const key of ["destructive", "idempotent"] as const) {
    if (b.semantics[key] === a.semantics[key]) continue;
    const pointer = joinPointer(FACTS, "semantics", key);
    out.push(
      change(
        "tool-semantics-changed",
        subject,
        pointer,
        at(pointer),
        `semantics.${key} ${b.semantics[key]} -> ${a.semantics[key]}`,
        b.semantics[key],
        a.semantics[key],
      ),
    );
  }
  out.push(...compareToolApproval(b, a, base, head, at));
  out.push(...compareBudget(b, a, at));
  for (const code of [...new Set([...Object.keys(b.messages), ...Object.keys(a.messages)])].sort()) {
    if (sameJson(b.messages[code], a.messages[code])) continue;
    const pointer = joinPointer(FACTS, "messages", code);
    out.push(
      change(
        "message-changed",
        subject,
        pointer,
        at(pointer),
        `message override for ${code} changed`,
        b.messages[code],
        a.messages[code],
      ),
    );
  }
  // The same files (and everything they reach) on both sides: the schemas cannot differ.
  if (b.file === a.file && unchangedFile(base, head, a.file)) return out;
  for (const { def, root, direction } of SCHEMAS) {
    const before = base.inliner.at(b.file, `/$defs/${def}`);
    const after = head.inliner.at(a.file, `/$defs/${def}`);
    const fallback = { file: a.file, filePointer: `/$defs/${def}` };
    for (const f of compareSchemas(before, after, direction, expanders(base, head), root))
      out.push(fromFinding(f, subject, fallback, "wire"));
    // a tool's Result is what its kernel command replies with: judged for kernels too
    if (def === "Result" && a.kernelCommand)
      out.push(...kernelReplyChanges(before, after, expanders(base, head), root, subject, fallback));
  }
  return out;
}
