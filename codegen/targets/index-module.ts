/**
 * generated/index.ts: what `import ... from "@mnote/contract"` gives a plugin author. The kernel
 * client, the MCP definitions, the provider variants and the raise step are exported only when
 * their targets run beside it.
 */
import type { Target } from "./target";
import { banner } from "../support/banner";

export const indexTarget: Target = {
  name: "index",
  emit(model, context) {
    const selected = (name: string) => context.targets.includes(name);
    const content = `${banner(model, "ts")}
export * from "./types";
export * from "./registry";
export * from "./validators";
export type { Validator, ValidationIssue } from "./validators/runtime/validator";
${selected("kernel-client") ? 'export * from "./kernel/client";\nexport * from "./kernel/transport";\n' : ""}${selected("mcp") ? 'export * from "./mcp/tools";\n' : ""}${selected("providers") ? 'export * from "./providers";\n' : ""}${selected("raise") ? 'export * from "./raise";\n' : ""}`;
    return [{ path: "index.ts", content }];
  },
};
