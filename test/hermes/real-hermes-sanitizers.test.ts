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
const present =
  !!src && existsSync(join(src, "agent", "gemini_schema.py")) && existsSync(join(src, "tools", "schema_sanitizer.py"));
const run = present ? it : it.skip;
if (!present)
  console.log(
    "real Hermes modules: skipped (set MNOTE_HERMES_SRC to a folder with agent/gemini_schema.py and tools/schema_sanitizer.py from Hermes v0.18.0)",
  );

const script = `
import importlib.util, json, os, sys
sys.dont_write_bytecode = True
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
src = sys.argv[1]
gemini = load("hermes_gemini_schema", os.path.join(src, "agent", "gemini_schema.py"))
sanitizer = load("hermes_schema_sanitizer", os.path.join(src, "tools", "schema_sanitizer.py"))
tools = json.load(sys.stdin)
print(json.dumps({
    "gemini": [gemini.sanitize_gemini_tool_parameters(t["parameters"]) for t in tools],
    "llama": sanitizer.sanitize_tool_schemas([{"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]}} for t in tools]),
}))
`;

describe("Hermes' own lowering of the portable variant (real Hermes v0.18.0 modules)", () => {
  run(
    "the Gemini adapter leaves portable meaning what our gemini variant means; the llama.cpp sanitizer leaves it as it is",
    () => {
      const portable = providerTools.portable;
      const out = spawnSync("python3", ["-c", script, src!], { input: JSON.stringify(portable), encoding: "utf8" });
      expect(out.stderr).toBe("");
      const result = JSON.parse(out.stdout);
      expect(result.gemini).toEqual(providerTools.gemini.map((t) => t.parameters));
      expect(result.llama.map((t: { function: { parameters: unknown } }) => t.function.parameters)).toEqual(
        portable.map((t) => t.parameters),
      );
    },
  );
});
