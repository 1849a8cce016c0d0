/** Whether an answer counts as delivered (docs/RELIABILITY.md, "What the server can know"). */
import type { ServerResponse } from "node:http";

/**
 * Sends an answer, and says whether it counts as delivered: see watchDelivery. `write` sends the
 * whole answer; `onDelivered`, when given, runs once the answer counts as delivered (never when it
 * does not).
 */
export type DeliveringWrite = (write: () => void, onDelivered?: () => void) => Promise<void>;

/**
 * Watches one response from the start of its request, for the delivery rule (docs/RELIABILITY.md,
 * "What the server can know"). An answer counts as delivered only when
 *
 * 1. no hang-up of the client had been read when the answer was written: before it writes an
 *    answer that has something to deliver, the server lets the event loop poll its sockets once
 *    (ioTurn), so a FIN or a reset that arrived while the call ran (the client closed at once;
 *    the embedded kernel answers in a millisecond, all of it without touching the event loop) is
 *    read first; then the connection must be open in both directions: not destroyed, no error,
 *    and no end of the request's stream (a FIN: the client closed, or at least said it sends
 *    nothing more);
 * 2. the whole answer was handed to the operating system's socket buffer ('finish') while the
 *    connection was still open: no 'close' of the response before 'finish', no error.
 *
 * What happens after that is not seen: TCP tells a server neither that the client's host received
 * the bytes nor that its program read them, so a client that resets after the answer reached its
 * buffer (read 12 bytes of it, or none) is counted as delivered. Call it at the start of the
 * handler: a hang-up during a long write happens before the answer exists.
 */
export function watchDelivery(res: ServerResponse): DeliveringWrite {
  // captured now: the response lets go of its socket once it finished
  const socket = res.socket;
  let lost = false;
  res.once("close", () => {
    if (!res.writableFinished) lost = true;
  });
  res.once("error", () => (lost = true));
  const hungUp = () =>
    lost || res.destroyed || !socket || socket.destroyed || socket.errored !== null || socket.readableEnded;
  return async (write, onDelivered) => {
    if (!onDelivered) return write();
    await ioTurn();
    if (!hungUp())
      res.once("finish", () => {
        if (!lost && !res.destroyed && !socket!.errored) onDelivered();
      });
    write();
  };
}

/**
 * Resolves after the event loop polled for I/O at least once: whatever had already arrived on a
 * socket (data, a FIN, a reset) has been read by then. setImmediate runs after the poll of its
 * own turn, which may have passed already; the second one runs after the next turn's poll.
 */
function ioTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
