import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { sha256Hex } from "../../common/hash";

/** codegen/templates/<name>, whether the generator runs from source or from dist/. */
export function templatesDir(name: string): string {
  const fromSource = join(__dirname, "..", "templates", name);
  return existsSync(fromSource) ? fromSource : join(__dirname, "..", "..", "..", "codegen", "templates", name);
}

/** codegen/assets/<name>, whether the generator runs from source or from dist/. */
export function assetsDir(name: string): string {
  const fromSource = join(__dirname, "..", "assets", name);
  return existsSync(fromSource) ? fromSource : join(__dirname, "..", "..", "..", "codegen", "assets", name);
}

/** How a template set is compiled: handlebars' strict (a missing field throws) or not. Never HTML-escaped. */
export interface TemplateSet {
  /** The folder under codegen/templates. */
  folder: string;
  strict: boolean;
  helpers?: Readonly<Record<string, Handlebars.HelperDelegate>>;
}

/** What scripts/precompile-templates.js writes at build time: per template, its text's hash and handlebars' spec. */
export const PRECOMPILED_TEMPLATES = "precompiled-templates.js";

/** "<folder>/<name>#strict" or "#loose" -> the template's text hash and spec. */
type Precompiled = Record<string, { sha256: string; spec: TemplateSpecification }>;
type TemplateSpecification = Parameters<typeof Handlebars.template>[0];
type Render = (context: unknown) => string;

/** One handlebars environment per set (its helpers registered once), and its templates ready to run. */
const environments = new Map<TemplateSet, { hb: typeof Handlebars; templates: Map<string, Render> }>();
let precompiled: Precompiled | undefined;

/**
 * A template of a set, ready to render. Parsed once per process: from the spec the build
 * precompiled when the template's text is still the one it was made from (a template edited since
 * is parsed here instead), and kept in memory after that, so watch mode never parses it again.
 */
export function template(set: TemplateSet, name: string): Render {
  let env = environments.get(set);
  if (!env) {
    const hb = Handlebars.create();
    for (const [helper, fn] of Object.entries(set.helpers ?? {})) hb.registerHelper(helper, fn);
    environments.set(set, (env = { hb, templates: new Map() }));
  }
  const ready = env.templates.get(name);
  if (ready) return ready;
  const text = readFileSync(join(templatesDir(set.folder), name), "utf8");
  const built = precompiledTemplates()[`${set.folder}/${name}#${set.strict ? "strict" : "loose"}`];
  const render: Render =
    built && built.sha256 === sha256Hex(text)
      ? env.hb.template(built.spec)
      : env.hb.compile(text, { noEscape: true, strict: set.strict });
  env.templates.set(name, render);
  return render;
}

/** The specs the build made (none when running from source without a build). */
function precompiledTemplates(): Precompiled {
  if (precompiled) return precompiled;
  const file = join(__dirname, "..", PRECOMPILED_TEMPLATES);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file the build writes beside dist/codegen
  precompiled = existsSync(file) ? (require(file) as Precompiled) : {};
  return precompiled;
}
