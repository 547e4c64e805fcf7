/**
 * Asynchronous builtins (a database lookup, a JWT signature check) in a synchronous evaluator.
 * Evaluation is pure, so `evalAsync` runs the synchronous evaluation in rounds over a memo of
 * settled calls: a call missing from the memo is recorded as pending and is undefined for the rest
 * of its round, so that one round finds every call that does not depend on another (one per
 * element of a comprehension, say). The pending calls then run concurrently, join the memo, and
 * the evaluation runs again; the first round without a pending call is the answer. Evaluations
 * that call no asynchronous builtin run once, with no cost added.
 */
import type { Builtin, BuiltinContext } from './builtins/types.ts';
import { RegoError } from './errors.ts';
import { keyOf, type Value } from './values.ts';

/** Rounds after which an evaluation gives up: each round's calls need the previous round's results. */
export const MAX_ASYNC_ROUNDS = 32;

type Start = () => Promise<Value | undefined>;
interface Pending {
  name: string;
  start: Start;
}
type Settled = { value: Value | undefined } | { error: unknown };

/** One evaluation's asynchronous calls: settled results by call, and those still to run. */
export class AsyncCalls {
  private readonly settled = new Map<string, Settled>();
  private readonly pending = new Map<string, Pending>();

  /** The settled result of `name(args)` (a settled error is thrown), or undefined and pending. */
  result(name: string, args: Value[], start: Start): Value | undefined {
    const key = `${name}${keyOf(args)}`;
    const done = this.settled.get(key);
    if (!done) {
      this.pending.set(key, { name, start });
      return undefined;
    }
    if ('error' in done) throw done.error;
    return done.value;
  }

  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  /** Runs the pending calls concurrently and records their results or errors. */
  async settle(): Promise<void> {
    const calls = [...this.pending];
    this.pending.clear();
    await Promise.all(
      calls.map(async ([key, { start }]) => {
        try {
          this.settled.set(key, { value: await start() });
        } catch (error) {
          this.settled.set(key, { error });
        }
      }),
    );
  }

  /** The names of the builtins with pending calls. */
  pendingNames(): string[] {
    return [...new Set([...this.pending.values()].map((p) => p.name))];
  }
}

/**
 * A builtin computed by a promise. Its rejection is the builtin's error (throw a BuiltinError for
 * OPA's builtin-error semantics). Outside `evalAsync`/`partialAsync` calling it is an error.
 */
export function asyncBuiltin(
  arity: number,
  run: (args: Value[], name: string) => Promise<Value | undefined>,
): Builtin {
  return {
    arity,
    fn: (args, name, ctx) => {
      if (!ctx.calls)
        throw new RegoError(
          'eval_builtin_error',
          `${name} is an asynchronous builtin: evaluate with evalAsync or partialAsync`,
        );
      return ctx.calls.result(name, args, () => run(args, name));
    },
  };
}

/** Runs a synchronous evaluation in rounds until its asynchronous calls are all settled. */
export async function inRounds<T>(evaluate: (ctx: BuiltinContext) => T): Promise<T> {
  const calls = new AsyncCalls();
  const ctx: BuiltinContext = { nowNs: Date.now() * 1e6, calls };
  for (let round = 1; ; round++) {
    try {
      const result = evaluate(ctx);
      if (!calls.hasPending) return result;
    } catch (err) {
      // A round with pending calls ran on placeholders: its errors may not be real.
      if (!calls.hasPending) throw err;
    }
    if (round === MAX_ASYNC_ROUNDS)
      throw new RegoError(
        'eval_builtin_error',
        `asynchronous builtin calls still pending after ${MAX_ASYNC_ROUNDS} rounds (each depending on the previous round's results): ${calls.pendingNames().join(', ')}`,
      );
    await calls.settle();
  }
}
