/**
 * @mnote/runtime, the package entry (docs/PACKAGES.md): the dispatcher a backend embeds in front of
 * its own kernel, the approval policy and tokens, the state interfaces (no store, no driver), and
 * the kernel checks. The kernel clients are @mnote/contract's. Nothing here loads a native module,
 * a server framework or an exporter: the stores, the servers and the exporters are the package's
 * subpaths (./sqlite, ./redis, ./postgres, ./mcp, ./serve, ./otel), each with its own optional peer.
 */
export * from "./dispatch/dispatcher";
export { ToolFailure, refuse, isErrorCode, messageFor } from "./dispatch/tool-failure";
export { DEFAULT_LIMITS, type Limits } from "./dispatch/limits";
export { approvalPolicyFrom, allowEveryTool, ApprovalPolicyError, EMPTY_POLICY } from "./approval/policy";
export type { ApprovalPolicyIndex } from "./approval/policy";
export { signApproval, readApproval, checkApproval, newNonce, storeBoundKey, MIN_SECRET_BYTES } from "./approval/token";
export type { ApprovalClaims, TokenProblem } from "./approval/token";
export { previewText } from "./approval/preview-text";
export type { GrantStore } from "./state/grant-store";
export type {
  IdempotencyStore,
  StoredOutcome,
  Claim,
  SlotOfWrite,
  UncertainClaim,
  ApprovalUse,
} from "./state/idempotency-store";
export { checkKernel, STARTUP_CONTEXT, type KernelCheck } from "./kernel-check";
export { createFrameworkCaller, type FrameworkCaller, type FrameworkCallerOptions } from "./transports/framework-call";
