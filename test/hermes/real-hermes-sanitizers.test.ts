/**
 * Hermes' own schema lowering, run on the portable variant, with the real Hermes Agent v0.18.0
 * modules (agent/gemini_schema.py, tools/schema_sanitizer.py). They are Hermes' code, never in this
 * repository: point MNOTE_HERMES_SRC at a folder holding them (shared/reference/hermes-real.md says
 * how to get them). Without it the test says "skipped".
 *   - Hermes' Gemini adapter keeps only Gemini's Schema keys: from portable it must remove nothing
 *     but what our gemini variant also drops (enforced by the validators), so the meaning is ours.
 *   - Hermes' llama.cpp sanitizer must leave portable exactly as it is.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { providerTools } from "../../generated/providers";

const src = process.env.MNOTE_HERMES_SRC;
// shared/hermes-agent-v0.18.0 holds the 24 modules that load and dispatch a plugin, which include
// tools/schema_sanitizer.py but not agent/gemini_schema.py: each half runs when its module is there.
const hasSanitizer = !!src && existsSync(join(src, "tools", "schema_sanitizer.py"));
const hasGemini = !!src && existsSync(join(src, "agent", "gemini_schema.py"));
// a skipped test names why in its title; the summary reporter prints it under Jest's summary
const noSanitizer =
  " (skipped: tools/schema_sanitizer.py of Hermes v0.18.0 not found: shared/hermes-agent-v0.18.0 beside the checkout, or set MNOTE_HERMES_SRC)";
const noGemini = ` (skipped: ${src ?? "MNOTE_HERMES_SRC"} has no agent/gemini_schema.py)`;

const script = `
import importlib.util, json, os, sys
sys.dont_write_bytecode = True
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
src, part = sys.argv[1], sys.argv[2]
tools = json.load(sys.stdin)
if part == "gemini":
    gemini = load("hermes_gemini_schema", os.path.join(src, "agent", "gemini_schema.py"))
    print(json.dumps([gemini.sanitize_gemini_tool_parameters(t["parameters"]) for t in tools]))
else:
    sanitizer = load("hermes_schema_sanitizer", os.path.join(src, "tools", "schema_sanitizer.py"))
    print(json.dumps(sanitizer.sanitize_tool_schemas([{"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]}} for t in tools])))
`;

/** One of Hermes' lowerings run on the portable variant, in python3. */
function lower(part: "gemini" | "llama"): any {
  const out = spawnSync("python3", ["-c", script, src!, part], {
    input: JSON.stringify(providerTools.portable),
    encoding: "utf8",
  });
  expect(out.stderr).toBe("");
  return JSON.parse(out.stdout);
}

describe("Hermes' own lowering of the portable variant (real Hermes v0.18.0 modules)", () => {
  (hasGemini ? it : it.skip)(
    `the Gemini adapter leaves portable meaning what our gemini variant means${hasGemini ? "" : noGemini}`,
    () => {
      expect(lower("gemini")).toEqual(providerTools.gemini.map((t) => t.parameters));
    },
  );
  (hasSanitizer ? it : it.skip)(
    `the llama.cpp sanitizer leaves portable as it is${hasSanitizer ? "" : noSanitizer}`,
    () => {
      expect(lower("llama").map((t: { function: { parameters: unknown } }) => t.function.parameters)).toEqual(
        providerTools.portable.map((t) => t.parameters),
      );
    },
  );
});
