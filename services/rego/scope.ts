/**
 * Nested scopes (comprehensions, `every`): the variables they declare are renamed to fresh names,
 * so that a declaration inside never binds, or is bound by, a variable of the enclosing body.
 */
import type { Body, Expr, Term } from './ast.ts';

/** Names a body declares with `some`, `:=` or `some … in`, outside nested scopes. */
export function declaredIn(body: Body): Set<string> {
  const out = new Set<string>();
  const add = (t: Term) => {
    if (t.type === 'var') out.add(t.name);
    else if (t.type === 'array') t.items.forEach(add);
    else if (t.type === 'object') for (const [, v] of t.entries) add(v);
  };
  for (const e of body) {
    if (e.type === 'some') e.vars.forEach(add);
    else if (e.type === 'assign') add(e.left);
    else if (e.type === 'somein') {
      if (e.key) add(e.key);
      add(e.value);
    }
  }
  return out;
}

export function renameTerm(t: Term, names: Map<string, string>): Term {
  const r = (x: Term) => renameTerm(x, names);
  switch (t.type) {
    case 'scalar':
      return t;
    case 'var': {
      const name = names.get(t.name);
      return name ? { ...t, name } : t;
    }
    case 'ref':
      return { ...t, head: r(t.head), path: t.path.map(r) };
    case 'array':
    case 'set':
      return { ...t, items: t.items.map(r) };
    case 'object':
      return { ...t, entries: t.entries.map(([k, v]) => [r(k), r(v)]) };
    case 'call':
      return { ...t, args: t.args.map(r) };
    case 'arraycomp':
    case 'setcomp':
      return { ...t, term: r(t.term), body: renameBody(t.body, names) };
    case 'objectcomp':
      return { ...t, key: r(t.key), value: r(t.value), body: renameBody(t.body, names) };
  }
}

export function renameBody(body: Body, names: Map<string, string>): Body {
  return body.map((e) => renameExpr(e, names));
}

function renameExpr(e: Expr, names: Map<string, string>): Expr {
  const r = (x: Term) => renameTerm(x, names);
  const withs = e.with.map((w) => ({ target: w.target, value: r(w.value) }));
  switch (e.type) {
    case 'term':
      return { ...e, term: r(e.term), with: withs };
    case 'unify':
    case 'assign':
      return { ...e, left: r(e.left), right: r(e.right), with: withs };
    case 'some':
      return { ...e, vars: e.vars.map(r), with: withs };
    case 'somein':
      return { ...e, key: e.key && r(e.key), value: r(e.value), collection: r(e.collection), with: withs };
    case 'every':
      return {
        ...e,
        key: e.key && r(e.key),
        value: r(e.value),
        domain: r(e.domain),
        body: renameBody(e.body, names),
        with: withs,
      };
  }
}
