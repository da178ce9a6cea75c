/**
 * SQL text from an archive (check conditions, defaults, view queries) is run by a restore only when
 * it is one expression or query: no statement separator, comment or dollar quoting can hide a
 * second statement in it. Targets also send it through interfaces that take one statement only.
 */

/** How a dialect quotes and comments: what the scanner below must skip or refuse. */
interface SqlDialect {
  /** characters that open a string or quoted identifier (closed by the same, doubled to escape) */
  quotes: string;
  /** whether a backslash escapes the next character inside the quote opened at `at` */
  backslashEscapes(quote: string, text: string, at: number): boolean;
  /** '#' starts a comment (MySQL) */
  hashComments: boolean;
  /** '$' is refused (PostgreSQL dollar quoting and parameters) */
  refuseDollar: boolean;
}

/** Standard SQL as PostgreSQL and SQLite take it; E'...' strings take backslash escapes. */
const STANDARD: SqlDialect = {
  quotes: `'"`,
  backslashEscapes: (quote, text, at) => quote === "'" && /(^|[^A-Za-z0-9_$])[Ee]$/.test(text.slice(Math.max(0, at - 2), at)),
  hashComments: false,
  refuseDollar: true,
};

/** MySQL / MariaDB: backtick identifiers, backslash escapes in strings, '#' comments. */
const MYSQL: SqlDialect = {
  quotes: '\'"`',
  backslashEscapes: (quote) => quote !== '`',
  hashComments: true,
  refuseDollar: false,
};

/** Why `text` is not one expression or query of `dialect`, or undefined when it is. */
function oneStatementProblem(text: string, dialect: SqlDialect, options: { topLevelComma?: boolean }): string | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (dialect.quotes.includes(ch)) {
      const escapes = dialect.backslashEscapes(ch, text, i);
      let j = i + 1;
      for (; j < text.length; j++) {
        if (escapes && text[j] === '\\') j++;
        else if (text[j] === ch) {
          if (text[j + 1] === ch) j++;
          else break;
        }
      }
      if (j >= text.length) return 'it has an unterminated quote';
      i = j;
    } else if (ch === '(') depth++;
    else if (ch === ')') {
      if (--depth < 0) return 'it closes a parenthesis it did not open';
    } else if (ch === ';') return 'it contains ";"';
    else if (ch === ',' && depth === 0 && options.topLevelComma === false) return 'it has a comma outside parentheses';
    else if (ch === '$' && dialect.refuseDollar) return 'it contains "$" (dollar quoting or parameters)';
    else if ((ch === '#' && dialect.hashComments) || (ch === '-' && text[i + 1] === '-') || (ch === '/' && text[i + 1] === '*'))
      return 'it contains a comment';
  }
  return depth === 0 ? undefined : 'its parentheses are not balanced';
}

/** Why a condition is not one plain SQL expression, or undefined when it is. */
export function conditionProblem(condition: string, options: { topLevelComma?: boolean } = {}): string | undefined {
  return oneStatementProblem(condition, STANDARD, options);
}

/** Why `text` is not one MariaDB expression or query, or undefined when it is (quotes, backticks, comments, `;`). */
export function mysqlStatementProblem(text: string): string | undefined {
  return oneStatementProblem(text, MYSQL, {});
}
