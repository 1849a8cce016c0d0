/**
 * The envelope every tool shares. ToolRequest and SessionGrant are written by callers (the plugin,
 * the app) and read by the runtime; the response definitions are written by the runtime.
 */
import type { Change, Direction } from "./types";
import { compareSchemas } from "./compare-schemas";
import { fromFinding } from "./change";
import { expanders, type DiffSide } from "./side";

export const ENVELOPE_DEFINITIONS: ReadonlyArray<{ file: string; def: string; direction: Direction }> = [
  { file: "envelope/request.schema.json", def: "ToolRequest", direction: "request" },
  { file: "envelope/session-grant.schema.json", def: "SessionGrant", direction: "request" },
  { file: "envelope/response.schema.json", def: "ToolSuccess", direction: "response" },
  { file: "envelope/response.schema.json", def: "ToolFailure", direction: "response" },
  { file: "envelope/response.schema.json", def: "Audit", direction: "response" },
  { file: "envelope/response.schema.json", def: "ToolError", direction: "response" },
  // The union itself: a new variant is news even when ToolSuccess and ToolFailure stay the same.
  { file: "envelope/response.schema.json", def: "ToolResponse", direction: "response" },
  // Between the runtime and the kernel: the runtime writes the context, the write facts and the
  // request; the kernel writes the reply and its errors.
  { file: "kernel/envelope.schema.json", def: "KernelContext", direction: "request" },
  { file: "kernel/envelope.schema.json", def: "KernelWrite", direction: "request" },
  { file: "kernel/envelope.schema.json", def: "KernelRequest", direction: "request" },
  { file: "kernel/envelope.schema.json", def: "KernelError", direction: "response" },
  { file: "kernel/envelope.schema.json", def: "KernelReply", direction: "response" },
];

export function compareEnvelope(base: DiffSide, head: DiffSide): Change[] {
  const out: Change[] = [];
  for (const { file, def, direction } of ENVELOPE_DEFINITIONS) {
    const pointer = `/$defs/${def}`;
    const findings = compareSchemas(
      base.inliner.at(file, pointer),
      head.inliner.at(file, pointer),
      direction,
      expanders(base, head),
      `/${def}`,
    );
    for (const f of findings) out.push(fromFinding(f, "envelope", { file, filePointer: pointer }));
  }
  return out;
}
