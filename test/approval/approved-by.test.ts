/**
 * Issue 28 item 6: an approvedBy that is not an identifier (an e-mail address) is refused when the
 * framework tools are made, by the contract's ApprovalGrant validator. Before, the tools were made,
 * the person said yes, and only then the approved write failed as invalid input.
 */
import { mnoteTools as aiSdkTools } from "../../generated/ai-sdk";
import { mnoteTools as agentsTools } from "../../generated/openai-agents";
import { mnoteTools as langchainTools } from "../../generated/langchain";

const targets: Array<[string, (options: any) => unknown]> = [
  ["AI SDK", aiSdkTools],
  ["OpenAI Agents", agentsTools],
  ["LangChain", langchainTools],
];

describe.each(targets)("%s: approvedBy checked when the tools are made", (_name, make) => {
  let calls = 0;
  const connection = {
    dispatcher: {
      callModelTool: () => {
        calls++;
        return Promise.reject(new Error("not called"));
      },
    },
  };
  const options = (approvedBy: unknown) => ({ connection, session: { sessionId: "sess_x" }, approvedBy });

  it.each([
    ["an e-mail address", "lin@example.com"],
    ["empty", ""],
    ["a space", "with space"],
    ["129 characters", "x".repeat(129)],
  ])("%s is refused at once, nothing sent", (_what, value) => {
    expect(() => make(options(value))).toThrow(/approvedBy is not an identifier/);
    expect(calls).toBe(0);
  });

  it("an identifier is accepted", () => {
    expect(() => make(options("lin_at_desk"))).not.toThrow();
  });
});
