/**
 * Compiles parsed modules into a rule tree: names are resolved (rule names of the package and
 * imports become `data` refs), body expressions are ordered so each variable is bound before
 * use (OPA's safety check), and rules are grouped by path.
 */
import type { Body, Expr, Module, Rule, RuleKind, Term } from './ast.ts';
import { PRINT } from './builtins/index.ts';
import type { BuiltinTable } from './builtins/types.ts';
import { type Location, RegoError } from './errors.ts';
import { checkRecursion } from './recursion.ts';
import { buildRuleIndex, type RuleIndex } from './rule-index.ts';
import { type ArityOf, orderBody } from './safety.ts';
import { declaredIn, renameBody, renameTerm } from './scope.ts';
import { collectVars, refPath } from './terms.ts';

export interface RuleSet {
  path: string[];
  kind: RuleKind;
  rules: Rule[];
  defaultRule?: Rule;
  arity?: number;
  /** Set for rule sets whose rules are guarded on an input path (see rule-index.ts). */
  index?: RuleIndex;
}

export interface RuleNode {
  children: Map<string, RuleNode>;
  ruleSet?: RuleSet;
}

export interface CompiledPlan {
  root: RuleNode;
  arityOf: ArityOf;
  /** The standard builtins and the host's. */
  builtins: BuiltinTable;
}

const ROOTS = new Set(['data', 'input']);

export function compileModules(modules: Module[], builtins: BuiltinTable): CompiledPlan {
  const root: RuleNode = { children: new Map() };
  const functions = new Map<string, number>();
  for (const mod of modules) {
    for (const rule of mod.rules) {
      if (rule.head.args)
        functions.set(['data', ...mod.package, ...rule.head.path].join('.'), rule.head.args.length);
    }
  }
  const arityOf: ArityOf = (name) => functions.get(name) ?? builtins[name]?.arity;
  // A package's rules are known by name in every module of that package, as in OPA.
  const packageNames = new Map<string, Set<string>>();
  for (const mod of modules) {
    const key = mod.package.join('.');
    const names = packageNames.get(key) ?? new Set<string>();
    for (const rule of mod.rules) names.add(rule.head.path[0]!);
    packageNames.set(key, names);
  }
  for (const mod of modules) {
    nodeAt(root, mod.package);
    const names = packageNames.get(mod.package.join('.'))!;
    const resolver = new Resolver(mod.package, names, importAliases(mod), arityOf);
    for (const rule of mod.rules) addRule(root, mod.package, resolver.rule(rule));
  }
  checkRecursion(root);
  indexRules(root);
  return { root, arityOf, builtins };
}

function indexRules(node: RuleNode): void {
  const rs = node.ruleSet;
  if (rs && rs.kind !== 'function' && rs.kind !== 'general') rs.index = buildRuleIndex(rs.rules);
  for (const child of node.children.values()) indexRules(child);
}

function importAliases(mod: Module): Map<string, Term> {
  const aliases = new Map<string, Term>();
  for (const imp of mod.imports) {
    const path = imp.path;
    if (path.type !== 'ref' || path.head.type !== 'var') continue;
    const root = path.head.name;
    if (root !== 'data' && root !== 'input') continue;
    const last = path.path[path.path.length - 1];
    const name = imp.alias ?? (last?.type === 'scalar' ? String(last.value) : root);
    aliases.set(name, path);
  }
  return aliases;
}

function nodeAt(root: RuleNode, path: string[]): RuleNode {
  let node = root;
  for (const part of path) {
    let child = node.children.get(part);
    if (!child) {
      child = { children: new Map() };
      node.children.set(part, child);
    }
    node = child;
  }
  return node;
}

function addRule(root: RuleNode, pkg: string[], rule: Rule): void {
  const path = [...pkg, ...rule.head.path];
  const node = nodeAt(root, path);
  const arity = rule.head.args?.length;
  if (!node.ruleSet) node.ruleSet = { path: ['data', ...path], kind: rule.kind, rules: [], arity };
  const set = node.ruleSet;
  if (set.kind !== rule.kind && !(rule.isDefault && set.kind === 'complete')) {
    throw new RegoError('rego_type_error', `conflicting rules data.${path.join('.')} found`, rule.loc);
  }
  if (rule.isDefault) {
    if (set.defaultRule)
      throw new RegoError('rego_type_error', `multiple default rules data.${path.join('.')} found`, rule.loc);
    set.defaultRule = rule;
    if (rule.head.args) set.kind = 'function';
  } else {
    set.rules.push(rule);
  }
}

