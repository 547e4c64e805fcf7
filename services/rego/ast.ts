/** The syntax tree of Rego modules and queries, as the parser builds it. */
import type { Location } from './errors.ts';
import type { Value } from './values.ts';

export type Term =
  | { type: 'scalar'; value: Value; loc: Location }
  | { type: 'var'; name: string; loc: Location }
  | { type: 'ref'; head: Term; path: Term[]; loc: Location }
  | { type: 'array'; items: Term[]; loc: Location }
  | { type: 'object'; entries: [Term, Term][]; loc: Location }
  | { type: 'set'; items: Term[]; loc: Location }
  | { type: 'call'; name: string; args: Term[]; loc: Location }
  | { type: 'arraycomp'; term: Term; body: Body; loc: Location }
  | { type: 'setcomp'; term: Term; body: Body; loc: Location }
  | { type: 'objectcomp'; key: Term; value: Term; body: Body; loc: Location };

export interface With {
  target: Term;
  value: Term;
}

export type ExprKind =
  | { type: 'term'; term: Term }
  | { type: 'unify'; left: Term; right: Term }
  | { type: 'assign'; left: Term; right: Term }
  | { type: 'some'; vars: Term[] }
  | { type: 'somein'; key?: Term; value: Term; collection: Term }
  | { type: 'every'; key?: Term; value: Term; domain: Term; body: Body };

export type Expr = ExprKind & { negated: boolean; with: With[]; loc: Location };

export type Body = Expr[];

/** `general`: a ref head with variables before its last part (`p[x].y := v`, `p[x][y] contains z`). */
export type RuleKind = 'complete' | 'set' | 'object' | 'function' | 'general';

export interface RuleHead {
  /** Ground path of the rule below its package (`p`, `p.q`), without the key of a partial rule. */
  path: string[];
  /** Partial set element (`contains x` or v0 `p[x]`) or object key (`p[k] := v`). */
  key?: Term;
  /** Parts of a general ref head from the first variable on; the rule's object nests them. */
  tail?: Term[];
  /** Value term; absent for a set rule, `true` for `p if {…}`. */
  value?: Term;
  args?: Term[];
  assign: boolean;
}

export interface Rule {
  kind: RuleKind;
  head: RuleHead;
  body: Body;
  isDefault: boolean;
  else?: { value?: Term; body: Body; loc: Location; else?: Rule['else'] };
  loc: Location;
}

export interface Import {
  path: Term;
  alias?: string;
  loc: Location;
}

export interface Module {
  file: string;
  package: string[];
  imports: Import[];
  rules: Rule[];
}
