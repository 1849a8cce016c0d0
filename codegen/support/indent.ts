/**
 * Indents the flat TypeScript json-schema-to-typescript prints with format: false. Running
 * prettier instead would cost a dynamic import (which fails inside Jest) and seconds per run.
 */
export function indentTypeScript(source: string, unit = "  "): string {
  let depth = 0;
  const out: string[] = [];
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (line === "") {
      out.push("");
      continue;
    }
    const closesFirst = /^[}\])]/.test(line);
    if (closesFirst) depth = Math.max(0, depth - 1);
    const isCommentBody = line.startsWith("*");
    out.push(unit.repeat(depth) + (isCommentBody ? " " : "") + line);
    const code = line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
    const opens = (code.match(/[{[(]/g) ?? []).length;
    const closes = (code.match(/[}\])]/g) ?? []).length - (closesFirst ? 1 : 0);
    if (!line.startsWith("*") && !line.startsWith("/*") && !line.startsWith("//"))
      depth = Math.max(0, depth + opens - closes);
  }
  return out.join("\n");
}
