/**
 * The kernel is the other side of the contract: each command's Payload is a request TO the kernel
 * (the runtime writes it, the kernel reads it: a payload schema that accepts less breaks runtimes
 * that send it) and its Result is the kernel's response (one that promises less breaks runtimes
 * that read it). The command list itself: removed and renamed commands break runtimes that call
 * them; a new command is safe (no runtime built on the base calls it).
 */
import type { KernelCommandModel } from "../../codegen/model";
import { joinPointer } from "../../common/json-pointer";
import type { Change } from "../types";
import { compareSchemas } from "./compare-schemas";
import { change, fromFinding } from "./change";
import { expanders, unchangedFile, type DiffSide } from "./side";
import { kernelReplyChanges } from "./kernel-replies";
import { canonical, show } from "../normalize/json";

const FACTS = "/x-mnote-kernel-command";

const SCHEMAS = [
  { def: "Payload", root: "/payload", direction: "request" },
  { def: "Result", root: "/result", direction: "response" },
] as const;

/** Kernel changes are reported under "kernel:<command name>". */
export const kernelSubject = (name: string): string => `kernel:${name}`;

export function compareKernel(base: DiffSide, head: DiffSide): Change[] {
  const out: Change[] = [];
  const headByName = new Map(head.model.kernelCommands.map((c) => [c.name, c]));
  const baseByName = new Map(base.model.kernelCommands.map((c) => [c.name, c]));
  const removed = base.model.kernelCommands.filter((c) => !headByName.has(c.name));
  const added = head.model.kernelCommands.filter((c) => !baseByName.has(c.name));
  const renames = findRenames(removed, added, base, head);
  for (const old of removed) {
    const now = renames.get(old);
    if (!now) {
      out.push(
        change(
          "kernel-command-removed",
          kernelSubject(old.name),
          "",
          { file: old.file, filePointer: joinPointer(FACTS, "name") },
          `kernel command ${old.name} removed (it was in the base's ${old.file})`,
        ),
      );
      continue;
    }
    const pointer = joinPointer(FACTS, "name");
    out.push(
      change(
        "kernel-command-renamed",
        kernelSubject(old.name),
        pointer,
        { file: now.file, filePointer: pointer },
        `kernel command ${old.name} renamed to ${now.name}`,
        old.name,
        now.name,
      ),
    );
    out.push(...compareCommand(old, now, base, head));
  }
  const renamedTo = new Set(renames.values());
  for (const c of added) {
    if (!renamedTo.has(c))
      out.push(
        change(
          "kernel-command-added",
          kernelSubject(c.name),
          "",
          { file: c.file, filePointer: "" },
          `new kernel command ${c.name}`,
        ),
      );
  }
  for (const c of base.model.kernelCommands) {
    const now = headByName.get(c.name);
    if (now) out.push(...compareCommand(c, now, base, head));
  }
  return out;
}

/**
 * A removed and an added command are a rename when a tool moved from one to the other, or, one to
 * one, when their payload and result schemas are the same.
 */
function findRenames(
  removed: KernelCommandModel[],
  added: KernelCommandModel[],
  base: DiffSide,
  head: DiffSide,
): Map<KernelCommandModel, KernelCommandModel> {
  const out = new Map<KernelCommandModel, KernelCommandModel>();
  const shape = (side: DiffSide, c: KernelCommandModel) =>
    canonical(SCHEMAS.map(({ def }) => side.inliner.at(c.file, `/$defs/${def}`)));
  for (const old of removed) {
    const byTool = base.model.tools
      .filter((t) => t.kernelCommand === old.name)
      .map((t) => head.model.tools.find((h) => h.name === t.name)?.kernelCommand)
      .map((name) => added.find((c) => c.name === name))
      .filter((c): c is KernelCommandModel => c !== undefined);
    const candidates = byTool.length > 0 ? byTool : added.filter((c) => shape(head, c) === shape(base, old));
    if (candidates.length === 1 && ![...out.values()].includes(candidates[0]!)) out.set(old, candidates[0]!);
  }
  return out;
}

function compareCommand(b: KernelCommandModel, a: KernelCommandModel, base: DiffSide, head: DiffSide): Change[] {
  const out: Change[] = [];
  const subject = kernelSubject(a.name);
  if (b.effect !== a.effect) {
    const pointer = joinPointer(FACTS, "effect");
    out.push(
      change(
        "kernel-command-effect-changed",
        subject,
        pointer,
        { file: a.file, filePointer: pointer },
        `effect ${show(b.effect)} -> ${show(a.effect)}`,
        b.effect,
        a.effect,
      ),
    );
  }
  if (b.description !== a.description) {
    const pointer = joinPointer(FACTS, "description");
    out.push(
      change(
        "description-changed",
        subject,
        pointer,
        { file: a.file, filePointer: pointer },
        "description changed",
        b.description,
        a.description,
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
      out.push(fromFinding(f, subject, fallback, "kernel"));
    // the result is the kernel's reply: judged for kernels too
    if (def === "Result")
      out.push(...kernelReplyChanges(before, after, expanders(base, head), root, subject, fallback));
  }
  return out;
}
