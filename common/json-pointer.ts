/** RFC 6901 JSON pointers: the one way contract errors and invalid-input errors name a place. */

export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

export function joinPointer(base: string, ...tokens: Array<string | number>): string {
  return base + tokens.map((t) => "/" + escapeToken(t)).join("");
}

export function splitPointer(pointer: string): string[] {
  if (pointer === "" || pointer === "#") return [];
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (!body.startsWith("/")) throw new Error(`not a JSON pointer: ${pointer}`);
  return body.slice(1).split("/").map(unescapeToken);
}

/** The value at pointer, or undefined. Own properties only, so "__proto__" is just a name. */
export function getAtPointer(value: unknown, pointer: string): unknown {
  let current: unknown = value;
  for (const token of splitPointer(pointer)) {
    if (current === null || typeof current !== "object") return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}
