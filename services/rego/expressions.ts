/**
 * The value of each expression of a query, as `opa eval` reports it: a term expression (`data.p`,
 * `count(xs)`, `1 > 2`) reports its value, false included, so it is captured into a hidden
 * variable instead of being tested; any other expression reports true when it holds.
 */
import type { Body, Expr, Term } from './ast.ts';
import type { Location } from './errors.ts';

/** Prefix of the capture variables; solutions do not report them. */
export const CAPTURE_PREFIX = '__expr';

export interface CapturedQuery {
  body: Body;
  /** Per expression, its capture variable, or undefined when it reports true. */
  captures: (string | undefined)[];
}

export function captureExpressions(body: Body, outputArity: (call: Term) => boolean): CapturedQuery {
  const captures: (string | undefined)[] = [];
  const captured = body.map((e, i): Expr => {
    if (e.type !== 'term' || e.negated || outputArity(e.term)) {
      captures.push(undefined);
      return e;
    }
    const name = `${CAPTURE_PREFIX}${i}__`;
    captures.push(name);
    const variable: Term = { type: 'var', name, loc: e.loc };
    return { type: 'unify', left: variable, right: e.term, negated: false, with: e.with, loc: e.loc };
  });
  return { body: captured, captures };
}

/** Each expression's source text: from its start to the next one's, without separators. */
export function expressionTexts(source: string, body: Body): string[] {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const offset = (loc: Location) => (lineStarts[loc.row - 1] ?? 0) + loc.col - 1;
  const starts = body.map((e) => offset(e.loc));
  const sorted = [...starts].sort((a, b) => a - b);
  return starts.map((start) => {
    const end = sorted.find((s) => s > start) ?? source.length;
    return source.slice(start, end).trim().replace(/;\s*$/, '').trim();
  });
}
