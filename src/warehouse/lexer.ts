import { WarehouseError } from './errors.js';

/**
 * A tokenizer for ClickHouse SQL, enough to tell statements apart and to see
 * which words are calls. It follows the engine's lexer (src/Parsers/Lexer.cpp)
 * where a mismatch could hide code: comments (`--`, `# `, `#!`, and nested
 * `/* … *\/`), strings with backslash escapes and doubled quotes, quoted
 * identifiers (`"…"`, `` `…` ``) and heredocs (`$$…$$`, `$tag$…$tag$`).
 * Whatever it does not know is one punctuation character: never a place where
 * text could be skipped.
 */

export type TokenKind =
  /** A bare word: keyword or identifier (may contain `$` after its first character). */
  | 'word'
  /** A `"…"` or `` `…` `` identifier; `value` is its unquoted name. */
  | 'quoted'
  /** A `'…'` string or a heredoc. */
  | 'string'
  | 'number'
  /** One character of anything else (`(`, `;`, `,`, `.`, operators, `{`, …). */
  | 'punct';

export interface Token {
  kind: TokenKind;
  /** The token's text as written. */
  text: string;
  /** Identifier name (words and quoted identifiers), else the text. */
  value: string;
  start: number;
  end: number;
}

const isWordStart = (c: string): boolean => /[A-Za-z_\u0080-\uffff]/.test(c);
const isWordChar = (c: string): boolean => /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
const HEREDOC_TAG = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/;

function unterminated(what: string, at: number): never {
  throw new WarehouseError('syntax', `unterminated ${what} starting at position ${at}`);
}

/** Index just past the quoted run that starts at `start` (a `\` escapes the next character; a doubled quote is one). */
function skipQuoted(sql: string, start: number, quote: string, what: string): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === '\\') i += 2;
    else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return unterminated(what, start);
}

/** Index just past a `/* … *\/` comment; ClickHouse nests them. */
function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return unterminated('comment', start);
}

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const push = (kind: TokenKind, start: number, end: number, value?: string): void => {
    const text = sql.slice(start, end);
    tokens.push({ kind, text, value: value ?? text, start, end });
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1] ?? '';
    if (/\s/.test(c)) {
      i++;
    } else if ((c === '-' && next === '-') || (c === '#' && (next === ' ' || next === '!'))) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(sql, i);
    } else if (c === "'") {
      const end = skipQuoted(sql, i, "'", 'string');
      push('string', i, end);
      i = end;
    } else if (c === '"' || c === '`') {
      const end = skipQuoted(sql, i, c, 'quoted identifier');
      push('quoted', i, end, unquote(sql.slice(i + 1, end - 1), c));
      i = end;
    } else if (c === '$' && HEREDOC_TAG.test(sql.slice(i, i + 256))) {
      const tag = HEREDOC_TAG.exec(sql.slice(i, i + 256))![0];
      const close = sql.indexOf(tag, i + tag.length);
      if (close < 0) unterminated('heredoc', i);
      push('string', i, close + tag.length);
      i = close + tag.length;
    } else if (isWordStart(c)) {
      let j = i + 1;
      while (j < sql.length && isWordChar(sql[j]!)) j++;
      push('word', i, j);
      i = j;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next))) {
      let j = i + 1;
      while (j < sql.length && /[0-9A-Za-z_.]/.test(sql[j]!)) {
        // An exponent's sign belongs to the number (1e-5).
        if (/[eEpP]/.test(sql[j]!) && /[+-]/.test(sql[j + 1] ?? '')) j++;
        j++;
      }
      push('number', i, j);
      i = j;
    } else {
      push('punct', i, i + 1);
      i++;
    }
  }
  return tokens;
}

function unquote(body: string, quote: string): string {
  return body.replace(new RegExp(`\\\\(.)|${quote}${quote}`, 'gs'), (m: string, escaped: string | undefined) => escaped ?? quote);
}

/** The statement's tokens and its text without trailing semicolons, comments and whitespace. */
export interface Statement {
  text: string;
  tokens: Token[];
}

/**
 * The one statement in `sql`: trailing semicolons are dropped; a second
 * statement (anything after a `;` but comments and more semicolons) is
 * refused, because chdb would run every statement in the string.
 */
export function oneStatement(sql: string): Statement {
  const tokens = tokenize(sql);
  const semi = tokens.findIndex((t) => t.kind === 'punct' && t.text === ';');
  if (semi < 0) return { text: statementText(sql, tokens), tokens };
  const rest = tokens.slice(semi);
  if (rest.some((t) => !(t.kind === 'punct' && t.text === ';'))) {
    throw new WarehouseError('refused', 'more than one statement: each call runs exactly one (remove the `;` between statements)');
  }
  const body = tokens.slice(0, semi);
  if (body.length === 0) throw new WarehouseError('syntax', 'empty statement');
  return { text: statementText(sql, body), tokens: body };
}

function statementText(sql: string, tokens: readonly Token[]): string {
  if (tokens.length === 0) throw new WarehouseError('syntax', 'empty statement');
  // From the start (leading comments kept: harmless) to the end of the last token.
  return sql.slice(0, tokens[tokens.length - 1]!.end).trim();
}

/** Whether the token is the keyword `word` (case-insensitive). */
export function isKeyword(token: Token | undefined, word: string): boolean {
  return token?.kind === 'word' && token.value.toUpperCase() === word;
}
