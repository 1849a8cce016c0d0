/**
 * generated/contract-manifest.json: which contract the output was made from, file by file, so the
 * drift check can say which contract file changed and not only which outputs are stale.
 */
import type { Target } from "./target";
import { bannerText } from "../support/banner";

export const MANIFEST_PATH = "contract-manifest.json";

export interface GeneratedManifest {
  generated: string;
  name: string;
  version: string;
  hash: string;
  files: Record<string, string>;
}

export const manifestTarget: Target = {
  name: "manifest",
  emit(model) {
    const manifest: GeneratedManifest = {
      generated: bannerText(model),
      name: model.name,
      version: model.version,
      hash: model.hash,
      files: model.fileHashes,
    };
    return [{ path: MANIFEST_PATH, content: JSON.stringify(manifest, null, 2) + "\n" }];
  },
};
