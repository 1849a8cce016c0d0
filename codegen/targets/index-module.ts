/** generated/index.ts: what `import ... from "mnote-tools"` gives a plugin author. */
import type { Target } from "./target";
import { banner } from "../support/banner";

export const indexTarget: Target = {
  name: "index",
  emit(model) {
    const content = `${banner(model, "ts")}
export * from "./types";
export * from "./registry";
export * from "./validators";
export type { Validator, ValidationIssue } from "./validators/runtime/validator";
export * from "./kernel/client";
export * from "./kernel/transport";
export * from "./mcp/tools";
`;
    return [{ path: "index.ts", content }];
  },
};
