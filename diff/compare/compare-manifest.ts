/**
 * contract.json: the version is judged by the verdict; the rest is reported, never dropped. The
 * toolset description is what the model reads about all the tools: a description change.
 */
import type { ContractModel } from "../../codegen/model";
import type { Change } from "../types";
import { change } from "./change";
import { sameJson, show } from "../normalize/json";

export function compareManifest(base: ContractModel, head: ContractModel): Change[] {
  const out: Change[] = [];
  for (const key of ["name", "title", "baseUri"] as const) {
    if (sameJson(base[key], head[key])) continue;
    const pointer = `/${key}`;
    out.push(
      change(
        "contract-metadata-changed",
        "contract",
        pointer,
        { file: "contract.json", filePointer: pointer },
        `${key} ${show(base[key])} -> ${show(head[key])}`,
        base[key],
        head[key],
      ),
    );
  }
  if (base.toolsetDescription !== head.toolsetDescription)
    out.push(
      change(
        "description-changed",
        "contract",
        "/toolsetDescription",
        { file: "contract.json", filePointer: "/toolsetDescription" },
        "toolsetDescription changed",
        base.toolsetDescription,
        head.toolsetDescription,
      ),
    );
  return out;
}
