/**
 * A synthetic contract for the codegen benchmark: a copy of contract/ plus n-6 generated tools, each
 * with its own kernel command, so the contract holds n tools in all. The tools follow the format
 * of contract/tools/*.tool.json and contract/kernel/*.command.json (and test/fixtures/seventh-tool):
 * every other tool is a write (idempotencyKey, dryRun, baseRevision, the write result anyOf), the
 * rest are reads; their args and results reference the shared model (blocks, ids, revisions) the
 * way the real tools do, so the generator does the same kind of work per tool.
 *
 *   node dist/scripts/synthetic-contract.js <out-dir> <n>
 *
 * <out-dir> is the contract folder to create (it must not exist or be empty).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const REAL_TOOLS = 6;

/** The repository root: the nearest folder up from here with contract/contract.json. */
export function repoRoot(from: string = __dirname): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, "contract", "contract.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no contract/contract.json above ${from}`);
    dir = up;
  }
}

const SCHEMA = "https://json-schema.org/draft/2020-12/schema";
const BASE = "https://mnote.dev/contract/";

function pad(i: number): string {
  return String(i).padStart(3, "0");
}

/** The names and paths of synthetic tool i and its kernel command. */
interface SynthNames {
  n: string;
  write: boolean;
  toolName: string;
  commandName: string;
  toolPath: string;
  commandPath: string;
}

function synthNames(i: number): SynthNames {
  const n = pad(i);
  const commandName = `synthkernel.cmd${n}`;
  return {
    n,
    write: i % 2 === 1,
    toolName: `mnote.synth.tool_${n}`,
    commandName,
    toolPath: `tools/synth.tool_${n}.tool.json`,
    commandPath: `kernel/${commandName}.command.json`,
  };
}

/** The Args properties: four shared ones, then the write fields or includeBlocks. */
function argsProperties(i: number, n: string, write: boolean): Record<string, unknown> {
  const props: Record<string, unknown> = {
    label: {
      description: `Label of synthetic item ${n}.`,
      type: "string",
      minLength: 1,
      maxLength: 200,
      pattern: "^[^\\r\\n]*\\S[^\\r\\n]*$",
    },
    limit: { description: "How many items at most.", type: "integer", minimum: 1, maximum: 100 + i, default: 10 },
    tags: {
      description: "Tags to filter by.",
      type: "array",
      maxItems: 16,
      uniqueItems: true,
      items: { type: "string", minLength: 1, maxLength: 32, pattern: "^[a-z][a-z0-9-]*$" },
    },
    flavor: { description: "Which flavor.", type: "string", enum: ["plain", "rich", `extra_${n}`] },
  };
  if (write) {
    props.content = {
      description: "Blocks to write.",
      type: "array",
      maxItems: 500,
      items: { $ref: "../model/block.schema.json#/$defs/ContentBlockInput" },
    };
    props.options = { $ref: "../model/page-options.schema.json#/$defs/PageOptions" };
    props.baseRevision = {
      description: "The revision you read.",
      $ref: "../model/common.schema.json#/$defs/Revision",
    };
  } else {
    props.includeBlocks = { description: "Include blocks.", type: "boolean", default: true };
  }
  return props;
}

/** A write's result: the shared write result or, with dryRun, the planned diff. */
function writeResult(): unknown {
  return {
    description: "The new revision, or with dryRun the planned diff.",
    anyOf: [
      { $ref: "../envelope/results.schema.json#/$defs/PageWriteResult" },
      { $ref: "../envelope/results.schema.json#/$defs/DryRunResult" },
    ],
  };
}

/** A read's result: a document's items (and optionally its blocks) at a revision. */
function readResult(n: string): unknown {
  return {
    description: `What synthetic read ${n} returns.`,
    type: "object",
    required: ["documentId", "revision", "items"],
    additionalProperties: false,
    properties: {
      documentId: { $ref: "../model/common.schema.json#/$defs/DocumentId" },
      revision: { $ref: "../model/common.schema.json#/$defs/Revision" },
      items: {
        type: "array",
        maxItems: 100,
        items: {
          type: "object",
          required: ["id", "label"],
          additionalProperties: false,
          properties: {
            id: { $ref: "../model/block.schema.json#/$defs/BlockId" },
            label: { type: "string", maxLength: 200 },
            score: { type: "number", minimum: 0, maximum: 1 },
          },
        },
      },
      blocks: { type: "array", maxItems: 2000, items: { $ref: "../model/block.schema.json#/$defs/ContentBlock" } },
    },
  };
}

