/**
 * generated/frameworks/connection.ts: what the three agent-framework targets (ai-sdk, langchain,
 * openai-agents) share, so each of them is only the framework's own tool shape.
 *
 *   - the connection: `{ url, token }` for `mnote-tools serve` (POST /v1/tools/model-call), or
 *     `{ dispatcher }` in process (the runtime's frameworkCaller); either way the runtime turns the
 *     model's call into a request (runtime/transports/framework-call.ts: validate, raise, the tool
 *     call id hashed into the idempotency key), so no framework's own parsing is trusted;
 *   - the session binding (the session whose grant the runtime holds);
 *   - the model-facing tool definitions of a provider variant, and the model view of an answer;
 *   - the W3C trace context of the caller's active span, sent on with every call;
 *   - the approval seam (approvalFor), one function every target's approval hook asks, over the one
 *     decision (frameworks/decision.ts) the runtime makes too (runtime/approval/level.ts);
 *   - the approval step (frameworks/approval-step.ts): the runtime's preview made when the framework
 *     asks whether a call needs a person, before they decide, and the token only a yes releases.
 *
 * The file is the same for every contract except the union of the model-facing tool names.
 *
 * The text of each file is in codegen/targets/frameworks/, one function per part of the file.
 */
import type { Target } from "./target";
import { banner } from "../support/banner";
import { approvalStepFile } from "./frameworks/approval-step";
import { connectionFile } from "./frameworks/connection";
import { decisionFile } from "./frameworks/decision";

// the ai-sdk, langchain and openai-agents targets import it from here
export { literalUnion } from "./frameworks/literal-union";

/** The folder (inside the output folder) of the shared file; the targets import it from their own folders. */
export const FRAMEWORKS_DIR = "frameworks";

export const frameworksTarget: Target = {
  name: "frameworks",
  emit(model) {
    // the call's type and validator are the contract's (envelope/framework-call.schema.json); a
    // contract cut before it (a release the diff reads) is never generated from
    if (!model.schemas.some((s) => s.typeName === "FrameworkToolCall"))
      throw new Error("the contract has no FrameworkToolCall (envelope/framework-call.schema.json)");
    const head = banner(model, "ts");
    return [
      { path: `${FRAMEWORKS_DIR}/approval-step.ts`, content: approvalStepFile(head) },
      {
        path: `${FRAMEWORKS_DIR}/connection.ts`,
        content: connectionFile(
          head,
          model.tools.map((t) => t.providerName),
        ),
      },
      { path: `${FRAMEWORKS_DIR}/decision.ts`, content: decisionFile(head) },
    ];
  },
};
