/**
 * Duplicate member names in raw JSON text. JSON.parse keeps the last one silently, while another
 * parser on the way (a proxy, a log pipeline) may keep the first: two components would then act on
 * two different requests.
 *
 * Detected by counting, not by remembering names: JSON.parse drops exactly one key per duplicate,
 * so the text holds a duplicate if and only if it has more object members than the parsed value
 * has keys (which the limits walk counts anyway). One linear pass with no allocation per member:
 * a 100k-key object costs no Set and no string slices.
 */

/** The number of object members (name: value pairs) in JSON text, at every depth. */
export function countMembers(text: string): number {
  // one bit per open container: 1 for an object, 0 for an array (a Uint8Array grows rarely)
  let kinds = new Uint8Array(64);
  let depth = 0;
  let members = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      if (depth > 0 && kinds[depth - 1] === 1) {
        let j = i;
        while (j < n) {
          const w = text.charCodeAt(j);
          if (w !== 0x20 && w !== 0x0a && w !== 0x0d && w !== 0x09) break;
          j++;
        }
        if (text.charCodeAt(j) === 0x3a /* : */) members++;
      }
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (depth === kinds.length) {
        const grown = new Uint8Array(kinds.length * 2);
        grown.set(kinds);
        kinds = grown;
      }
      kinds[depth++] = c === 0x7b ? 1 : 0;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
    i++;
  }
  return members;
}
