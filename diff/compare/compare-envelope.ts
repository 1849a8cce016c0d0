/**
 * The envelope every tool shares. ToolRequest and SessionGrant are written by callers (the plugin,
 * the app) and read by the runtime; the response definitions are written by the runtime. The host's
 * approval policy file is written by an operator and read by the host, like a request.
 */
import type { Change, Direction } from "../types";
import { compareSchemas } from "./compare-schemas";
import { fromFinding, type Surface } from "./change";
import { expanders, unchangedFile, type DiffSide } from "./side";
import { kernelReplyChanges } from "./kernel-replies";

export const ENVELOPE_DEFINITIONS: ReadonlyArray<{
  file: string;
  def: string;
  direction: Direction;
  surface: Surface;
  /** Written by kernels and checked by the kernel client: also judged for kernels (kernel-replies.ts). */
  kernelReply?: true;
}> = [
  { file: "envelope/request.schema.json", def: "ToolRequest", direction: "request", surface: "wire" },
  { file: "envelope/session-grant.schema.json", def: "SessionGrant", direction: "request", surface: "wire" },
  // The host's approval policy file: written by operators, read by every host (serve, mcp, call).
  // A narrowing refuses policy files that loaded before, so it is judged like a request.
  { file: "envelope/approval-policy.schema.json", def: "ApprovalPolicy", direction: "request", surface: "wire" },
  // The body of POST /v1/tools/model-call (and the in-process call): written by the framework targets.
  { file: "envelope/framework-call.schema.json", def: "FrameworkToolCall", direction: "request", surface: "wire" },
  { file: "envelope/response.schema.json", def: "ToolSuccess", direction: "response", surface: "wire" },
  { file: "envelope/response.schema.json", def: "ToolFailure", direction: "response", surface: "wire" },
  { file: "envelope/response.schema.json", def: "Audit", direction: "response", surface: "wire" },
  { file: "envelope/response.schema.json", def: "ToolError", direction: "response", surface: "wire" },
  // The union itself: a new variant is news even when ToolSuccess and ToolFailure stay the same.
  { file: "envelope/response.schema.json", def: "ToolResponse", direction: "response", surface: "wire" },
  // Between the runtime and the kernel: the runtime writes the context, the write facts and the
  // request; the kernel writes the reply and its errors.
  { file: "kernel/envelope.schema.json", def: "KernelContext", direction: "request", surface: "kernel" },
  { file: "kernel/envelope.schema.json", def: "KernelWrite", direction: "request", surface: "kernel" },
  { file: "kernel/envelope.schema.json", def: "KernelRequest", direction: "request", surface: "kernel" },
  {
    file: "kernel/envelope.schema.json",
    def: "KernelError",
    direction: "response",
    surface: "kernel",
    kernelReply: true,
  },
  {
    file: "kernel/envelope.schema.json",
    def: "KernelReply",
    direction: "response",
    surface: "kernel",
    kernelReply: true,
  },
];

export function compareEnvelope(base: DiffSide, head: DiffSide): Change[] {
  const out: Change[] = [];
  for (const { file, def, direction, surface, kernelReply } of ENVELOPE_DEFINITIONS) {
    // The same file (and everything it reaches) on both sides: nothing to compare.
    if (unchangedFile(base, head, file)) continue;
    const pointer = `/$defs/${def}`;
    // A definition the base does not have is new (its exports say so), not a narrowing of "anything".
    if (base.inliner.at(file, pointer) === undefined) continue;
    const findings = compareSchemas(
      base.inliner.at(file, pointer),
      head.inliner.at(file, pointer),
      direction,
      expanders(base, head),
      `/${def}`,
    );
    for (const f of findings) out.push(fromFinding(f, "envelope", { file, filePointer: pointer }, surface));
    if (kernelReply)
      out.push(
        ...kernelReplyChanges(
          base.inliner.at(file, pointer),
          head.inliner.at(file, pointer),
          expanders(base, head),
          `/${def}`,
          "envelope",
          { file, filePointer: pointer },
        ),
      );
  }
  return out;
}
