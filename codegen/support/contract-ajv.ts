/**
 * The one ajv configuration the generator uses, both to check the contract's examples in memory
 * and to emit the standalone validators, so the two cannot disagree.
 */
import Ajv2020 from "ajv/dist/2020";
import { _ } from "ajv";
import addFormats from "ajv-formats";
import { VENDOR_KEYWORDS } from "../vendor-keywords";

/** Formats the contract may use; the standalone runtime implements exactly these. */
export const SUPPORTED_FORMATS = ["date-time"] as const;

export interface ContractAjvOptions {
  /** Keep the generated source so standaloneCode can emit it. */
  source?: boolean;
  /**
   * Strict mode is a lint on contract authors (unknown keywords, ambiguous types). The JSON Schema
   * test suite turns it off: its schemas use unknown keywords on purpose.
   */
  strict?: boolean;
}

export function createContractAjv(options: ContractAjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: options.strict ?? true,
    strictTypes: false,
    // composed requests require envelope fields declared in the other allOf branch
    strictRequired: false,
    allErrors: false,
    // "required": ["constructor"] must not be met by Object.prototype, nor "properties" check inherited names
    ownProperties: true,
    // The standalone code imports formats from the generated runtime folder, never from ajv-formats.
    // optimize: false skips ajv's pass over its own output: generating 200 tools took 0.77 of the
    // time, the validators came out 7% larger and as fast (bench/, codegen and validators)
    code: options.source ? { source: true, esm: true, lines: true, optimize: false, formats: _`require("./runtime/formats").formats` } : {},
  });
  addFormats(ajv, [...SUPPORTED_FORMATS]);
  for (const keyword of VENDOR_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv;
}
