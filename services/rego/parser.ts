/**
 * Recursive-descent parser for Rego v1 (OPA 1.x) and v0 (OPA 0.x) modules and queries.
 * Operator precedence, loosest first: `:=`/`=`, `in`, relations, `|`, `&`, `+ -`, `* / %`.
 */
import type { Body, Expr, ExprKind, Import, Module, Rule, RuleHead, RuleKind, Term, With } from './ast.ts';
import { type Location, RegoError } from './errors.ts';
import { type Token, tokenize } from './lexer.ts';
import type { Value } from './values.ts';

export type RegoVersion = 'v0' | 'v1';

const KEYWORDS = new Set([
  'not',
  'with',
  'as',
  'some',
  'every',
  'in',
  'if',
  'contains',
  'else',
  'default',
  'import',
  'package',
]);
const RELATIONS: Record<string, string> = {
  '==': 'equal',
  '!=': 'neq',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};
const ARITH: Record<string, string> = { '+': 'plus', '-': 'minus' };
const FACTOR: Record<string, string> = { '*': 'mul', '/': 'div', '%': 'rem' };
/**
 * How deep terms may nest (brackets, parentheses, unary minus, operator chains). The parser and
 * every later pass recurse on the tree, so without a bound a hostile policy ends in a stack
 * overflow instead of a parse error; real policies stay far below it.
 */
export const MAX_NESTING = 200;

/** Parses a module: as v1 unless it only parses as v0, or as the version asked for. */
export function parseModule(source: string, file: string, version?: RegoVersion): Module {
  if (version) return new Parser(tokenize(source, file), version).module(file);
  try {
    return new Parser(tokenize(source, file), 'v1').module(file);
  } catch (v1Error) {
    try {
      return new Parser(tokenize(source, file), 'v0').module(file);
    } catch {
      throw v1Error;
    }
  }
}

export function parseQuery(source: string, file = 'query'): Body {
  const p = new Parser(tokenize(source, file), 'v1');
  const body = p.bodyUntil('eof');
  if (body.length === 0) p.fail(p.peek(), 'empty query');
  return body;
}

