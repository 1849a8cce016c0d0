/**
 * Request material shared by the sections: pools of distinct, deterministic (seeded) requests, so
 * every contender sees the same inputs and no input is a constant the engine could fold.
 */

/** user_1 owns ws_1 in the demo seed; doc_bench is a page the bench adds, so saves never touch doc_1. */
export const IDS = {
  workspaceId: "ws_1",
  actorId: "user_1",
  getDocument: "doc_1",
  saveDocument: "doc_bench",
  getSession: "sess_bench_get",
  saveSession: "sess_bench_save",
};
export const ALL_SCOPES = ["page.read", "page.write", "artifact.write"] as const;

/** mulberry32: a small seeded PRNG, so pools are the same in every process and every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "plan",
  "scope",
  "milestone",
  "review",
  "第一段",
  "确定范围",
  "里程碑",
  "draft",
  "notes",
  "risk",
  "owner",
  "日程",
  "summary",
  "next step",
  "deadline",
];
const BLOCK_TYPES = [
  "paragraph",
  "heading",
  "bulleted_list_item",
  "numbered_list_item",
  "to_do",
  "quote",
  "code",
  "divider",
] as const;

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]!);
  return out.join(" ");
}

export type Block = { id?: string; type: string; text: string; level?: number; checked?: boolean; language?: string };

export function block(rand: () => number, i: number): Block {
  const type = BLOCK_TYPES[Math.floor(rand() * BLOCK_TYPES.length)]!;
  const b: Block = { type, text: type === "divider" ? "" : sentence(rand, 2 + Math.floor(rand() * 12)) };
  if (rand() < 0.3) b.id = `blk_${i}_${Math.floor(rand() * 1e6)}`;
  if (type === "heading") b.level = 1 + Math.floor(rand() * 3);
  if (type === "to_do") b.checked = rand() < 0.5;
  if (type === "code") b.language = rand() < 0.5 ? "typescript" : "rust";
  return b;
}

export type Envelope = Record<string, unknown> & { args: Record<string, unknown> };

/** A valid mnote.page.save request (PageSaveRequest), different for every i. */
export function pageSaveRequest(
  i: number,
  rand: () => number,
  options: { mode?: "replace" | "append"; baseRevision?: boolean; blocks?: [number, number] } = {},
): Envelope {
  const [lo, hi] = options.blocks ?? [1, 8];
  const content: Block[] = [];
  const n = lo + Math.floor(rand() * (hi - lo + 1));
  for (let k = 0; k < n; k++) content.push(block(rand, k));
  const args: Record<string, unknown> = { content };
  const mode = options.mode ?? (rand() < 0.5 ? "append" : "replace");
  args.mode = mode;
  if (options.baseRevision ?? rand() < 0.5) args.baseRevision = Math.floor(rand() * 1000);
  const r: Envelope = {
    toolName: "mnote.page.save",
    workspaceId: IDS.workspaceId,
    documentId: IDS.saveDocument,
    actorId: IDS.actorId,
    sessionId: IDS.saveSession,
    runId: `run_${i % 37}`,
    toolCallId: `call_${i}_${Math.floor(rand() * 1e9).toString(36)}`,
    traceId: `trace_${i % 11}`,
    capabilityScope: rand() < 0.5 ? [...ALL_SCOPES] : ["page.read", "page.write"],
    idempotencyKey: `key-${i}-${Math.floor(rand() * 1e12).toString(36)}`,
    dryRun: false,
    args,
  };
  if (rand() < 0.3) r.locale = rand() < 0.5 ? "en" : "zh-CN";
  return r;
}

/** A valid mnote.page.get request, different for every i. */
export function pageGetRequest(i: number, rand: () => number): Envelope {
  return {
    toolName: "mnote.page.get",
    workspaceId: IDS.workspaceId,
    documentId: IDS.getDocument,
    actorId: IDS.actorId,
    sessionId: IDS.getSession,
    runId: `run_${i % 37}`,
    toolCallId: `call_${i}_${Math.floor(rand() * 1e9).toString(36)}`,
    traceId: `trace_${i % 11}`,
    capabilityScope: ["page.read"],
    args: { includeBody: true, includeOptions: true, includeBlocks: true },
  };
}

const BAD_TOOL_NAMES = [
  "mnote.page.Save",
  "Mnote.page.save",
  "mnote.page.save!",
  "page.save",
  "mnote..page.save",
  "mnote.page.sAve",
];

/**
 * The validator inputs: valid requests; requests invalid at the first field (toolName does not
 * match the ToolName pattern, so it is neither a tool name nor mnote.page.save); requests invalid
 * at the last field (args.content's last block, the deepest last value, has a level outside 1..3,
 * with that key written last).
 */
export function validatorPools(size: number): { valid: Envelope[]; invalidFirst: Envelope[]; invalidLast: Envelope[] } {
  const rand = prng(0x5eed);
  const valid: Envelope[] = [];
  const invalidFirst: Envelope[] = [];
  const invalidLast: Envelope[] = [];
  for (let i = 0; i < size; i++) {
    valid.push(pageSaveRequest(i, rand));
    const first = pageSaveRequest(size + i, rand);
    first.toolName = BAD_TOOL_NAMES[i % BAD_TOOL_NAMES.length]!;
    invalidFirst.push(first);
    const last = pageSaveRequest(2 * size + i, rand);
    const content = last.args.content as Block[];
    const tail = content[content.length - 1]!;
    delete tail.level;
    tail.level = [0, 4, 7, -1, 1.5][i % 5]!;
    invalidLast.push(last);
  }
  return { valid, invalidFirst, invalidLast };
}

/** The demo seed plus doc_bench (in ws_1, owned by user_1 as owner of ws_1), where saves go. */
export function benchSeed(demo: { pages?: unknown[] }): unknown {
  return {
    ...demo,
    pages: [
      ...(demo.pages ?? []),
      {
        id: IDS.saveDocument,
        workspaceId: IDS.workspaceId,
        title: "Bench page",
        blocks: [{ type: "paragraph", text: "Saves land here." }],
      },
    ],
  };
}

export interface SaveTemplate {
  head: string;
  tail: string;
}

/**
 * page.save request text with a fresh idempotency key per call: head + JSON.stringify(key) + tail.
 * mode replace and no baseRevision, so every call is a new write of the same size.
 */
export function saveTemplates(count: number, seed = 0x5a4e): SaveTemplate[] {
  const rand = prng(seed);
  const out: SaveTemplate[] = [];
  for (let i = 0; i < count; i++) {
    const r = pageSaveRequest(i, rand, { mode: "replace", baseRevision: false, blocks: [1, 4] });
    r.idempotencyKey = "@KEY@";
    const [head, tail] = JSON.stringify(r).split('"@KEY@"') as [string, string];
    out.push({ head, tail });
  }
  return out;
}

export function getTexts(count: number, seed = 0x6e7): string[] {
  const rand = prng(seed);
  return Array.from({ length: count }, (_, i) => JSON.stringify(pageGetRequest(i, rand)));
}
