/**
 * Every edit of JSON text at its seams that leaves it not JSON: each comma, colon and bracket left
 * out, each comma doubled, a comma after each opening bracket and before each closing one (where a
 * scanner decides whether a list or an object goes on, and what a value is). Random damage lands on
 * one of these seldom: a scanner that let a trailing comma through failed 3,000 randomly damaged
 * inventories first at round 2,515 (test/README.md).
 */
export function seamEdits(text: string): string[] {
  const out: string[] = [];
  const at = (i: number, s: string, drop = 0) => text.slice(0, i) + s + text.slice(i + drop);
  for (let i = 0, inString = false; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ',') out.push(at(i, '', 1), at(i, ','));
    else if (c === ':') out.push(at(i, '', 1));
    else if (c === '{' || c === '[') out.push(at(i, '', 1), at(i + 1, ','));
    else if (c === '}' || c === ']') out.push(at(i, '', 1), at(i, ','));
  }
  return out;
}
