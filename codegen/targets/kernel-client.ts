/**
 * The typed kernel client: one method per kernel command, over any transport. It validates what it
 * sends and what it gets back against the contract, so a kernel that drifts from the contract
 * fails loudly here instead of somewhere in the dispatcher. The transports themselves do not
 * depend on the contract and are copied from codegen/assets/kernel.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Target } from "./target";
import { banner } from "../support/banner";
import { tsString } from "../support/ts-literal";
import { assetsDir } from "../support/templates";

export const kernelClientTarget: Target = {
  name: "kernel-client",
  emit(model) {
    const methods = model.kernelCommands
      .map(
        (k) =>
          `  /** ${k.name}: ${k.description} */\n  ${k.methodName}(payload: T.${k.payloadType}): Promise<T.${k.resultType}>;`,
      )
      .join("\n");
    const map = model.kernelCommands
      .map((k) => `  ${tsString(k.name)}: { payload: T.${k.payloadType}; result: T.${k.resultType} };`)
      .join("\n");
    const impls = model.kernelCommands
      .map((k) => `    ${k.methodName}: (payload) => call(${tsString(k.name)}, payload),`)
      .join("\n");
    const client = `${banner(model, "ts")}
import type * as T from "../types";
import { kernelCommands, type KernelCommandName } from "../registry";
import { validateKernelReply } from "../validators";
import { KernelRefusal, KernelTransportError, type KernelTransport } from "./transport";

/** Payload and result type of every kernel command. */
export interface KernelCommandMap {
${map}
}

/** A kernel, as the runtime sees it. */
export interface KernelClient {
${methods}
  /** Any command by name: what the dispatcher uses, since it knows tools only from the registry. */
  call<K extends KernelCommandName>(command: K, payload: KernelCommandMap[K]["payload"]): Promise<KernelCommandMap[K]["result"]>;
}

export function createKernelClient(transport: KernelTransport): KernelClient {
  const call = async <K extends KernelCommandName>(command: K, payload: KernelCommandMap[K]["payload"]): Promise<KernelCommandMap[K]["result"]> => {
    const descriptor = kernelCommands[command];
    if (!descriptor.validatePayload(payload)) {
      const issue = descriptor.validatePayload.errors?.[0];
      throw new KernelTransportError("protocol", \`kernel \${command}: refusing to send an invalid payload (\${issue?.instancePath || "/"} \${issue?.message ?? ""})\`);
    }
    const reply = await transport(command, payload);
    if (!validateKernelReply(reply)) {
      throw new KernelTransportError("protocol", \`kernel \${command}: the reply is not a KernelReply\`);
    }
    if (!reply.ok) throw new KernelRefusal(reply.error.code, reply.error.reason, reply.error.field);
    if (!descriptor.validateResult(reply.result)) {
      const issue = descriptor.validateResult.errors?.[0];
      throw new KernelTransportError("protocol", \`kernel \${command}: the result does not match the contract (\${issue?.instancePath || "/"} \${issue?.message ?? ""})\`);
    }
    return reply.result as KernelCommandMap[K]["result"];
  };
  return {
${impls}
    call,
  };
}
`;
    const transport = banner(model, "ts") + readFileSync(join(assetsDir("kernel"), "transport.ts"), "utf8");
    return [
      { path: "kernel/client.ts", content: client },
      { path: "kernel/transport.ts", content: transport },
    ];
  },
};
