/**
 * The error and capability catalogs, by their own rules: callers match on codes and scopes, so a
 * removed entry breaks them and a new one does not (even though, as an enum in a response, a new
 * code would look like a widening).
 */
import type { ContractModel, ErrorModel, Messages } from "../../codegen/model";
import { getAtPointer, joinPointer } from "../../common/json-pointer";
import type { RuleId } from "../rules";
import type { Change } from "../types";
import { change, type Place } from "./change";
import { show } from "../normalize/json";

const ERRORS_FILE = "catalog/errors.schema.json";
const CAPABILITIES_FILE = "catalog/capabilities.schema.json";

export function compareErrors(base: ContractModel, head: ContractModel): Change[] {
  const out: Change[] = [];
  const push = (rule: RuleId, pointer: string, place: Place, message: string, before?: unknown, after?: unknown) =>
    out.push(change(rule, "errors", pointer, place, message, before, after));
  const baseCodes = new Map(base.errors.map((e) => [e.code, e]));
  const headCodes = new Map(head.errors.map((e) => [e.code, e]));
  for (const [code, b] of baseCodes) {
    const a = headCodes.get(code);
    if (!a) {
      push(
        "error-code-removed",
        `/${code}`,
        entryPlace(base, ERRORS_FILE, "ErrorCode", code),
        `error code ${code} removed`,
      );
      continue;
    }
    const place = (sub: string) => entryPlace(head, ERRORS_FILE, "ErrorCode", code, sub);
    if (b.description !== a.description)
      push(
        "description-changed",
        `/${code}/description`,
        place("/description"),
        `description of ${code} changed`,
        b.description,
        a.description,
      );
    if (b.retryable !== a.retryable) {
      push(
        "error-retryable-changed",
        `/${code}/retryable`,
        place("/x-mnote-error/retryable"),
        `${code} retryable ${b.retryable} -> ${a.retryable}`,
        b.retryable,
        a.retryable,
      );
    }
    compareMessages(
      b.messages,
      a.messages,
      `/${code}/messages`,
      place("/x-mnote-error/messages"),
      `message of ${code}`,
      push,
    );
    compareReasons(code, b, a, place, push);
  }
  for (const code of headCodes.keys()) {
    if (!baseCodes.has(code))
      push("error-code-added", `/${code}`, entryPlace(head, ERRORS_FILE, "ErrorCode", code), `new error code ${code}`);
  }
  return out;
}

type Push = (rule: RuleId, pointer: string, place: Place, message: string, before?: unknown, after?: unknown) => void;

function compareReasons(code: string, b: ErrorModel, a: ErrorModel, place: (sub: string) => Place, push: Push): void {
  for (const reason of [...new Set([...Object.keys(b.reasons), ...Object.keys(a.reasons)])].sort()) {
    const pointer = joinPointer(`/${code}/reasons`, reason);
    const sub = joinPointer("/x-mnote-error/reasons", reason);
    const before = b.reasons[reason];
    const after = a.reasons[reason];
    if (!after) push("error-reason-removed", pointer, place(sub), `${code} no longer has reason ${reason}`);
    else if (!before) push("error-reason-added", pointer, place(sub), `${code} has a new reason ${reason}`);
    else compareMessages(before, after, pointer, place(sub), `message of ${code} reason ${reason}`, push);
  }
}

function compareMessages(b: Messages, a: Messages, pointer: string, place: Place, what: string, push: Push): void {
  for (const locale of ["zh-CN", "en"] as const) {
    if (b[locale] === a[locale]) continue;
    push(
      "message-changed",
      joinPointer(pointer, locale),
      { file: place.file, filePointer: joinPointer(place.filePointer, locale) },
      `${what} (${locale}) ${show(b[locale])} -> ${show(a[locale])}`,
      b[locale],
      a[locale],
    );
  }
}

export function compareCapabilities(base: ContractModel, head: ContractModel): Change[] {
  const out: Change[] = [];
  const push = (rule: RuleId, pointer: string, place: Place, message: string, before?: unknown, after?: unknown) =>
    out.push(change(rule, "capabilities", pointer, place, message, before, after));
  const headScopes = new Map(head.capabilities.map((c) => [c.scope, c]));
  for (const b of base.capabilities) {
    const a = headScopes.get(b.scope);
    const at = joinPointer("", b.scope);
    if (!a) {
      push(
        "capability-removed",
        at,
        entryPlace(base, CAPABILITIES_FILE, "CapabilityScope", b.scope),
        `capability ${b.scope} removed`,
      );
      continue;
    }
    const place = (sub: string) => entryPlace(head, CAPABILITIES_FILE, "CapabilityScope", b.scope, sub);
    if (b.description !== a.description)
      push(
        "description-changed",
        `${at}/description`,
        place("/description"),
        `description of ${b.scope} changed`,
        b.description,
        a.description,
      );
    const requiresPlace = place("/x-mnote-capability/requires");
    for (const r of a.requires.filter((r) => !b.requires.includes(r)))
      push(
        "capability-requires-added",
        `${at}/requires`,
        requiresPlace,
        `${b.scope} now requires ${r}`,
        b.requires,
        a.requires,
      );
    for (const r of b.requires.filter((r) => !a.requires.includes(r)))
      push(
        "capability-requires-removed",
        `${at}/requires`,
        requiresPlace,
        `${b.scope} no longer requires ${r}`,
        b.requires,
        a.requires,
      );
    if (b.deniedReason !== a.deniedReason) {
      push(
        "capability-denied-reason-changed",
        `${at}/deniedReason`,
        place("/x-mnote-capability/deniedReason"),
        `${b.scope} deniedReason ${b.deniedReason} -> ${a.deniedReason}`,
        b.deniedReason,
        a.deniedReason,
      );
    }
  }
  for (const a of head.capabilities) {
    if (!base.capabilities.some((c) => c.scope === a.scope)) {
      push(
        "capability-added",
        joinPointer("", a.scope),
        entryPlace(head, CAPABILITIES_FILE, "CapabilityScope", a.scope),
        `new capability ${a.scope}`,
      );
    }
  }
  return out;
}

/** A catalog entry's place in its file: the oneOf item whose const is the code or scope. */
function entryPlace(model: ContractModel, path: string, def: string, value: string, sub = ""): Place {
  const file = model.schemaFiles.find((f) => f.path === path);
  const list = getAtPointer(file?.json, `/$defs/${def}/oneOf`);
  const index = Array.isArray(list) ? list.findIndex((e: { const?: unknown }) => e?.const === value) : -1;
  return { file: path, filePointer: index < 0 ? `/$defs/${def}` : `/$defs/${def}/oneOf/${index}${sub}` };
}
