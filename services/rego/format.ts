/** Rego source text of terms and expressions, for residual queries and error messages. */
import type { Expr, Term } from './ast.ts';
import { formatValue } from './values.ts';

function formatTerm(t: Term): string {
  switch (t.type) {
    case 'scalar':
      return formatValue(t.value);
    case 'var':
      return t.name.startsWith('_$') ? '_' : t.name;
    case 'ref':
      return (
        formatTerm(t.head) +
        t.path
          .map((p) =>
            p.type === 'scalar' && typeof p.value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(p.value)
              ? `.${p.value}`
              : `[${formatTerm(p)}]`,
          )
          .join('')
      );
    case 'call':
      return `${t.name}(${t.args.map(formatTerm).join(', ')})`;
    case 'array':
      return `[${t.items.map(formatTerm).join(', ')}]`;
    case 'set':
      return t.items.length === 0 ? 'set()' : `{${t.items.map(formatTerm).join(', ')}}`;
    case 'object':
      return `{${t.entries.map(([k, v]) => `${formatTerm(k)}: ${formatTerm(v)}`).join(', ')}}`;
    case 'arraycomp':
      return `[${formatTerm(t.term)} | …]`;
    case 'setcomp':
      return `{${formatTerm(t.term)} | …}`;
    case 'objectcomp':
      return `{${formatTerm(t.key)}: ${formatTerm(t.value)} | …}`;
  }
}

export function formatExpr(e: Expr): string {
  const prefix = e.negated ? 'not ' : '';
  switch (e.type) {
    case 'term':
      return prefix + formatTerm(e.term);
    case 'unify':
      return `${prefix}${formatTerm(e.left)} = ${formatTerm(e.right)}`;
    case 'assign':
      return `${prefix}${formatTerm(e.left)} := ${formatTerm(e.right)}`;
    case 'some':
      return `some ${e.vars.map(formatTerm).join(', ')}`;
    case 'somein':
      return `some ${e.key ? `${formatTerm(e.key)}, ` : ''}${formatTerm(e.value)} in ${formatTerm(e.collection)}`;
    case 'every':
      return `every ${e.key ? `${formatTerm(e.key)}, ` : ''}${formatTerm(e.value)} in ${formatTerm(e.domain)} { … }`;
  }
}