class Parser {
  private pos = 0;
  /** > 0 inside brackets and parentheses of terms, where newlines do not end an expression. */
  private nesting = 0;
  private wildcards = 0;
  /** Depth of the term being parsed, bounded by `MAX_NESTING`. */
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly version: RegoVersion,
  ) {}

  fail(tok: Token, message: string): never {
    throw new RegoError('rego_parse_error', message, tok.loc);
  }

  peek(offset = 0): Token {
    let i = this.pos;
    let seen = 0;
    for (;;) {
      const t = this.tokens[i]!;
      if (t.type === 'newline' && this.nesting > 0) {
        i++;
        continue;
      }
      if (seen === offset || t.type === 'eof') return t;
      seen++;
      i++;
    }
  }

  next(): Token {
    if (this.nesting > 0) this.skipNewlines();
    const t = this.tokens[this.pos]!;
    if (t.type !== 'eof') this.pos++;
    return t;
  }

  private skipNewlines(): void {
    while (this.tokens[this.pos]!.type === 'newline') this.pos++;
  }

  private is(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return (t.type === 'punct' || t.type === 'ident') && t.text === text;
  }

  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.next();
    return true;
  }

  private expect(text: string): Token {
    const t = this.peek();
    if (!this.is(text)) this.fail(t, `unexpected ${describe(t)} token: expected ${text}`);
    return this.next();
  }

  private nested<T>(fn: () => T): T {
    this.nesting++;
    try {
      return fn();
    } finally {
      this.nesting--;
    }
  }

  /** Runs `fn` with newlines significant again (bodies inside terms). */
  private flat<T>(fn: () => T): T {
    const saved = this.nesting;
    this.nesting = 0;
    try {
      return fn();
    } finally {
      this.nesting = saved;
    }
  }

  module(file: string): Module {
    this.skipNewlines();
    const pkgTok = this.peek();
    if (!this.accept('package')) this.fail(pkgTok, `unexpected ${describe(pkgTok)} token: expected package`);
    const pkg = this.dottedPath();
    const imports: Import[] = [];
    const rules: Rule[] = [];
    for (;;) {
      this.endOfStatement();
      const t = this.peek();
      if (t.type === 'eof') break;
      if (t.text === 'import' && t.type === 'ident') {
        this.next();
        const path = this.term();
        const alias = this.accept('as') ? this.ident().text : undefined;
        const refused = refusedImport(path, alias);
        if (refused) throw new RegoError('rego_parse_error', refused, path.loc);
        imports.push({ path, alias, loc: t.loc });
      } else {
        rules.push(...this.rule());
      }
    }
    return { file, package: pkg, imports, rules };
  }

  private endOfStatement(): void {
    while (this.peek().type === 'newline' || this.is(';')) this.next();
  }

  private dottedPath(): string[] {
    const parts = [this.ident().text];
    for (;;) {
      if (this.accept('.')) parts.push(this.ident().text);
      else if (this.is('[') && this.peek(1).type === 'string' && this.is(']', 2)) {
        this.next();
        parts.push(this.next().value!);
        this.next();
      } else return parts;
    }
  }

  private ident(): Token {
    const t = this.next();
    if (t.type !== 'ident') this.fail(t, `unexpected ${describe(t)} token: expected identifier`);
    return t;
  }

  private rule(): Rule[] {
    const start = this.peek();
    const isDefault = this.accept('default');
    const nameTok = this.ident();
    if (KEYWORDS.has(nameTok.text)) this.fail(nameTok, `unexpected ${nameTok.text} keyword`);
    const parts: Term[] = [{ type: 'scalar', value: nameTok.text, loc: nameTok.loc }];
    let lastBracketed = false;
    for (;;) {
      if (this.is('.')) {
        this.next();
        const id = this.ident();
        parts.push({ type: 'scalar', value: id.text, loc: id.loc });
        lastBracketed = false;
      } else if (this.is('[')) {
        this.next();
        parts.push(
          this.nested(() => {
            const inner = this.expr1();
            this.expect(']');
            return inner;
          }),
        );
        lastBracketed = true;
      } else break;
    }
    let args: Term[] | undefined;
    if (this.is('(')) {
      this.next();
      args = this.nested(() => {
        const list = this.termList(')');
        this.expect(')');
        return list;
      });
    }
    const isName = (t: Term) => t.type === 'scalar' && typeof t.value === 'string';
    let ground = parts.findIndex((t) => !isName(t));
    if (ground < 0) ground = parts.length;
    // v0's `p["a"] { … }` is a partial set containing "a".
    const v0SetKey =
      this.version === 'v0' &&
      lastBracketed &&
      ground === parts.length &&
      !args &&
      !this.is(':=') &&
      !this.is('=') &&
      !this.is('contains');
    if (v0SetKey) ground = parts.length - 1;
    const path = parts.slice(0, ground).map((t) => String((t as { value: Value }).value));
    const key: Term | undefined = ground === parts.length - 1 ? parts[ground] : undefined;
    const tail = ground < parts.length - 1 ? parts.slice(ground) : undefined;
    let kind: RuleKind = args
      ? 'function'
      : tail
        ? 'general'
        : key
          ? this.version === 'v0'
            ? 'set'
            : 'object'
          : 'complete';
    if (this.accept('contains')) {
      if (key) {
        // `p[x] contains y`: a general rule whose leaf is a set.
        const element = this.expr1();
        return this.finishRule(
          start,
          isDefault,
          { path, tail: [key], key: element, assign: false },
          'general',
        );
      }
      return this.finishRule(
        start,
        isDefault,
        { path, tail, key: this.expr1(), assign: false },
        tail ? 'general' : 'set',
      );
    }
    let value: Term | undefined;
    let assign = false;
    if (this.is(':=') || this.is('=')) {
      assign = this.next().text === ':=';
      value = this.expr1();
      if (kind === 'set') kind = 'object';
    }
    return this.finishRule(start, isDefault, { path, key, tail, value, args, assign }, kind);
  }

  private finishRule(start: Token, isDefault: boolean, head: RuleHead, kind: RuleKind): Rule[] {
    const value = head.value;
    const rule: Rule = { kind, head, body: [], isDefault, loc: start.loc };
    if (isDefault) {
      if (!value) this.fail(start, 'default rule must have a value');
      return [rule];
    }
    const bodies = this.ruleBodies();
    if (!bodies) {
      const setLeaf = kind === 'set' || (kind === 'general' && head.key !== undefined);
      if (value === undefined && !setLeaf)
        this.fail(this.peek(), `unexpected ${describe(this.peek())} token`);
      return [rule];
    }
    const rules = bodies.map((body) => ({ ...rule, body }));
    if (this.peekElse()) rules[rules.length - 1]!.else = this.elseChain();
    return rules;
  }

  /** `if { … }`, `if expr`, or v0's `{ … }` (possibly several bodies); undefined for no body. */
  private ruleBodies(): Body[] | undefined {
    if (this.accept('if')) {
      if (this.is('{')) return [this.braceBody()];
      return [this.flat(() => [this.expr()])];
    }
    if (this.is('{')) {
      if (this.version === 'v1') this.fail(this.peek(), '`if` keyword is required before rule body');
      const bodies = [this.braceBody()];
      while (this.is('{')) bodies.push(this.braceBody());
      return bodies;
    }
    return undefined;
  }

  private peekElse(): boolean {
    let i = this.pos;
    while (this.tokens[i]!.type === 'newline') i++;
    const t = this.tokens[i]!;
    if (t.type === 'ident' && t.text === 'else') {
      this.pos = i;
      return true;
    }
    return false;
  }

  private elseChain(): Rule['else'] {
    return this.within(() => this.elseBranch());
  }

  private elseBranch(): Rule['else'] {
    const tok = this.expect('else');
    let value: Term | undefined;
    if (this.is(':=') || this.is('=')) {
      this.next();
      value = this.expr1();
    }
    const bodies = this.ruleBodies();
    const branch: NonNullable<Rule['else']> = { value, body: bodies?.[0] ?? [], loc: tok.loc };
    if (this.peekElse()) branch.else = this.elseChain();
    return branch;
  }

  private braceBody(): Body {
    return this.within(() => this.braceBodyAt());
  }

  private braceBodyAt(): Body {
    this.expect('{');
    const body = this.flat(() => this.bodyUntil('}'));
    this.expect('}');
    if (body.length === 0) this.fail(this.peek(), 'found empty body');
    return body;
  }

  bodyUntil(end: string): Body {
    const body: Body = [];
    for (;;) {
      while (this.peek().type === 'newline' || this.is(';')) this.next();
      const t = this.peek();
      if (end === 'eof' ? t.type === 'eof' : this.is(end)) return body;
      if (t.type === 'eof') this.fail(t, `unexpected eof token: expected ${end}`);
      body.push(this.expr());
      const after = this.peek();
      if (!(after.type === 'newline' || this.is(';') || after.type === 'eof' || this.is(end)))
        this.fail(after, `unexpected ${describe(after)} token`);
    }
  }

  expr(): Expr {
    const start = this.peek();
    let negated = false;
    let kind: ExprKind;
    if (this.accept('not')) {
      negated = true;
    }
    if (this.is('some') && !negated) {
      this.next();
      kind = this.someExpr();
    } else if (this.is('every') && !negated) {
      this.next();
      kind = this.everyExpr();
    } else {
      kind = this.infixExpr();
    }
    const withs: With[] = [];
    while (this.is('with')) {
      this.next();
      const target = this.term();
      this.expect('as');
      withs.push({ target, value: this.expr1() });
    }
    return { ...kind, negated, with: withs, loc: start.loc } as Expr;
  }

  private someExpr(): ExprKind {
    const terms = [this.exprRelation()];
    while (this.accept(',')) terms.push(this.exprRelation());
    if (this.accept('in')) {
      if (terms.length > 2) this.fail(this.peek(), 'unexpected , token');
      const collection = this.exprRelation();
      return terms.length === 2
        ? { type: 'somein', key: terms[0], value: terms[1]!, collection }
        : { type: 'somein', value: terms[0]!, collection };
    }
    for (const t of terms) if (t.type !== 'var') this.fail(this.peek(), 'expected var in some declaration');
    return { type: 'some', vars: terms };
  }

  private everyExpr(): ExprKind {
    const first = this.exprRelation();
    let key: Term | undefined;
    let value = first;
    if (this.accept(',')) {
      key = first;
      value = this.exprRelation();
    }
    this.expect('in');
    const domain = this.exprRelation();
    const body = this.braceBody();
    return { type: 'every', key, value, domain, body };
  }

  private infixExpr(): ExprKind {
    const left = this.exprMember();
    if (this.is(':=') || this.is('=')) {
      const op = this.next().text;
      const right = this.exprMember();
      return op === ':=' ? { type: 'assign', left, right } : { type: 'unify', left, right };
    }
    return { type: 'term', term: left };
  }

  /** Membership where a comma cannot separate list items: `k, v in xs` is `internal.member_3`. */
  private exprMember(): Term {
    const first = this.exprRelation();
    if (!this.is(',')) return this.membership(first);
    const tok = this.next();
    const value = this.exprRelation();
    this.expect('in');
    const collection = this.exprRelation();
    return this.membership({
      type: 'call',
      name: 'internal.member_3',
      args: [first, value, collection],
      loc: tok.loc,
    });
  }

  private membership(left: Term): Term {
    while (this.is('in')) {
      const tok = this.next();
      const right = this.exprRelation();
      left = { type: 'call', name: 'internal.member_2', args: [left, right], loc: tok.loc };
    }
    return left;
  }

  /** A term with membership but no `:=`/`=`: head values, keys, arguments. */
  private expr1(): Term {
    return this.membership(this.exprRelation());
  }

  private binary(next: () => Term, ops: Record<string, string>): Term {
    let left = next();
    // Each operator of a chain nests the tree one level deeper (`a + b + c` is `(a + b) + c`).
    const depth = this.depth;
    try {
      for (;;) {
        const t = this.peek();
        if (t.type !== 'punct' || !(t.text in ops)) return left;
        this.deeper(t);
        this.next();
        const right = next();
        left = { type: 'call', name: ops[t.text]!, args: [left, right], loc: t.loc };
      }
    } finally {
      this.depth = depth;
    }
  }

  private deeper(at: Token): void {
    if (++this.depth > MAX_NESTING) this.fail(at, `terms nested deeper than ${MAX_NESTING} levels`);
  }

  /** Runs `fn` one level deeper: a term, a body in braces, an `else` branch. */
  private within<T>(fn: () => T): T {
    this.deeper(this.peek());
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  private exprRelation(): Term {
    return this.binary(() => this.exprOr(), RELATIONS);
  }
  private exprOr(): Term {
    return this.binary(() => this.exprAnd(), { '|': 'or' });
  }
  private exprAnd(): Term {
    return this.binary(() => this.exprArith(), { '&': 'and' });
  }
  private exprArith(): Term {
    return this.binary(() => this.exprFactor(), ARITH);
  }
  private exprFactor(): Term {
    return this.binary(() => this.term(), FACTOR);
  }

  term(): Term {
    return this.within(() => this.termAt(this.peek()));
  }

  private termAt(t: Token): Term {
    let term: Term;
    if (t.type === 'number') {
      this.next();
      term = { type: 'scalar', value: numberLiteral(t.text), loc: t.loc };
    } else if (t.type === 'string') {
      this.next();
      term = { type: 'scalar', value: t.value!, loc: t.loc };
    } else if (this.is('-') && this.peek(1).type === 'number') {
      this.next();
      const n = this.next();
      const value = numberLiteral(n.text);
      term = { type: 'scalar', value: -value, loc: t.loc };
    } else if (this.is('-')) {
      // Unary minus on a non-literal: `-x` is `0 - x`.
      this.next();
      const operand = this.term();
      return {
        type: 'call',
        name: 'minus',
        args: [{ type: 'scalar', value: 0, loc: t.loc }, operand],
        loc: t.loc,
      };
    } else if (t.type === 'ident') {
      this.next();
      if (t.text === 'true' || t.text === 'false' || t.text === 'null') {
        const value: Value = t.text === 'null' ? null : t.text === 'true';
        term = { type: 'scalar', value, loc: t.loc };
      } else {
        // `contains` is a keyword in rule heads only: `contains(s, x)` is still the builtin.
        if (KEYWORDS.has(t.text) && !(t.text === 'contains' && this.is('(')))
          this.fail(t, `unexpected ${t.text} keyword`);
        // Every `_` is a distinct variable.
        const name = t.text === '_' ? `_$${this.wildcards++}` : t.text;
        term = { type: 'var', name, loc: t.loc };
        if (t.text === 'set' && this.is('(') && this.is(')', 1)) {
          this.next();
          this.next();
          return { type: 'set', items: [], loc: t.loc };
        }
      }
    } else if (this.is('(')) {
      this.next();
      term = this.nested(() => {
        const inner = this.exprMember();
        this.expect(')');
        return inner;
      });
    } else if (this.is('[')) {
      term = this.arrayTerm();
    } else if (this.is('{')) {
      term = this.braceTerm();
    } else {
      return this.fail(t, `unexpected ${describe(t)} token`);
    }
    return this.suffixes(term);
  }

  private suffixes(term: Term): Term {
    for (;;) {
      // A suffix must follow without whitespace-separated newline; `.` and `[` bind tightly.
      const t = this.tokens[this.pos]!;
      if (t.type === 'punct' && t.text === '.') {
        this.next();
        const name = this.ident();
        term = appendRef(term, { type: 'scalar', value: name.text, loc: name.loc });
      } else if (t.type === 'punct' && t.text === '[') {
        this.next();
        const key = this.nested(() => {
          const inner = this.expr1();
          this.expect(']');
          return inner;
        });
        term = appendRef(term, key);
      } else if (t.type === 'punct' && t.text === '(') {
        const name = refName(term);
        if (name === undefined) return term;
        this.next();
        const args = this.nested(() => {
          const list = this.termList(')');
          this.expect(')');
          return list;
        });
        term = { type: 'call', name, args, loc: term.loc };
      } else return term;
    }
  }

  private termList(end: string): Term[] {
    const items: Term[] = [];
    while (!this.is(end)) {
      items.push(this.expr1());
      if (!this.accept(',')) break;
    }
    return items;
  }

  private arrayTerm(): Term {
    const open = this.next();
    return this.nested(() => {
      if (this.is(']')) {
        this.next();
        return { type: 'array', items: [], loc: open.loc };
      }
      const first = this.exprNoOr();
      if (this.accept('|')) {
        const body = this.flat(() => this.bodyUntil(']'));
        this.expect(']');
        return { type: 'arraycomp', term: first, body, loc: open.loc };
      }
      const items = [first];
      while (this.accept(',')) {
        if (this.is(']')) break;
        items.push(this.expr1());
      }
      this.expect(']');
      return { type: 'array', items, loc: open.loc };
    });
  }

  private braceTerm(): Term {
    const open = this.next();
    return this.nested(() => {
      if (this.is('}')) {
        this.next();
        return { type: 'object', entries: [], loc: open.loc };
      }
      const first = this.exprNoOr();
      if (this.accept(':')) {
        const value = this.exprNoOr();
        if (this.accept('|')) {
          const body = this.flat(() => this.bodyUntil('}'));
          this.expect('}');
          return { type: 'objectcomp', key: first, value, body, loc: open.loc };
        }
        const entries: [Term, Term][] = [[first, value]];
        while (this.accept(',')) {
          if (this.is('}')) break;
          const k = this.expr1();
          this.expect(':');
          entries.push([k, this.expr1()]);
        }
        this.expect('}');
        return { type: 'object', entries, loc: open.loc };
      }
      if (this.accept('|')) {
        const body = this.flat(() => this.bodyUntil('}'));
        this.expect('}');
        return { type: 'setcomp', term: first, body, loc: open.loc };
      }
      const items = [first];
      while (this.accept(',')) {
        if (this.is('}')) break;
        items.push(this.expr1());
      }
      this.expect('}');
      return { type: 'set', items, loc: open.loc };
    });
  }

  /** A term whose `|` is a comprehension bar rather than set union. */
  private exprNoOr(): Term {
    let left = this.binary(() => this.exprAnd(), RELATIONS);
    while (this.is('in')) {
      const tok = this.next();
      left = { type: 'call', name: 'internal.member_2', args: [left, this.exprAnd()], loc: tok.loc };
    }
    return left;
  }
}

