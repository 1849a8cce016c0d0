/** access.check: the design note's check points (signed in, member, capabilities on the page). */
import type * as T from "../../generated/types";
import type { CommandReply, KernelPort } from "../port";

export function accessCheck(kernel: KernelPort, payload: T.AccessCheckPayload): CommandReply {
  return { commandId: null, replayed: false, result: kernel.accessWithPage(payload.context).access };
}
