/**
 * Terms compiled once to closures that compute their single value directly, without the
 * continuation machinery: constants, `input` and bound-variable refs with ground paths, and
 * builtin calls over such terms. They are most of what authorization policies evaluate
 * (`input.method == "GET"`, `"admin" in input.user.groups`). A term that needs the general
 * evaluator at run time (an unbound variable to enumerate, a replaced function) gives `FALLBACK`.
 */
import type { Term } from './ast.ts';
import { PRINT } from './builtins/index.ts';
import type { Builtin, BuiltinTable } from './builtins/types.ts';
import { lookup } from './documents.ts';
import type { Location } from './errors.ts';
import type { Env } from './evaluator.ts';
import { constantValue } from './terms.ts';
import type { Value } from './values.ts';

export const FALLBACK: unique symbol = Symbol('fallback');
export type DirectResult = Value | undefined | typeof FALLBACK;

/** What a direct term reads from the evaluation. */
export interface DirectHost {
  currentInput(): Value | undefined;
  /** The document at a ground `data` path when a rule set alone defines it, else FALLBACK. */
  ruleDocument(path: Value[]): DirectResult;
  /** A builtin's result; FALLBACK when `with` replaced it in this evaluation. */
  callBuiltin(name: string, builtin: Builtin, args: Value[], loc: Location): DirectResult;
}

export type Direct = (host: DirectHost, env: Env) => DirectResult;

const compiled = new WeakMap<Term, Direct | null>();

/**
 * The direct closure of a term, or null when it always needs the general evaluator. Terms belong
 * to one plan, so `builtins` (that plan's table) is the same at every call for a term.
 */
export function directOf(t: Term, builtins: BuiltinTable): Direct | null {
  let d = compiled.get(t);
  if (d === undefined) {
    d = compileDirect(t, builtins);
    compiled.set(t, d);
  }
  return d;
}

function compileDirect(t: Term, builtins: BuiltinTable): Direct | null {
  const constant = constantValue(t);
  if (constant !== undefined) return () => constant;
  switch (t.type) {
    case 'var': {
      if (t.name === 'input') return (host) => host.currentInput();
      if (t.name === 'data') return null;
      const name = t.name;
      return (_, env) => {
        const v = env.get(name);
        return v === undefined ? FALLBACK : v;
      };
    }
    case 'ref':
      return compileRef(t, builtins);
    case 'call':
      return compileCall(t, builtins);
    default:
      return null;
  }
}

function compileRef(t: Extract<Term, { type: 'ref' }>, builtins: BuiltinTable): Direct | null {
  if (t.head.type !== 'var') return null;
  const parts = t.path.map((p) => directOf(p, builtins));
  if (parts.some((p) => p === null)) return null;
  const keys = parts as Direct[];
  if (t.head.name === 'data') return compileDataRef(keys);
  const head = directOf(t.head, builtins);
  if (!head) return null;
  return (host, env) => {
    let v = head(host, env);
    for (let i = 0; i < keys.length && v !== undefined && v !== FALLBACK; i++) {
      const key = keys[i]!(host, env);
      // A key variable not bound yet is enumerated by the general evaluator.
      if (key === FALLBACK) return FALLBACK;
      v = key === undefined ? undefined : lookup(v, key);
    }
    return v;
  };
}

/** `data.a.b…` with keys known now: a rule's value, looked up by the host. */
function compileDataRef(keys: Direct[]): Direct {
  return (host, env) => {
    const path: Value[] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!(host, env);
      if (key === FALLBACK || key === undefined) return key;
      path[i] = key;
    }
    return host.ruleDocument(path);
  };
}

function compileCall(t: Extract<Term, { type: 'call' }>, builtins: BuiltinTable): Direct | null {
  const builtin = builtins[t.name] as Builtin | undefined;
  if (!builtin || builtin.all || t.name === PRINT || t.args.length !== builtin.arity) return null;
  const args = t.args.map((a) => directOf(a, builtins));
  if (args.some((a) => a === null)) return null;
  const argFns = args as Direct[];
  const { name, loc } = t;
  return (host, env) => {
    const values: Value[] = new Array(argFns.length);
    for (let i = 0; i < argFns.length; i++) {
      const v = argFns[i]!(host, env);
      if (v === undefined || v === FALLBACK) return v;
      values[i] = v;
    }
    return host.callBuiltin(name, builtin, values, loc);
  };
}
