/**
 * The precompiled validators (codegen/support/precompiled-validators.json) are exactly what their
 * schemas and ajv configurations give, and cover every meta-schema set this repository holds: a
 * change to a schema, to contract/meta/ or a new release without running
 * `node dist/scripts/precompile-validators.js` fails here. The precompiled meta-schema validators
 * decide as the compiled ones do on every contract file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import {
  metaFilesOf,
  metaSetSources,
  precompiledSources,
  repositoryContracts,
} from "../../codegen/support/precompile-sources";
import { metaSetKey, precompiled, precompiledMetaSet } from "../../codegen/support/precompiled";
import { parseContract, readContractDir } from "../../codegen/phases/load";
import { classifyFile } from "../../codegen/phases/validate";
import { createContractAjv } from "../../codegen/support/contract-ajv";
import { repoRoot } from "../support/paths";

const committed = JSON.parse(
  readFileSync(join(repoRoot, "codegen", "support", "precompiled-validators.json"), "utf8"),
) as Record<string, unknown>;
const REGENERATE = "run: npm run -s build && node dist/scripts/precompile-validators.js && npm run -s build";

describe("precompiled validators", () => {
  it(`are what the schemas give (else ${REGENERATE})`, () => {
    const { metaSets, ...fixed } = committed;
    expect(fixed).toEqual(precompiledSources());
    expect(metaSets).toEqual(metaSetSources(repositoryContracts(repoRoot)));
  });

  it("cover contract/ and every release in contract-releases/", () => {
    for (const dir of repositoryContracts(repoRoot))
      expect(precompiledMetaSet(metaSetKey(metaFilesOf(dir)))).toBeDefined();
    expect(repositoryContracts(repoRoot).length).toBeGreaterThanOrEqual(2);
  });

  it("decide as compiled ones on every file of every contract here, and on broken ones", () => {
    const contractAjv = createContractAjv();
    for (const dir of repositoryContracts(repoRoot)) {
      const files = parseContract(readContractDir(dir)).files;
      const metas = metaFilesOf(dir);
      const pre = precompiledMetaSet(metaSetKey(metas))!;
      const ajv = new Ajv2020({ strict: true, allErrors: false, validateSchema: false });
      for (const m of metas) ajv.addSchema(m.json as object);
      const meta2020 = precompiled("jsonSchema2020");
      for (const f of files) {
        const broken = { ...(f.json as object), type: 42, $defs: { X: { minLength: -1 } } };
        for (const json of [f.json, broken]) {
          if (classifyFile(f.path) !== "manifest")
            expect([f.path, meta2020(json)]).toEqual([f.path, contractAjv.validateSchema(json as object)]);
          for (const [ref, validate] of pre)
            expect([f.path, ref, validate(json)]).toEqual([f.path, ref, ajv.getSchema(ref)!(json)]);
        }
      }
    }
  });
});
