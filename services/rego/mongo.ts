/**
 * Translates residual queries into a MongoDB filter the way Rönd does: each residual body is
 * `{"$and": [...]}`, the bodies together `{"$or": [...]}`; each expression compares one field of
 * the unknown collection (`data.resources[_].a.b` is field `"a.b"`) with a constant. A body with
 * no condition lets every row pass, so the whole filter is `{}` (Rönd sends no filter then).
 */
import type { Body, Expr, Term } from './ast.ts';
import { formatExpr } from './format.ts';
import { toJSON } from './values.ts';

export type MongoFilter = Record<string, unknown>;

const OPERATORS: Record<string, string> = {
  equal: '$eq',
  eq: '$eq',
  neq: '$ne',
  lt: '$lt',
  lte: '$lte',
  gt: '$gt',
  gte: '$gte',
  'internal.member_2': '$in',
};
/** The operator seen from the field when the constant is on the left (`3 < f` is `f > 3`). */
const MIRRORED: Record<string, string> = { $lt: '$gt', $lte: '$gte', $gt: '$lt', $gte: '$lte' };

export class RowFilterError extends Error {
  override readonly name = 'RowFilterError';
}

/** No residual query means the query cannot hold for any row: Rönd reports it as an error. */
export function toMongoQuery(residuals: Body[]): MongoFilter {
  if (residuals.length === 0)
    throw new RowFilterError('policy evaluation failed: no row can satisfy the policy');
  // Every body is translated first, so an expression Mongo cannot express is refused wherever it is.
  const alternatives = residuals.map((body) => body.flatMap((e) => condition(e)));
  if (alternatives.some((conditions) => conditions.length === 0)) return {};
  return { $or: alternatives.map((conditions) => ({ $and: conditions })) };
}

/** `{}`: the filter of {@link toMongoQuery} when a residual body has no condition. */
export function admitsEveryRow(filter: MongoFilter): boolean {
  return Object.keys(filter).length === 0;
}

function condition(e: Expr): MongoFilter[] {
  if (e.negated)
    throw new RowFilterError(`unsupported expression in a row filter (negation): ${formatExpr(e)}`);
  if (e.type === 'term' && e.term.type === 'ref') return []; // a bare `data.resources[_]`: no condition
  const call = asCall(e);
  if (!call) throw new RowFilterError(`unsupported expression in a row filter: ${formatExpr(e)}`);
  const op = OPERATORS[call.name];
  if (!op || call.args.length !== 2)
    throw new RowFilterError(`unsupported operator in a row filter: ${formatExpr(e)}`);
  const [a, b] = call.args as [Term, Term];
  const fieldLeft = fieldOf(a);
  const fieldRight = fieldOf(b);
  if ((fieldLeft === undefined) === (fieldRight === undefined) || (fieldLeft ? b : a).type !== 'scalar') {
    throw new RowFilterError(`a row filter compares one field with a constant: ${formatExpr(e)}`);
  }
  const field = (fieldLeft ?? fieldRight)!;
  // Exact, as the json.Number Rönd puts in the filter: a BigInt prints with all its digits in `jsonText`.
  const constant = toJSON(((fieldLeft ? b : a) as Extract<Term, { type: 'scalar' }>).value, true);
  if (op === '$in') {
    // As Rönd (opatranslator HandleIn): an array constant is the `$in` list whichever side it is
    // on, a scalar is wrapped. So `["x"] in field` reads "the field holds x", not Rego's "holds
    // the array ["x"]": the filter Rönd's users rely on.
    return [{ [field]: { $in: Array.isArray(constant) ? constant : [constant] } }];
  }
  return [{ [field]: { [fieldLeft ? op : (MIRRORED[op] ?? op)]: constant } }];
}

function asCall(e: Expr): { name: string; args: Term[] } | undefined {
  if (e.type === 'term' && e.term.type === 'call') return e.term;
  if (e.type === 'unify' || e.type === 'assign') return { name: 'eq', args: [e.left, e.right] };
  return undefined;
}

/** `data.resources[_].a.b` → `"a.b"`: the ref's string parts after the collection and index. */
function fieldOf(t: Term): string | undefined {
  if (t.type !== 'ref' || t.head.type !== 'var' || t.head.name !== 'data' || t.path.length < 3)
    return undefined;
  const rest = t.path.slice(2);
  if (rest.some((p) => p.type !== 'scalar' || typeof p.value !== 'string')) return undefined;
  return rest.map((p) => (p as { value: string }).value).join('.');
}
