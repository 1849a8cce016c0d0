/**
 * The preview as a person reads it (ApprovalChallenge.summary), in the session's locale: the
 * page's title, what is removed and what is added (counts with the right plural, then the first
 * words of each block), old → new for a rename. The first line carries the meaning within 200
 * characters, since a chat gateway may show no more (Hermes' fallback text); the first words come
 * after it. It goes to the host's approval UI (MCP elicitation, the Hermes consent prompt), never
 * into what the model reads. Snapshots: test/approval/preview-text.test.ts.
 */
import type * as T from "../../generated/types";
import type { MessageLocale } from "../../generated/registry";

/** How long a title may be inside the text (the rest of the line must fit in 200 characters). */
const TITLE_CHARS = 40;
/** The summary's bound (the contract's maxLength). */
const MAX_CHARS = 1000;

type Op = T.DiffOp;

interface Words {
  /** A count of blocks, with its plural. */
  blocks(n: number): string;
  quote(text: string): string;
  list(items: readonly string[]): string;
  untitled: string;
  replace(title: string, removed: string, added: string): string;
  append(title: string, added: string): string;
  rename(from: string, to: string): string;
  option(title: string, field: string, value: string): string;
  other: Record<Exclude<Op["op"], "replace" | "append" | "set_title" | "set_option">, (title: string) => string>;
  none(title: string): string;
  /** The label before the first words of removed blocks, its separator included. */
  removedLine: string;
  addedLine: string;
}

const en: Words = {
  blocks: (n) => `${n} ${n === 1 ? "paragraph" : "paragraphs"}`,
  quote: (t) => `“${t}”`,
  list: (items) => items.join(", "),
  untitled: "this page",
  replace: (title, removed, added) => `Replace all text of ${title}: remove ${removed}, write ${added}.`,
  append: (title, added) => `Add ${added} at the end of ${title}.`,
  rename: (from, to) => `Rename the page ${from} → ${to}.`,
  option: (title, field, value) => `Change a display option of ${title}: ${field} → ${value}.`,
  other: {
    create_summary: (title) => `Save a summary of ${title}.`,
    update_summary: (title) => `Replace the summary of ${title}.`,
    create_ai_note: (title) => `Add a note beside ${title}.`,
    create_edge: () => "",
    confirm_edge: () => "",
  },
  none: (title) => `No change to ${title}.`,
  removedLine: "Removes: ",
  addedLine: "Adds: ",
};

const zh: Words = {
  blocks: (n) => `${n} 段`,
  quote: (t) => `“${t}”`,
  list: (items) => items.join("、"),
  untitled: "此页面",
  replace: (title, removed, added) => `替换${title}的全部内容：删除 ${removed}，写入 ${added}。`,
  append: (title, added) => `在${title}末尾添加 ${added}。`,
  rename: (from, to) => `重命名页面：${from} → ${to}。`,
  option: (title, field, value) => `修改${title}的显示选项：${field} → ${value}。`,
  other: {
    create_summary: (title) => `保存${title}的摘要。`,
    update_summary: (title) => `替换${title}的摘要。`,
    create_ai_note: (title) => `在${title}旁添加一条笔记。`,
    create_edge: () => "",
    confirm_edge: () => "",
  },
  none: (title) => `${title}没有任何变化。`,
  removedLine: "删除：",
  addedLine: "新增：",
};

const WORDS: Record<MessageLocale, Words> = { en, "zh-CN": zh };

/** A title bounded for the first line, in the locale's quotes (「」 in Chinese). */
function titled(title: string | undefined, w: Words, locale: MessageLocale): string {
  if (title === undefined || title.trim() === "") return w.untitled;
  const chars = [...title];
  const short = chars.length <= TITLE_CHARS ? title : `${chars.slice(0, TITLE_CHARS - 1).join("")}…`;
  return locale === "zh-CN" ? `「${short}」` : w.quote(short);
}

/** The first line of one op, and the lines of first words under it. */
function describe(op: Op, title: string, w: Words, locale: MessageLocale): { head: string; words: string[] } {
  const quoted = (items: readonly string[] | undefined) => w.list((items ?? []).map((item) => w.quote(item)));
  switch (op.op) {
    case "replace": {
      const words: string[] = [];
      if (op.removedExcerpts?.length) words.push(`${w.removedLine}${quoted(op.removedExcerpts)}`);
      if (op.excerpts?.length) words.push(`${w.addedLine}${quoted(op.excerpts)}`);
      return { head: w.replace(title, w.blocks(op.removedBlocks ?? 0), w.blocks(op.blocks ?? 0)), words };
    }
    case "append":
      return {
        head: w.append(title, w.blocks(op.blocks ?? 0)),
        words: op.excerpts?.length ? [`${w.addedLine}${quoted(op.excerpts)}`] : [],
      };
    case "set_title":
      return { head: w.rename(titled(op.previous, w, locale), titled(String(op.value ?? ""), w, locale)), words: [] };
    case "set_option":
      return { head: w.option(title, op.field ?? "", JSON.stringify(op.value)), words: [] };
    default:
      return { head: w.other[op.op](title), words: [] };
  }
}

/** The summary of a preview for a person, in this locale. */
export function previewText(preview: T.ApprovalPreview, locale: MessageLocale): string {
  const w = WORDS[locale];
  const title = titled(preview.pageTitle, w, locale);
  const described = preview.ops.map((op) => describe(op, title, w, locale)).filter((d) => d.head !== "");
  if (described.length === 0) return w.none(title);
  // every op's first line before any first words: the meaning stays in the first 200 characters
  const text = [...described.map((d) => d.head), ...described.flatMap((d) => d.words)].join("\n");
  const chars = [...text];
  return chars.length <= MAX_CHARS ? text : `${chars.slice(0, MAX_CHARS - 1).join("")}…`;
}
