/**
 * Asynchronous builtins (a database lookup, a JWT signature check) in a synchronous evaluator.
 * Evaluation is pure, so `evalAsync` runs the synchronous evaluation in rounds over a memo of
 * settled calls: a call missing from the memo is recorded as pending and is undefined for the rest
 * of its round, so that one round finds every call that does not depend on another (one per
 * element of a comprehension, say). The pending calls then run concurrently, join the memo, and
 * the evaluation runs again; the first round without a pending call is the answer. Evaluations
 * that call no asynchronous builtin run once, with no cost added.
 */
import { type Builtin, type BuiltinContext, newBuiltinContext } from './builtins/types.ts';
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
  // Created on the first asynchronous call: most evaluations make none.
  private settled: Map<string, Settled> | undefined;
  private pending: Map<string, Pending> | undefined;

  /** The settled result of `name(args)` (a settled error is thrown), or undefined and pending. */
  result(name: string, args: Value[], start: Start): Value | undefined {
    const key = `${name}${keyOf(args)}`;
    const done = this.settled?.get(key);
    if (!done) {
      this.pending ??= new Map();
      this.pending.set(key, { name, start });
      return undefined;
    }
    if ('error' in done) throw done.error;
    return done.value;
  }

  get hasPending(): boolean {
    return this.pending !== undefined && this.pending.size > 0;
  }

  /** Runs the pending calls concurrently and records their results or errors. */
  async settle(): Promise<void> {
    const calls = [...(this.pending ?? [])];
    this.pending = undefined;
    this.settled ??= new Map();
    const settled = this.settled;
    await Promise.all(
      calls.map(async ([key, { start }]) => {
        try {
          settled.set(key, { value: await start() });
        } catch (error) {
          settled.set(key, { error });
        }
      }),
    );
  }

  /** The names of the builtins with pending calls. */
  pendingNames(): string[] {
    return [...new Set([...(this.pending?.values() ?? [])].map((p) => p.name))];
  }
}

/**
 * A builtin computed by a promise. Its rejection is the builtin's error (throw a BuiltinError for
 * OPA's builtin-error semantics). Outside `evalAsync`/`partialAsync` calling it is an error.
 */
export function asyncBuiltin(
  arity: number,
  run: (args: Value[], name: string, ctx: BuiltinContext) => Promise<Value | undefined>,
): Builtin {
  return {
    arity,
    fn: (args, name, ctx) => {
      if (!ctx.calls)
        throw new RegoError(
          'eval_builtin_error',
          `${name} is an asynchronous builtin: evaluate with evalAsync or partialAsync`,
        );
      return ctx.calls.result(name, args, () => run(args, name, ctx));
    },
  };
}

/**
 * Runs a synchronous evaluation in rounds until its asynchronous calls are all settled. The first
 * round runs before returning: an evaluation that calls no asynchronous builtin costs one
 * evaluation and a settled promise.
 */
export function inRounds<T>(evaluate: (ctx: BuiltinContext) => T): Promise<T> {
  const calls = new AsyncCalls();
  const ctx = newBuiltinContext(calls);
  const first = attempt(evaluate, ctx, calls);
  return first.done ? first.outcome : laterRounds(evaluate, ctx, calls);
}

type Attempt<T> = { done: true; outcome: Promise<T> } | { done: false };

/** One round: its outcome, unless it left calls pending (then its result or error is a placeholder's). */
function attempt<T>(
  evaluate: (ctx: BuiltinContext) => T,
  ctx: BuiltinContext,
  calls: AsyncCalls,
): Attempt<T> {
  try {
    const result = evaluate(ctx);
    return calls.hasPending ? { done: false } : { done: true, outcome: Promise.resolve(result) };
  } catch (err) {
    return calls.hasPending ? { done: false } : { done: true, outcome: Promise.reject(err) };
  }
}

async function laterRounds<T>(
  evaluate: (ctx: BuiltinContext) => T,
  ctx: BuiltinContext,
  calls: AsyncCalls,
): Promise<T> {
  for (let round = 2; ; round++) {
    await calls.settle();
    const next = attempt(evaluate, ctx, calls);
    if (next.done) return next.outcome;
    if (round === MAX_ASYNC_ROUNDS)
      throw new RegoError(
        'eval_builtin_error',
        `asynchronous builtin calls still pending after ${MAX_ASYNC_ROUNDS} rounds (each depending on the previous round's results): ${calls.pendingNames().join(', ')}`,
      );
  }
}
