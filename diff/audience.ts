/**
 * Who a change breaks or concerns: its audience, named in every report (SARIF, Markdown, JSON) and
 * in docs/CONTRACT-DIFF.md's audience table.
 *
 * - callers: programs, plugins and apps that send requests and read responses (the wire);
 * - runtimes: the runtime as the kernel's caller (it writes kernel payloads and reads results);
 * - kernels: kernel implementations built on the base (they read payloads, and write replies the
 *   generated kernel client checks against the head: the kernel-reply-* rules);
 * - plugin code: code compiled against the generated package (types, registry, kernel client);
 * - the model: what the model reads (names, descriptions, messages).
 */
import type { Category, RuleId } from "./rules";

export const AUDIENCES = ["callers", "runtimes", "kernels", "plugin code", "the model"] as const;
export type Audience = (typeof AUDIENCES)[number];

const BY_CATEGORY: Readonly<Record<Category, Audience>> = {
  wire: "callers",
  source: "plugin code",
  model: "the model",
  kernel: "kernels",
};

/**
 * The audiences of a change of this rule with these categories, fired on this surface. A schema
 * rule (request-*, response-*) on the kernel's side judges the runtime, the kernel's caller; the
 * kernel-reply-* rules judge the kernels.
 */
export function audiencesOf(rule: RuleId, categories: readonly Category[], surface: "wire" | "kernel"): Audience[] {
  if (rule.startsWith("kernel-reply-")) return ["kernels"];
  const schemaRule = rule.startsWith("request-") || rule.startsWith("response-");
  const out = new Set<Audience>();
  for (const c of categories) {
    if (c === "kernel" && schemaRule && surface === "kernel") out.add("runtimes");
    else out.add(BY_CATEGORY[c]);
  }
  return AUDIENCES.filter((a) => out.has(a));
}
