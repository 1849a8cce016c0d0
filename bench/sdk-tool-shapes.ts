/**
 * The six tools' model arguments as zod raw shapes, for the SDK-only McpServer contenders
 * (bench/sdk-mcp-v2-server.ts, and the in-process one of section runtimeCost): contract 2.0.0's rules
 * (strict objects, the block rules, the title rule, the lengths), read from the contract's files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z, type ZodType } from "zod";
import { contractDir } from "./paths";
import { C, zodBlockInput, zodTitle } from "./validator-contenders";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON Schema documents, read by known paths
type Json = Record<string, any>;
const argsOf = (tool: string): Json =>
  (JSON.parse(readFileSync(join(contractDir, "tools", `${tool}.tool.json`), "utf8")) as Json).$defs.Args
    .properties as Json;

/** The six tools' model arguments in zod (dryRun beside the args, as the provider schemas have it). */
export function sdkToolShapes(): Record<string, Record<string, ZodType>> {
  const revision = z.number().int().min(0).max(C.maxRevision).optional();
  const dryRun = z.boolean().optional();
  const summary = argsOf("artifact.create_summary");
  const note = argsOf("artifact.create_ai_note");
  const text = (p: Json) =>
    z
      .string()
      .min(p.minLength as number)
      .max(p.maxLength as number);
  const option = z.boolean().optional();
  return {
    "mnote.page.get": { includeBody: option, includeOptions: option, includeBlocks: option },
    "mnote.page.save": {
      content: z.array(zodBlockInput()).max(C.maxBlocks),
      mode: z.enum(C.modes as [string, ...string[]]).optional(),
      baseRevision: revision,
      dryRun,
    },
    "mnote.page.update_title": { title: zodTitle(), baseRevision: revision, dryRun },
    "mnote.page.update_options": {
      options: z
        .strictObject({ wideLayout: option, smallText: option, showToc: option, protectEditing: option })
        .refine((o) => Object.keys(o).length >= 1, "at least one option"),
      baseRevision: revision,
      dryRun,
    },
    "mnote.artifact.create_summary": { summary: text(summary.summary as Json), baseRevision: revision, dryRun },
    "mnote.artifact.create_ai_note": {
      content: text(note.content as Json),
      title: text(note.title as Json).optional(),
      baseRevision: revision,
      dryRun,
    },
  };
}
