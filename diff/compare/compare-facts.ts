/**
 * The facts code on both sides of the contract reads from the generated package, rather than from a
 * schema: named limits (x-mnote-limit, `limits.<name>`), how strings are cut (x-mnote-truncate,
 * `truncations.<name>`), option sets (`optionSets.<Type>`), and the TypeScript types the package
 * exports.
 *
 * A named limit is one number both sides enforce: the runtime and kernels refuse writes beyond it
 * (a page.save whose body would exceed limits.pageBlocks), and readers rely on it. So it is judged
 * in both directions, wherever its schema sits: lower narrows what writers may send
 * (`limit-lowered`), higher widens what readers may get (`limit-raised`). The schema walk leaves
 * the keyword holding the number to this comparison (compare-schemas.ts), so one edit is one
 * finding.
 *
 * A name the package exports that is gone breaks code that imports it (`export-removed`, source);
 * a new one is `export-added`. Type names of tool and kernel-command files follow the tool's or
 * command's name, whose removal or rename is its own finding, so only the shared schema files'
 * definitions count here.
 */
import type { ContractModel } from "../../codegen/model";
import { getAtPointer, joinPointer } from "../../common/json-pointer";
import { isPlainObject } from "../../codegen/support/schema-walk";
import type { Change } from "../types";
import { change } from "./change";
import { show } from "../normalize/json";

export function compareFacts(base: ContractModel, head: ContractModel): Change[] {
  return [...compareLimits(base, head), ...compareExports(base, head)];
}

function compareLimits(base: ContractModel, head: ContractModel): Change[] {
  const out: Change[] = [];
  const headLimits = new Map(head.limits.map((l) => [l.name, l]));
  for (const b of base.limits) {
    const a = headLimits.get(b.name);
    if (!a || !Number.isFinite(a.value) || !Number.isFinite(b.value) || a.value === b.value) continue;
    const file = head.schemaFiles.find((f) => f.path === a.file);
    const node = file ? getAtPointer(file.json, a.pointer) : undefined;
    const keyword = ["maxItems", "maxLength", "maximum", "maxProperties"].find(
      (k) => isPlainObject(node) && typeof node[k] === "number",
    );
    const place = { file: a.file, filePointer: keyword ? joinPointer(a.pointer, keyword) : a.pointer };
    const lowered = a.value < b.value;
    out.push(
      change(
        lowered ? "limit-lowered" : "limit-raised",
        "limits",
        joinPointer("", b.name),
        place,
        lowered
          ? `limit ${b.name} ${b.value} -> ${a.value}: writes that kept to the old limit are refused`
          : `limit ${b.name} ${b.value} -> ${a.value}: readers may get more than the old limit`,
        b.value,
        a.value,
      ),
    );
  }
  return out;
}

interface Export {
  pointer: string;
  file: string;
  filePointer: string;
}

/** What the generated package exports by name, with where each is defined. */
function exportsOf(model: ContractModel): Map<string, Export> {
  const out = new Map<string, Export>();
  const kinds = new Map(model.schemaFiles.map((f) => [f.path, f.kind]));
  for (const s of model.schemas) {
    if (s.composed || kinds.get(s.file) !== "schema") continue;
    const defName = s.ref.slice(s.ref.lastIndexOf("/") + 1);
    out.set(`/types/${s.typeName}`, {
      pointer: `/types/${s.typeName}`,
      file: s.file,
      filePointer: joinPointer("/$defs", defName),
    });
  }
  for (const l of model.limits)
    out.set(`/limits/${l.name}`, {
      pointer: joinPointer("/limits", l.name),
      file: l.file,
      filePointer: joinPointer(l.pointer, "x-mnote-limit"),
    });
  for (const t of model.truncations)
    out.set(`/truncations/${t.name}`, {
      pointer: joinPointer("/truncations", t.name),
      file: t.file,
      filePointer: joinPointer(t.pointer, "x-mnote-truncate"),
    });
  for (const o of model.optionSets) {
    const s = model.schemas.find((x) => x.typeName === o.typeName);
    out.set(`/optionSets/${o.typeName}`, {
      pointer: joinPointer("/optionSets", o.typeName),
      file: s?.file ?? "",
      filePointer: s ? s.ref.slice(s.ref.indexOf("#") + 1) : "",
    });
  }
  return out;
}

function compareExports(base: ContractModel, head: ContractModel): Change[] {
  const out: Change[] = [];
  const before = exportsOf(base);
  const after = exportsOf(head);
  for (const [key, e] of before)
    if (!after.has(key))
      out.push(
        change(
          "export-removed",
          "package",
          e.pointer,
          e,
          `${show(key.slice(1).replace("/", "."))} is no longer exported`,
        ),
      );
  for (const [key, e] of after)
    if (!before.has(key))
      out.push(change("export-added", "package", e.pointer, e, `${show(key.slice(1).replace("/", "."))} is exported`));
  return out;
}
