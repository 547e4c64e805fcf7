/**
 * Locates the first syntax error of a JSON text. `JSON.parse` messages give no position for some
 * errors and quote the surrounding text, which may hold a credential; this scanner reports
 * line, column and the expected token only.
 */
export interface JsonSyntaxProblem {
  line: number;
  column: number;
  reason: string;
}

class SyntaxProblem extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;
const ESCAPE = /^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/;

function scan(text: string): void {
  let at = 0;
  const describe = (): string =>
    at >= text.length ? 'end of input' : `character ${JSON.stringify(text[at])}`;
  const fail = (expected: string): never => {
    throw new SyntaxProblem(at, `expected ${expected}, found ${describe()}`);
  };
  const skipWhitespace = (): void => {
    while (at < text.length && WHITESPACE.has(text[at]!)) at++;
  };
  const string = (): void => {
    at++; // opening quote
    for (;;) {
      if (at >= text.length) fail('a closing quote');
      const char = text[at]!;
      if (char === '"') {
        at++;
        return;
      }
      if (char < ' ') throw new SyntaxProblem(at, 'control character in a string (escape it)');
      if (char === '\\') {
        const escapeSequence = ESCAPE.exec(text.slice(at + 1, at + 6));
        if (!escapeSequence) throw new SyntaxProblem(at, 'invalid escape sequence in a string');
        at += 1 + escapeSequence[0].length;
      } else at++;
    }
  };
  const value = (): void => {
    skipWhitespace();
    const char = text[at];
    if (char === '{') {
      object();
      return;
    }
    if (char === '[') {
      array();
      return;
    }
    if (char === '"') {
      string();
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return;
      }
    }
    const number = NUMBER.exec(text.slice(at, at + 400));
    if (!number) throw new SyntaxProblem(at, `expected a value, found ${describe()}`);
    at += number[0].length;
  };
  const object = (): void => {
    at++;
    skipWhitespace();
    if (text[at] === '}') {
      at++;
      return;
    }
    for (;;) {
      skipWhitespace();
      if (text[at] !== '"') fail('a double-quoted property name');
      string();
      skipWhitespace();
      if (text[at] !== ':') fail("':'");
      at++;
      value();
      skipWhitespace();
      if (text[at] === '}') {
        at++;
        return;
      }
      if (text[at] !== ',') fail("',' or '}'");
      at++;
    }
  };
  const array = (): void => {
    at++;
    skipWhitespace();
    if (text[at] === ']') {
      at++;
      return;
    }
    for (;;) {
      value();
      skipWhitespace();
      if (text[at] === ']') {
        at++;
        return;
      }
      if (text[at] !== ',') fail("',' or ']'");
      at++;
    }
  };
  value();
  skipWhitespace();
  if (at < text.length) fail('end of input');
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The first syntax problem of `text`, or null when the scanner finds none. */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | null {
  try {
    scan(text);
    return null;
  } catch (error) {
    // Nesting too deep for this recursive scanner: the caller reports the problem without a position.
    if (error instanceof RangeError) return null;
    if (!(error instanceof SyntaxProblem)) throw error;
    return { ...lineAndColumn(text, error.offset), reason: error.reason };
  }
}
