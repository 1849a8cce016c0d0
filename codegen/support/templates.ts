import { existsSync } from "node:fs";
import { join } from "node:path";

/** codegen/templates/<name>, whether the generator runs from source or from dist/. */
export function templatesDir(name: string): string {
  const fromSource = join(__dirname, "..", "templates", name);
  return existsSync(fromSource) ? fromSource : join(__dirname, "..", "..", "..", "codegen", "templates", name);
}

/** codegen/assets/<name>, whether the generator runs from source or from dist/. */
export function assetsDir(name: string): string {
  const fromSource = join(__dirname, "..", "assets", name);
  return existsSync(fromSource) ? fromSource : join(__dirname, "..", "..", "..", "codegen", "assets", name);
}
