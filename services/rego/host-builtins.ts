/**
 * Builtins given by the program that compiles a policy (`compile(modules, { builtins })`), such as
 * the sidecar's database lookups: they take and return JSON, and join the standard builtins.
 */
import { asyncBuiltin } from './async-calls.ts';
import { BUILTINS, PRINT } from './builtins/index.ts';
import type { Builtin, BuiltinTable } from './builtins/types.ts';
import { type BuiltinError, builtinError, RegoError } from './errors.ts';
import { fromJSON, toJSON, type Value } from './values.ts';

export interface HostBuiltin {
  /** Number of arguments. */
  arity: number;
  /** Synchronous builtin: JSON arguments in, a JSON value out (undefined = the call is undefined); a throw is a builtin error. */
  call?: (args: unknown[]) => unknown;
  /** Asynchronous builtin (e.g. a database lookup): only evalAsync/partialAsync can run it. */
  callAsync?: (args: unknown[]) => Promise<unknown>;
}

/** A builtin name as Rego calls it: identifiers joined by dots (`rond.find_one`). */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** The standard builtins with the host's added; a bad definition is a `rego_compile_error`. */
export function withHostBuiltins(host: Record<string, HostBuiltin> | undefined): BuiltinTable {
  if (!host || Object.keys(host).length === 0) return BUILTINS;
  const table: BuiltinTable = { ...BUILTINS };
  for (const [name, builtin] of Object.entries(host)) {
    checkDefinition(name, builtin);
    table[name] = hostBuiltin(builtin);
  }
  return table;
}

function checkDefinition(name: string, builtin: HostBuiltin): void {
  const invalid = (rule: string) =>
    new RegoError('rego_compile_error', `host builtin ${JSON.stringify(name)}: ${rule}`);
  if (!NAME.test(name) || name.startsWith('data.') || name.startsWith('input.'))
    throw invalid('the name must be identifiers joined by dots, not under data or input');
  if (name in BUILTINS || name === PRINT) throw invalid('the name is a standard builtin');
  if (!Number.isInteger(builtin.arity) || builtin.arity < 0)
    throw invalid(`arity must be a non-negative integer, got ${builtin.arity}`);
  if ((builtin.call === undefined) === (builtin.callAsync === undefined))
    throw invalid('give exactly one of call and callAsync');
}

function hostBuiltin({ arity, call, callAsync }: HostBuiltin): Builtin {
  if (call) {
    const fn: Builtin['fn'] = (args, name) => {
      try {
        return resultOf(call(args.map((a) => toJSON(a))));
      } catch (err) {
        throw failure(name, err);
      }
    };
    return { arity, fn };
  }
  return asyncBuiltin(arity, async (args, name) => {
    try {
      return resultOf(await callAsync!(args.map((a) => toJSON(a))));
    } catch (err) {
      throw failure(name, err);
    }
  });
}

function resultOf(json: unknown): Value | undefined {
  return json === undefined ? undefined : fromJSON(json);
}

/** A host's throw is a builtin error of the call (undefined unless strict builtin errors). */
function failure(name: string, err: unknown): BuiltinError {
  return builtinError(`${name}: ${err instanceof Error ? err.message : String(err)}`);
}
