/**
 * `mnote-tools call`: the CLI JSON adapter. One request envelope on stdin, one response envelope on
 * stdout. Exit 0 whenever an envelope was written, ok or not; non-zero only when no answer could
 * be given at all.
 */
import { runtimeFrom, type RuntimeCliOptions } from "../runtime-options";

export async function runCall(opts: RuntimeCliOptions): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const runtime = await runtimeFrom(opts);
  try {
    const response = await runtime.dispatcher.dispatch(Buffer.concat(chunks));
    process.stdout.write(JSON.stringify(response) + "\n");
  } finally {
    await runtime.close();
  }
}
