/**
 * The one ajv configuration the generator uses, both to check the contract's examples in memory
 * and to emit the standalone validators, so the two cannot disagree.
 */
import Ajv2020 from "ajv/dist/2020";
import { _ } from "ajv";
import addFormats from "ajv-formats";
import { VENDOR_KEYWORDS } from "../vendor-keywords";

import { SUPPORTED_FORMATS } from "./formats";

export { SUPPORTED_FORMATS };

export interface ContractAjvOptions {
  /** Keep the generated source so standaloneCode can emit it. */
  source?: boolean;
  /**
   * Strict mode is a lint on contract authors (unknown keywords, ambiguous types). The JSON Schema
   * test suite turns it off: its schemas use unknown keywords on purpose.
   */
  strict?: boolean;
  /**
   * Whether ajv may print its warnings (default true). The JSON Schema test suite turns them off:
   * its schemas name formats no validator knows on purpose, and each would be one console line.
   */
  warnings?: boolean;
}

/**
 * With source, ajv's functions are never called, only printed (standaloneModule): evaluating each
 * one's source with new Function was 15% of generating 200 tools. ajv passes its code through
 * code.process before evaluating it; this body stands in, and says so if anything calls it.
 */
const STANDALONE_ONLY = `return function standaloneOnly() { throw new Error("this ajv instance emits standalone code; its validators do not run in memory"); }`;

/**
 * The generator's ajv. With source: true it is for standaloneModule only (its schemas must be
 * valid already, and its validate functions throw); without, it validates in memory.
 */
export function createContractAjv(options: ContractAjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: options.strict ?? true,
    strictTypes: false,
    // composed requests require envelope fields declared in the other allOf branch
    strictRequired: false,
    allErrors: false,
    // "required": ["constructor"] must not be met by Object.prototype, nor "properties" check inherited names
    ownProperties: true,
    // A $ref to a schema of at most 8 keywords (an Identifier, an enum) is inlined; a larger one is
    // called. ajv's default inlines every $ref target without $refs of its own, whatever its size,
    // so each of 200 tools' args was emitted three times (Args, its Request, its kernel Payload):
    // with 8 the 200-tool validators are 6.9 MB instead of 8.7 (bench/, codegen and validators).
    inlineRefs: 8,
    // The standalone code imports formats from the generated runtime folder, never from ajv-formats.
    // optimize: false skips ajv's pass over its own output: generating 200 tools took 0.77 of the
    // time, the validators came out 7% larger and as fast (bench/, codegen and validators)
    code: options.source
      ? {
          source: true,
          esm: true,
          lines: true,
          optimize: false,
          formats: _`require("./runtime/formats").formats`,
          process: (_code: string) => STANDALONE_ONLY,
        }
      : {},
    // An instance that emits source only compiles schemas the validate phase has already checked
    // against the meta-schema (ajv would check each again, and compile the meta-schema to do it).
    ...(options.source ? { validateSchema: false } : {}),
    ...(options.warnings === false ? { logger: false as const } : {}),
  });
  addFormats(ajv, [...SUPPORTED_FORMATS]);
  for (const keyword of VENDOR_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv;
}