/** Rewrites the names of one rule or query: locals stay vars, rule names and imports become refs. */
export class Resolver {
  private fresh = 0;
  constructor(
    private readonly pkg: string[],
    private readonly ruleNames: Set<string>,
    private readonly aliases: Map<string, Term>,
    private readonly arityOf: ArityOf,
  ) {}

  rule(rule: Rule): Rule {
    const locals = new Set<string>();
    for (const arg of rule.head.args ?? []) collectVars(arg, locals);
    const body = this.body(rule.body, locals);
    const head = {
      ...rule.head,
      key: rule.head.key && this.term(rule.head.key, locals),
      value: rule.head.value && this.term(rule.head.value, locals),
      args: rule.head.args?.map((a) => this.term(a, locals)),
      tail: rule.head.tail?.map((t) => this.term(t, locals)),
    };
    const headVars = new Set<string>();
    for (const t of [head.key, head.value, ...(head.args ?? []), ...(head.tail ?? [])])
      if (t) collectVars(t, headVars);
    const ordered = orderBody(
      body,
      new Set(head.args ? argVars(head.args) : []),
      headVars,
      rule.loc,
      this.arityOf,
    );
    let elseBranch = rule.else;
    const resolveElse = (e: NonNullable<Rule['else']>): NonNullable<Rule['else']> => {
      const l = new Set(locals);
      const b = this.body(e.body, l);
      const value = e.value && this.term(e.value, l);
      const vars = new Set<string>();
      if (value) collectVars(value, vars);
      return {
        value,
        body: orderBody(b, new Set(head.args ? argVars(head.args) : []), vars, e.loc, this.arityOf),
        loc: e.loc,
        else: e.else && resolveElse(e.else),
      };
    };
    if (elseBranch) elseBranch = resolveElse(elseBranch);
    return { ...rule, head, body: ordered, else: elseBranch };
  }

  query(body: Body): Body {
    return orderBody(this.body(body, new Set()), new Set(), new Set(), body[0]?.loc, this.arityOf);
  }

  /** Names declared in a body (`some`, `:=`, `some … in`) shadow rule names everywhere in it. */
  private body(body: Body, outer: Set<string>): Body {
    checkAssignments(body);
    const locals = new Set(outer);
    bodyLocals(body, locals);
    return body.map((e) => this.expr(e, locals));
  }

  private expr(e: Expr, locals: Set<string>): Expr {
    const withs = e.with.map((w) => ({
      target: this.withTarget(w.target),
      value: this.term(w.value, locals),
    }));
    const t = (x: Term) => this.term(x, locals);
    switch (e.type) {
      case 'term':
        return { ...e, term: t(e.term), with: withs };
      case 'unify':
      case 'assign':
        return { ...e, left: t(e.left), right: t(e.right), with: withs };
      case 'some':
        return { ...e, with: withs };
      case 'somein':
        return { ...e, key: e.key && t(e.key), value: t(e.value), collection: t(e.collection), with: withs };
      case 'every': {
        // The domain is evaluated outside; the variables and the body's declarations are local.
        const domain = t(e.domain);
        const declared = declaredIn(e.body);
        for (const x of [e.key, e.value]) if (x) collectVars(x, declared);
        const names = this.freshNames(declared);
        const key = e.key && renameTerm(e.key, names);
        const value = renameTerm(e.value, names);
        const bound = new Set<string>();
        if (key) collectVars(key, bound);
        collectVars(value, bound);
        const body = this.body(renameBody(e.body, names), new Set([...locals, ...bound]));
        return {
          ...e,
          key,
          value,
          domain,
          body: orderBody(body, bound, new Set(), e.loc, this.arityOf, true),
          with: withs,
        };
      }
    }
  }

  private freshNames(declared: Set<string>): Map<string, string> {
    return new Map([...declared].filter((n) => !n.startsWith('_$')).map((n) => [n, `${n}$${this.fresh++}`]));
  }

  /** A `with` target: a ground ref into `input` or `data`, or the name of a function. */
  private withTarget(target: Term): Term {
    const resolved = this.term(target, new Set());
    const path = refPath(resolved);
    const root = path?.[0];
    const isFunction = path !== undefined && this.arityOf(path.join('.')) !== undefined;
    if (!path || (root !== 'input' && root !== 'data' && !isFunction)) {
      throw new RegoError(
        'rego_compile_error',
        'with keyword target must reference existing input, data, or a function',
        target.loc,
      );
    }
    return resolved;
  }

