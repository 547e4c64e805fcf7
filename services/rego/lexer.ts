/** Tokenizer for Rego source. Newlines are tokens: they separate the expressions of a body. */
import { type Location, RegoError } from './errors.ts';

export type TokenType = 'ident' | 'string' | 'number' | 'punct' | 'newline' | 'eof';

export interface Token {
  type: TokenType;
  text: string;
  /** Decoded value of a string token. */
  value?: string;
  loc: Location;
}

const PUNCTS = [
  ':=',
  '==',
  '!=',
  '<=',
  '>=',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '.',
  ',',
  ';',
  ':',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
];

export function tokenize(source: string, file: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let row = 1;
  let lineStart = 0;
  const loc = (at: number): Location => ({ file, row, col: at - lineStart + 1 });
  const fail = (at: number, msg: string): never => {
    throw new RegoError('rego_parse_error', msg, loc(at));
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\n') {
      tokens.push({ type: 'newline', text: '\n', loc: loc(i) });
      i++;
      row++;
      lineStart = i;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < source.length && /[A-Za-z0-9_]/.test(source[i]!)) i++;
      tokens.push({ type: 'ident', text: source.slice(start, i), loc: loc(start) });
    } else if (/[0-9]/.test(c)) {
      const start = i;
      const m = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(source.slice(i))!;
      i += m[0].length;
      tokens.push({ type: 'number', text: m[0], loc: loc(start) });
    } else if (c === '"') {
      const start = i;
      i++;
      while (i < source.length && source[i] !== '"') {
        if (source[i] === '\n') fail(start, 'non-terminated string');
        i += source[i] === '\\' ? 2 : 1;
      }
      if (i >= source.length) fail(start, 'non-terminated string');
      i++;
      const text = source.slice(start, i);
      let value: string;
      try {
        value = JSON.parse(text) as string;
      } catch {
        return fail(start, `illegal string ${text}`);
      }
      tokens.push({ type: 'string', text, value, loc: loc(start) });
    } else if (c === '`') {
      const start = i;
      const startLoc = loc(start);
      const end = source.indexOf('`', i + 1);
      if (end < 0) fail(start, 'non-terminated raw string');
      const value = source.slice(i + 1, end);
      for (let j = i; j < end; j++) {
        if (source[j] === '\n') {
          row++;
          lineStart = j + 1;
        }
      }
      i = end + 1;
      tokens.push({ type: 'string', text: source.slice(start, i), value, loc: startLoc });
    } else {
      const p = PUNCTS.find((p) => source.startsWith(p, i));
      if (!p) fail(i, `illegal token ${JSON.stringify(c)}`);
      tokens.push({ type: 'punct', text: p!, loc: loc(i) });
      i += p!.length;
    }
  }
  tokens.push({ type: 'eof', text: '', loc: loc(i) });
  return tokens;
}
