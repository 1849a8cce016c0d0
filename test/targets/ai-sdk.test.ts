/**
 * The ai-sdk target through the AI SDK's own loop (generateText with tools, two steps), driven by
 * its test model (MockLanguageModelV3, from ai/test): the model calls a tool, the SDK runs it, and
 * the model's next call reads the result. What the model read is what the test checks.
 */
import { approvalFor, type MnoteToolResult } from "../../generated/frameworks/connection";
import { mnoteToolApproval, mnoteTools } from "../../generated/ai-sdk";
import { aiSdkDriver } from "./ai-sdk-driver";
import { frameworkScenario } from "./scenario";

frameworkScenario("Vercel AI SDK", aiSdkDriver());
// the Gemini variant drops what Gemini's schema cannot say (additionalProperties, if/then): the
// runtime's validator still refuses it (the scenario's unknown member is one such case)
frameworkScenario("Vercel AI SDK (gemini variant)", aiSdkDriver("gemini"));

describe("Vercel AI SDK: what the model is shown", () => {
  it("every tool under its model-facing name with the chosen variant's schema; asking for approval as approvalFor says", async () => {
    const { providerTools } = await import("../../generated/providers");
    const fake = { dispatcher: { callModelTool: () => Promise.reject(new Error("not called")) } };
    for (const provider of ["portable", "openai-strict", "gemini"] as const) {
      const tools = mnoteTools({ connection: fake, session: { sessionId: "sess_x" }, provider });
      expect(Object.keys(tools).sort()).toEqual(providerTools[provider].map((d) => d.name).sort());
      for (const definition of providerTools[provider]) {
        const t = (tools as Record<string, any>)[definition.name];
        expect(t.description).toBe(definition.description);
        expect(await t.inputSchema.jsonSchema).toEqual(definition.parameters);
        // the openai-strict variant turns the provider's strict mode on; the others leave it unset
        expect(t.strict).toBe(provider === "openai-strict" ? true : undefined);
        // approval is the app's toolApproval (mnoteToolApproval), not the tool's: a tool the one
        // decision does not hold at ask is not asked about, and the runtime is not called
        // (test/targets/preview-before-yes.test.ts runs the ask path)
        expect(t.needsApproval).toBeUndefined();
        const approval = (
          mnoteToolApproval({ connection: fake, session: { sessionId: "sess_x" }, provider }) as Record<string, any>
        )[definition.name];
        if (approvalFor(definition.canonicalName, {}) !== "ask")
          expect(await approval({}, { toolCallId: "c", messages: [] })).toBe("not-applicable");
      }
    }
  });
});

/**
 * The docs' reading pattern under strict TypeScript (checked by npm run typecheck, which includes
 * this file): the result is a union over success and failure, so `ok` narrows it.
 */
export function docsPattern(read: MnoteToolResult): unknown {
  return read.ok ? read.result : read.error.message;
}
