/** access.check: the design note's check points (signed in, member, capabilities on the page). */
import type * as T from "../../generated/types";
import type { ReferenceKernel } from "../reference-kernel";
import type { CommandReply } from ".";

export function accessCheck(kernel: ReferenceKernel, payload: T.AccessCheckPayload): CommandReply {
  return { commandId: null, replayed: false, result: kernel.accessWithPage(payload.context).access };
}
