/** One side of a diff: the built model, and an inliner over its schema files. */
import type { ContractModel } from "../model";
import { Inliner } from "./inline";
import type { Expanders } from "./compare-schemas";

/**
 * Compared on their own (catalog rules, envelope definitions), so schemas that use them compare
 * only the reference: one edit is reported once, under the rule that fits it.
 */
export const SEPARATELY_COMPARED = new Set([
  "catalog/errors.schema.json#/$defs/ErrorCode",
  "catalog/capabilities.schema.json#/$defs/CapabilityScope",
  "envelope/response.schema.json#/$defs/Audit",
  "envelope/response.schema.json#/$defs/ToolError",
  "envelope/response.schema.json#/$defs/ToolSuccess",
  "envelope/response.schema.json#/$defs/ToolFailure",
  "kernel/envelope.schema.json#/$defs/KernelContext",
  "kernel/envelope.schema.json#/$defs/KernelWrite",
  "kernel/envelope.schema.json#/$defs/KernelError",
]);

/** Tool schemas are compared under their tool; a kernel command that uses them compares only the reference. */
function toolSchemas(model: ContractModel): string[] {
  return model.tools.flatMap((t) => [`${t.file}#/$defs/Args`, `${t.file}#/$defs/Result`]);
}

export interface DiffSide {
  model: ContractModel;
  inliner: Inliner;
}

export function diffSide(model: ContractModel): DiffSide {
  return {
    model,
    inliner: new Inliner(model.schemaFiles, model.baseUri, new Set([...SEPARATELY_COMPARED, ...toolSchemas(model)])),
  };
}

export function expanders(base: DiffSide, head: DiffSide): Expanders {
  return { before: (m) => base.inliner.expand(m), after: (m) => head.inliner.expand(m) };
}
