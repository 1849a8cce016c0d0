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
]);

export interface DiffSide {
  model: ContractModel;
  inliner: Inliner;
}

export function diffSide(model: ContractModel): DiffSide {
  return { model, inliner: new Inliner(model.schemaFiles, model.baseUri, SEPARATELY_COMPARED) };
}

export function expanders(base: DiffSide, head: DiffSide): Expanders {
  return { before: (m) => base.inliner.expand(m), after: (m) => head.inliner.expand(m) };
}
