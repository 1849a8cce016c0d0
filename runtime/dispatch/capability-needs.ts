/**
 * What a capability needs: everything it requires (the catalog's `requires`) and itself, in that
 * order. Computed once per capability instead of a new array on every check of every call.
 */
import { capabilities } from "../../generated/registry";
import type { CapabilityScope } from "../../generated/types";

const needs = new Map<string, readonly CapabilityScope[]>();

/** The capabilities a request's scope (and the actor's access) must hold for a tool of this capability. */
export function capabilityNeeds(capability: CapabilityScope): readonly CapabilityScope[] {
  let list = needs.get(capability);
  if (list === undefined) {
    list = Object.freeze([...capabilities[capability].requires, capability]);
    needs.set(capability, list);
  }
  return list;
}
