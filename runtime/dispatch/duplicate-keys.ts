/**
 * Finds an object with the same member name twice in raw JSON text. JSON.parse keeps the last one
 * silently, while another parser on the way (a proxy, a log pipeline) may keep the first: two
 * components would then act on two different requests. One linear pass over the text.
 */
export function findDuplicateKey(text: string): string | undefined {
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      let escaped = false;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          escaped = true;
          i += 2;
          continue;
        }
        if (d === 0x22) break;
        i++;
      }
      const end = i;
      i++;
      const keys = stack[stack.length - 1];
      if (keys) {
        let j = i;
        while (j < n && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x0a || text.charCodeAt(j) === 0x0d || text.charCodeAt(j) === 0x09)) j++;
        if (text.charCodeAt(j) === 0x3a /* : */) {
          let key = text.slice(start, end);
          if (escaped) {
            try {
              key = JSON.parse(`"${key}"`) as string;
            } catch {
              return undefined; // not valid JSON anyway; JSON.parse reports it
            }
          }
          if (keys.has(key)) return key;
          keys.add(key);
        }
      }
      continue;
    }
    if (c === 0x7b /* { */) stack.push(new Set());
    else if (c === 0x5b /* [ */) stack.push(null);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    i++;
  }
  return undefined;
}