const FUTURE_KEYWORDS = ['contains', 'every', 'if', 'in'];

/**
 * OPA's checks of the `future.keywords…` and `rego.v1` imports, which change nothing in a v1
 * module (every keyword is on) but must name a keyword, and cannot be aliased.
 */
function refusedImport(path: Term, alias: string | undefined): string | undefined {
  const parts =
    path.type === 'var'
      ? [path.name]
      : path.type === 'ref' && path.head.type === 'var'
        ? [path.head.name, ...path.path.map((p) => (p.type === 'scalar' ? p.value : undefined))]
        : [];
  if (parts[0] === 'rego' && (parts.length !== 2 || parts[1] !== 'v1'))
    return `invalid import \`${parts.join('.')}\`, must be \`rego.v1\``;
  if (parts[0] !== 'future') return undefined;
  if (parts[1] !== 'keywords' || parts.length > 3) return 'invalid import, must be `future.keywords`';
  if (alias !== undefined) return '`future` imports cannot be aliased';
  if (parts.length === 3 && !FUTURE_KEYWORDS.includes(parts[2] as string))
    return `unexpected keyword, must be one of [${FUTURE_KEYWORDS.join(' ')}]`;
  return undefined;
}

/** Integers beyond 2^53 stay exact as BigInts; other numbers are doubles. */
function numberLiteral(text: string): number | bigint {
  const n = Number(text);
  return /^\d+$/.test(text) && !Number.isSafeInteger(n) ? BigInt(text) : n;
}

function appendRef(term: Term, key: Term): Term {
  if (term.type === 'ref') return { ...term, path: [...term.path, key] };
  return { type: 'ref', head: term, path: [key], loc: term.loc };
}

/** The dotted name of a ref usable as a function name (`count`, `array.concat`, `data.x.f`). */
function refName(term: Term): string | undefined {
  if (term.type === 'var') return term.name;
  if (term.type !== 'ref' || term.head.type !== 'var') return undefined;
  const parts = [term.head.name];
  for (const p of term.path) {
    if (p.type !== 'scalar' || typeof p.value !== 'string') return undefined;
    parts.push(p.value);
  }
  return parts.join('.');
}

function describe(t: Token): string {
  if (t.type === 'eof') return 'eof';
  if (t.type === 'newline') return 'newline';
  if (t.type === 'string') return 'string';
  if (t.type === 'number') return 'number';
  return t.type === 'ident' ? (KEYWORDS.has(t.text) ? `${t.text} keyword` : 'ident') : t.text;
}

export type { Location };
