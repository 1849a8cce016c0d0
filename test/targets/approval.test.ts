/**
 * The approval seam (issue 19 wires the policy into it): each target's approval hook asks one
 * function, approvalFor, which answers "ask" exactly when the tool's registry entry carries an
 * approval fact. Today's contract has none, so every hook says no approval; with an entry that
 * carries one (set here on the registry object, as a generated fact would), both SDK hooks ask.
 */
import { tools as registry } from "../../generated/registry";
import { approvalFor } from "../../generated/frameworks/connection";
import { mnoteTools as aiSdkTools } from "../../generated/ai-sdk";
import { mnoteTools as agentsTools } from "../../generated/openai-agents";

const fake = { dispatcher: { callModelTool: () => Promise.reject(new Error("not called")) } };
const options = { connection: fake, session: { sessionId: "sess_x" } };

describe("the approval seam", () => {
  it("today's contract: no tool asks", () => {
    for (const name of Object.keys(registry) as (keyof typeof registry)[]) expect(approvalFor(name, {})).toBe("allow");
  });

  it("a registry entry with an approval fact makes the AI SDK's and the Agents SDK's hooks ask, for that tool only", async () => {
    const entry = registry["mnote.page.save"] as unknown as Record<string, unknown>;
    Object.defineProperty(entry, "approval", { value: { required: true }, configurable: true });
    try {
      expect(approvalFor("mnote.page.save", {})).toBe("ask");
      expect(approvalFor("mnote.page.get", {})).toBe("allow");
      const ai = aiSdkTools(options);
      const call = { toolCallId: "c", messages: [] };
      expect(await (ai.mnote_page_save.needsApproval as (i: unknown, o: unknown) => unknown)({}, call)).toBe(true);
      expect(await (ai.mnote_page_get.needsApproval as (i: unknown, o: unknown) => unknown)({}, call)).toBe(false);
      const agents = agentsTools(options);
      const save = agents.find((t) => t.name === "mnote_page_save")!;
      const get = agents.find((t) => t.name === "mnote_page_get")!;
      expect(await save.needsApproval({} as never, {}, "c")).toBe(true);
      expect(await get.needsApproval({} as never, {}, "c")).toBe(false);
    } finally {
      delete entry.approval;
    }
    expect(approvalFor("mnote.page.save", {})).toBe("allow");
  });
});
