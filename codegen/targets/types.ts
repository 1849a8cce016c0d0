/**
 * TypeScript types for every named schema, through json-schema-to-typescript. All schemas go in
 * as one bundle whose $defs are keyed by type name with every $ref rewritten to point inside it,
 * so each definition becomes exactly one declaration with its stable name (no "Foo1").
 */
import type { ContractModel, JsonSchema, NamedSchema } from "../model";
import type { Target } from "./target";
import { banner } from "../support/banner";
import { indentTypeScript } from "../support/indent";
import { mapSchema } from "../support/schema-walk";
import { absoluteRef } from "../support/refs";
import { isVendorKeyword } from "../vendor-keywords";
import { lowerForTypes } from "../support/lower-for-types";
import { storedTextAsync } from "../support/memo";

const ROOT = "MnoteContractTypesRoot";

/** Keywords beside a $ref that narrow it in a way lowerForTypes can put into the type. */
const TYPEABLE_REF_SIBLINGS = ["minProperties", "required", "not", "if", "then", "else", "dependentRequired"];

export const typesTarget: Target = {
  name: "types",
  async emit(model) {
    // the declarations depend on the named schemas only, which is all typeBundle reads (reused
    // while they are unchanged: in memory in watch mode, on disk across runs; keyed by them, not
    // by the bundle, so a reuse does not lay the bundle out: 0.1 s of 200 tools); the banner (the
    // contract's hash) goes on after
    const schemas = model.schemas.map((s) => [s.typeName, s.ref, s.schema]);
    const body = await storedTextAsync("types", schemas, () => declarations(typeBundle(model)));
    return [{ path: "types.ts", content: banner(model, "ts") + "/* eslint-disable */\n\n" + body }];
  },
};

/** The bundle as TypeScript declarations, laid out (indentTypeScript). */
async function declarations(bundle: JsonSchema): Promise<string> {
  // Loaded here, not at the top: it imports prettier, whose dynamic import breaks inside Jest,
  // and nothing but this target needs it.
  const { compile } = await import("json-schema-to-typescript");
  const raw = await compile(bundle, ROOT, {
    bannerComment: "",
    format: false,
    unreachableDefinitions: true,
    additionalProperties: false,
    unknownAny: true,
    ignoreMinAndMaxItems: true,
    strictIndexSignatures: true,
    declareExternallyReferenced: true,
    $refOptions: { resolve: { external: false } },
  });
  return indentTypeScript(stripRoot(raw)).trim() + "\n";
}

export function typeBundle(model: ContractModel): JsonSchema {
  const nameByRef = new Map(model.schemas.map((s) => [s.ref, s.typeName]));
  const defs: Record<string, unknown> = {};
  for (const s of model.schemas) defs[s.typeName] = forTypes(s, nameByRef);
  const lowered = lowerForTypes(defs as Record<string, JsonSchema>);
  for (const name of Object.keys(lowered)) lowered[name] = { ...lowered[name], title: name };
  return { title: ROOT, type: "object", additionalProperties: false, $defs: lowered };
}

function forTypes(named: NamedSchema, nameByRef: Map<string, string>): JsonSchema {
  const baseId = named.ref.slice(0, named.ref.indexOf("#"));
  const out = mapSchema(named.schema, (node) => {
    const cleaned: JsonSchema = {};
    for (const [k, v] of Object.entries(node)) {
      if (isVendorKeyword(k) || k === "title" || k === "$id" || k === "$schema" || k === "$defs") continue;
      cleaned[k] = v;
    }
    if (typeof cleaned.$ref === "string") {
      const target = nameByRef.get(absoluteRef(cleaned.$ref, baseId));
      if (!target) throw new Error(`no type for $ref ${cleaned.$ref} in ${named.typeName}`);
      // A $ref with siblings would make the ref parser merge them into a new, renamed copy of the
      // target type. The siblings only document or narrow values: the narrowing rules TypeScript
      // can state stay beside an allOf (lowerForTypes rewrites them); the rest cannot be said.
      const ref: JsonSchema = { $ref: `#/$defs/${target}` };
      const narrowing = Object.fromEntries(Object.entries(cleaned).filter(([k]) => TYPEABLE_REF_SIBLINGS.includes(k)));
      if (typeof cleaned.description === "string" || Object.keys(narrowing).length > 0) {
        return {
          ...(typeof cleaned.description === "string" ? { description: cleaned.description } : {}),
          allOf: [ref],
          ...narrowing,
        };
      }
      return ref;
    }
    return cleaned;
  }) as JsonSchema;
  return { ...out, title: named.typeName };
}

/** Drops the bundle's own (empty) root declaration and json-schema-to-typescript's provenance notes. */
function stripRoot(source: string): string {
  const lines = source
    .replace(new RegExp(`export interface ${ROOT} \\{\\s*\\}\\n?`), "")
    .split("\n")
    .filter((l) => !/^\s*\* (This interface was referenced by|via the `definition`)/.test(l));
  const out: string[] = [];
  for (const line of lines) {
    // a comment left with only its blank separator line, or nothing at all
    if (/^\s*\*\/$/.test(line) && /^\s*\*\s*$/.test(out[out.length - 1] ?? "")) out.pop();
    if (/^\s*\*\/$/.test(line) && /^\s*\/\*\*$/.test(out[out.length - 1] ?? "")) {
      out.pop();
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}
