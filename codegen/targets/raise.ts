/**
 * The raise step: a model's call (a tool's arguments as the model sends them) turned into the
 * contract's canonical args before validation. Models send null for optional fields they do not
 * mean to set, and fill every field of an object they are shown (OpenAI strict mode makes them);
 * the raise step reads null as "absent", and an unwired option sent with the value that means
 * "as it is" as "leave it". It never invents or coerces a value: whatever else is wrong is left for
 * the validators to report. The facts come from codegen/providers/raise-facts.ts and are emitted
 * once as data, read by the TypeScript raise (MCP server) and the Python raise (Hermes plugin).
 * The envelope API (`call`, POST /v1/tools/call) does not raise: its callers are programs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import type { Target } from "./target";
import { banner, bannerText } from "../support/banner";
import { tsLiteral } from "../support/ts-literal";
import { templatesDir } from "../support/templates";
import { raiseFacts } from "../providers/raise-facts";
import { HERMES_PLUGIN_DIR } from "./hermes-plugin";

export const raiseTarget: Target = {
  name: "raise",
  emit(model) {
    const facts = raiseFacts(model.tools);
    const ts = `${banner(model, "ts")}
import type { RegisteredToolName } from "./registry";

/** Where null means absent, what to raise inside, and which unwired values mean "leave it as it is". */
export interface RaiseShape {
  readonly optional?: readonly string[];
  readonly properties?: { readonly [name: string]: RaiseShape };
  readonly items?: RaiseShape;
  readonly unchanged?: { readonly [name: string]: unknown };
}

/** Per tool, the shape of its model-facing parameters (args and dryRun). The Hermes plugin's raise.json holds the same data. */
export const raiseFacts: Readonly<Record<RegisteredToolName, RaiseShape>> = ${tsLiteral(facts)};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** One value raised along its shape: a new value, the input is not changed. */
export function raiseValue(value: unknown, shape: RaiseShape): unknown {
  if (Array.isArray(value)) return shape.items ? value.map((v) => raiseValue(v, shape.items!)) : value;
  if (!isPlainObject(value) || (!shape.optional && !shape.properties && !shape.unchanged)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === null && shape.optional?.includes(name)) continue;
    if (shape.unchanged && name in shape.unchanged && JSON.stringify(v) === JSON.stringify(shape.unchanged[name])) continue;
    const inner = shape.properties?.[name];
    out[name] = inner ? raiseValue(v, inner) : v;
  }
  return out;
}

/** A model's arguments for a tool (by canonical name) as canonical arguments; unknown tools and non-objects pass unchanged. */
export function raiseCall(toolName: string, modelArguments: unknown): unknown {
  const shape = (raiseFacts as Record<string, RaiseShape | undefined>)[toolName];
  return shape ? raiseValue(modelArguments, shape) : modelArguments;
}
`;
    const python = Handlebars.create().compile(
      readFileSync(join(templatesDir("hermes"), "raise_args.py.hbs"), "utf8"),
      { noEscape: true, strict: true },
    )({
      banner: banner(model, "py").trimEnd(),
    });
    return [
      { path: "raise.ts", content: ts },
      { path: `${HERMES_PLUGIN_DIR}/raise_args.py`, content: python },
      {
        path: `${HERMES_PLUGIN_DIR}/raise.json`,
        content: JSON.stringify({ generated: bannerText(model), tools: facts }, null, 2) + "\n",
      },
    ];
  },
};
