/**
 * SQL text from an archive (check conditions, defaults, view queries) is run by a restore only when
 * it is one expression or query: no statement separator, comment or dollar quoting can hide a
 * second statement in it. Targets also send it through interfaces that take one statement only.
 */

/** Why a condition is not one plain SQL expression, or undefined when it is. */
export function conditionProblem(condition: string, options: { topLevelComma?: boolean } = {}): string | undefined {
  let depth = 0;
  for (let i = 0; i < condition.length; i++) {
    const ch = condition[i]!;
    if (ch === "'" || ch === '"') {
      // E'...' strings take backslash escapes; others only double their quote.
      const escapes = ch === "'" && /(^|[^A-Za-z0-9_$])[Ee]$/.test(condition.slice(Math.max(0, i - 2), i));
      let j = i + 1;
      for (; j < condition.length; j++) {
        if (escapes && condition[j] === '\\') j++;
        else if (condition[j] === ch) {
          if (condition[j + 1] === ch) j++;
          else break;
        }
      }
      if (j >= condition.length) return 'it has an unterminated quote';
      i = j;
    } else if (ch === '(') depth++;
    else if (ch === ')') {
      if (--depth < 0) return 'it closes a parenthesis it did not open';
    } else if (ch === ';') return 'it contains ";"';
    else if (ch === ',' && depth === 0 && options.topLevelComma === false) return 'it has a comma outside parentheses';
    else if (ch === '$') return 'it contains "$" (dollar quoting or parameters)';
    else if ((ch === '-' && condition[i + 1] === '-') || (ch === '/' && condition[i + 1] === '*')) return 'it contains a comment';
  }
  return depth === 0 ? undefined : 'its parentheses are not balanced';
}

