/**
 * What a run does with each change, as buf's and oasdiff's users expect to say it: which
 * compatibility categories are judged (`use` and `except`, by category or by rule) and the
 * severity of each rule: error (fails the run unless the head has a new major version), warn
 * (fails only with --fail-on warning), info (reported), off (not reported). The level of a rule
 * (what the change does) never changes; the severity is the team's choice. Without a severity file
 * every category is judged and the severity follows the level.
 */
import { CATEGORIES, RULES, isRuleId, type Category, type Level, type RuleId } from "../rules";
import type { Change, Severity } from "../types";
import { DiffConfigError, readConfigFile } from "../load/config-files";

export type { Severity } from "../types";

/** The severity file (contract-releases/diff-rules.json), as validated against codegen/diff-rules.schema.json. */
export interface SeverityFile {
  use?: string[];
  except?: string[];
  levels?: Partial<Record<Level, Severity>>;
  rules?: Partial<Record<RuleId, Severity>>;
}

/** A resolved configuration: the categories judged and the severity of every rule. */
export interface SeverityConfig {
  /** Categories judged: a change is reported when it concerns one of them... */
  categories: Category[];
  /** ...or when its rule is named in use... */
  rulesUsed: ReadonlySet<RuleId>;
  /** ...and not when it concerns an excepted category, or its rule is excepted (except wins, as in buf). */
  categoriesExcepted: Category[];
  rulesExcepted: ReadonlySet<RuleId>;
  severity: Readonly<Record<RuleId, Severity>>;
  /**
   * Wire breaks are judged even when `use` (or --category) leaves wire out: a wire break breaks
   * every deployed caller, so only `except: ["wire"]` (or the rule) stops judging it, in words.
   */
  wireBreaksKept: boolean;
}

/** A wire break judged only because wire breaks are always judged (SeverityConfig.wireBreaksKept). */
export function keptAsWireBreak(c: Pick<Change, "rule" | "level" | "categories">, config: SeverityConfig): boolean {
  return (
    config.wireBreaksKept &&
    c.level === "breaking" &&
    c.categories.includes("wire") &&
    !config.rulesUsed.has(c.rule) &&
    !c.categories.some((cat) => config.categories.includes(cat))
  );
}

export const DEFAULT_LEVEL_SEVERITY: Readonly<Record<Level, Severity>> = {
  breaking: "error",
  warning: "warn",
  safe: "info",
};

/** The configuration a file (or none) and --category give; --category replaces the file's use. */
export function resolveSeverities(file: SeverityFile = {}, categoriesFlag?: readonly Category[]): SeverityConfig {
  const isCategory = (s: string): s is Category => (CATEGORIES as readonly string[]).includes(s);
  const use = categoriesFlag ? [...categoriesFlag] : (file.use ?? [...CATEGORIES]);
  const except = file.except ?? [];
  const categoriesExcepted = CATEGORIES.filter((c) => except.includes(c));
  const categories = CATEGORIES.filter((c) => use.includes(c) && !categoriesExcepted.includes(c));
  const rulesUsed = new Set(use.filter((s): s is RuleId => !isCategory(s) && isRuleId(s)));
  const rulesExcepted = new Set(except.filter((s): s is RuleId => !isCategory(s) && isRuleId(s)));
  const levels = { ...DEFAULT_LEVEL_SEVERITY, ...(file.levels ?? {}) };
  const severity = Object.fromEntries(RULES.map((r) => [r.id, file.rules?.[r.id] ?? levels[r.level]])) as Record<
    RuleId,
    Severity
  >;
  const wireBreaksKept = !categories.includes("wire") && !categoriesExcepted.includes("wire");
  return { categories, rulesUsed, categoriesExcepted, rulesExcepted, severity, wireBreaksKept };
}

/** Reads and validates the severity file; a missing file is the defaults, unless it was named (required). */
export function readSeverityFile(path: string, required = false): SeverityFile {
  return (readConfigFile(path, "rules", required) as SeverityFile | undefined) ?? {};
}

/** "--category wire,source": categories from a flag, each one checked. */
export function parseCategories(text: string): Category[] {
  const list = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const bad = list.filter((s) => !(CATEGORIES as readonly string[]).includes(s));
  if (list.length === 0 || bad.length > 0)
    throw new DiffConfigError(`--category takes a comma-separated list of ${CATEGORIES.join(", ")}, not "${text}"`);
  return list as Category[];
}

/**
 * Each change with its severity. Left out: changes that concern no category judged (unless their
 * rule is named in use, or they break the wire), that concern an excepted category or have an
 * excepted rule, and those of severity off.
 */
export function applySeverities(changes: readonly Change[], config: SeverityConfig): Change[] {
  const out: Change[] = [];
  for (const c of changes) {
    if (config.rulesExcepted.has(c.rule) || c.categories.some((cat) => config.categoriesExcepted.includes(cat)))
      continue;
    const selected =
      config.rulesUsed.has(c.rule) ||
      c.categories.some((cat) => config.categories.includes(cat)) ||
      keptAsWireBreak(c, config);
    if (!selected) continue;
    const severity = config.severity[c.rule];
    if (severity === "off") continue;
    out.push({ ...c, severity });
  }
  return out;
}