/** The tool file (tools/*.tool.json) of synthetic tool i. */
function toolSchema(i: number, names: SynthNames): unknown {
  const { n, write } = names;
  return {
    $schema: SCHEMA,
    $id: `${BASE}${names.toolPath}`,
    "x-mnote-tool": {
      name: names.toolName,
      title: `Synthetic tool ${n}`,
      description: `A synthetic ${write ? "write" : "read"} tool (${n}) for the codegen benchmark: it has the shape of a real tool, with args and a result that reference the shared model.`,
      effect: write ? "write" : "read",
      capability: write ? "page.write" : "page.read",
      kernelCommand: names.commandName,
      idempotency: write ? "required" : "none",
      dryRun: write ? "required" : "none",
      semantics: { destructive: write, idempotent: !write },
    },
    $defs: {
      Args: {
        description: `Args of synthetic tool ${n}.`,
        type: "object",
        required: ["label"],
        additionalProperties: false,
        properties: argsProperties(i, n, write),
      },
      Result: write ? writeResult() : readResult(n),
    },
  };
}

/** The kernel command file (kernel/*.command.json) behind synthetic tool i. */
function commandSchema(names: SynthNames): unknown {
  const { n, write } = names;
  const toolRef = `../${names.toolPath}`;
  const payloadProperties: Record<string, unknown> = {
    context: { $ref: "envelope.schema.json#/$defs/KernelContext" },
    args: { $ref: `${toolRef}#/$defs/Args` },
  };
  if (write) {
    payloadProperties.dryRun = { type: "boolean" };
    payloadProperties.write = { $ref: "envelope.schema.json#/$defs/KernelWrite" };
  }
  return {
    $schema: SCHEMA,
    $id: `${BASE}${names.commandPath}`,
    "x-mnote-kernel-command": {
      name: names.commandName,
      effect: write ? "write" : "read",
      description: `The kernel side of synthetic tool ${n}.`,
    },
    $defs: {
      Payload: {
        type: "object",
        required: write ? ["context", "args", "dryRun"] : ["context", "args"],
        additionalProperties: false,
        properties: payloadProperties,
      },
      Result: {
        type: "object",
        required: ["commandId", "replayed", "result"],
        additionalProperties: false,
        properties: {
          commandId: write
            ? { anyOf: [{ $ref: "../model/common.schema.json#/$defs/CommandId" }, { type: "null" }] }
            : { type: "null" },
          replayed: { type: "boolean" },
          result: { $ref: `${toolRef}#/$defs/Result` },
        },
      },
    },
  };
}

function toolFile(i: number): { toolPath: string; tool: unknown; commandPath: string; command: unknown } {
  const names = synthNames(i);
  return {
    toolPath: names.toolPath,
    tool: toolSchema(i, names),
    commandPath: names.commandPath,
    command: commandSchema(names),
  };
}

/** Writes contract/ plus n-6 synthetic tools into outDir; returns the number of tools. */
export function writeSyntheticContract(outDir: string, n: number): number {
  if (!Number.isInteger(n) || n < REAL_TOOLS)
    throw new Error(`n must be an integer of at least ${REAL_TOOLS}, not ${n}`);
  const out = resolve(outDir);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty`);
  mkdirSync(out, { recursive: true });
  cpSync(join(repoRoot(), "contract"), out, { recursive: true });
  for (let i = 1; i <= n - REAL_TOOLS; i++) {
    const f = toolFile(i);
    writeFileSync(join(out, f.toolPath), JSON.stringify(f.tool, null, 2) + "\n");
    writeFileSync(join(out, f.commandPath), JSON.stringify(f.command, null, 2) + "\n");
  }
  return n;
}

if (require.main === module) {
  const [outDir, count] = process.argv.slice(2);
  if (!outDir || !count) {
    console.error("usage: synthetic-contract <out-dir> <n>");
    process.exit(2);
  }
  const n = writeSyntheticContract(outDir, Number(count));
  console.log(`wrote a contract of ${n} tools to ${outDir}`);
}