  term(t: Term, locals: Set<string>): Term {
    switch (t.type) {
      case 'scalar':
        return t;
      case 'var':
        return this.varTerm(t, locals);
      case 'ref': {
        const head = this.term(t.head, locals);
        const path = t.path.map((p) => this.term(p, locals));
        return head.type === 'ref'
          ? { ...t, head: head.head, path: [...head.path, ...path] }
          : { ...t, head, path };
      }
      case 'array':
        return { ...t, items: t.items.map((i) => this.term(i, locals)) };
      case 'set':
        return { ...t, items: t.items.map((i) => this.term(i, locals)) };
      case 'object':
        return { ...t, entries: t.entries.map(([k, v]) => [this.term(k, locals), this.term(v, locals)]) };
      case 'call': {
        const name = this.callName(t.name, locals, t.loc);
        this.checkArity(name, t.args.length, t.loc);
        return { ...t, name, args: t.args.map((a) => this.term(a, locals)) };
      }
      case 'arraycomp':
      case 'setcomp': {
        const c = renameTerm(t, this.freshNames(declaredIn(t.body))) as typeof t;
        const inner = new Set(locals);
        const body = this.body(c.body, inner);
        return {
          ...c,
          term: this.term(c.term, bodyLocals(c.body, inner)),
          body: this.orderNested(body, t.loc),
        };
      }
      case 'objectcomp': {
        const c = renameTerm(t, this.freshNames(declaredIn(t.body))) as typeof t;
        const inner = bodyLocals(c.body, new Set(locals));
        const body = this.body(c.body, locals);
        return {
          ...c,
          key: this.term(c.key, inner),
          value: this.term(c.value, inner),
          body: this.orderNested(body, t.loc),
        };
      }
    }
  }

  private orderNested(body: Body, loc: Location): Body {
    return orderBody(body, new Set(), new Set(), loc, this.arityOf, true);
  }

  private varTerm(t: Extract<Term, { type: 'var' }>, locals: Set<string>): Term {
    if (locals.has(t.name) || ROOTS.has(t.name)) return t;
    const alias = this.aliases.get(t.name);
    if (alias) return alias;
    if (this.ruleNames.has(t.name)) return this.dataRef([...this.pkg, t.name], t.loc);
    return t;
  }

  private callName(name: string, locals: Set<string>, loc: Location): string {
    const [first, ...rest] = name.split('.');
    if (locals.has(first!)) return name;
    const alias = this.aliases.get(first!);
    if (alias) return [...(refPath(alias) ?? []), ...rest].join('.');
    if (this.ruleNames.has(first!)) return ['data', ...this.pkg, name].join('.');
    if (this.arityOf(name) === undefined && !name.startsWith('data.') && name !== PRINT) {
      throw new RegoError('rego_type_error', `undefined function ${name}`, loc);
    }
    return name;
  }

  /** A call passes the function's arguments, plus at most one output argument. */
  private checkArity(name: string, given: number, loc: Location): void {
    const arity = this.arityOf(name);
    if (arity === undefined) return;
    if (given < arity) throw new RegoError('rego_type_error', `${name}: too few arguments`, loc);
    if (given > arity + 1) throw new RegoError('rego_type_error', `${name}: too many arguments`, loc);
  }

  private dataRef(path: string[], loc: Location): Term {
    return {
      type: 'ref',
      head: { type: 'var', name: 'data', loc },
      path: path.map((p) => ({ type: 'scalar', value: p, loc })),
      loc,
    };
  }
}

/** OPA's rule for `:=`: a variable is assigned once, and not after the body used it. */
function checkAssignments(body: Body): void {
  const assigned = new Set<string>();
  const seen = new Set<string>();
  for (const e of body) {
    if (e.type === 'assign') {
      const lhs = new Set<string>();
      collectVars(e.left, lhs);
      for (const v of lhs) {
        if (v.startsWith('_$')) continue;
        if (assigned.has(v)) throw new RegoError('rego_compile_error', `var ${v} assigned above`, e.loc);
        if (seen.has(v)) throw new RegoError('rego_compile_error', `var ${v} referenced above`, e.loc);
        assigned.add(v);
      }
      collectVars(e.right, seen);
    } else {
      for (const t of exprOperands(e)) collectVars(t, seen);
    }
  }
}

function exprOperands(e: Expr): Term[] {
  switch (e.type) {
    case 'term':
      return [e.term];
    case 'unify':
    case 'assign':
      return [e.left, e.right];
    case 'some':
      return e.vars;
    case 'somein':
      return [...(e.key ? [e.key] : []), e.value, e.collection];
    case 'every':
      return [e.domain];
  }
}

/** `locals` extended with the names `body` declares. */
function bodyLocals(body: Body, locals: Set<string>): Set<string> {
  for (const name of declaredIn(body)) locals.add(name);
  return locals;
}

function argVars(args: Term[]): string[] {
  const s = new Set<string>();
  for (const a of args) collectVars(a, s);
  return [...s];
}
