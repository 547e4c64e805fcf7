import { Hono } from 'hono';
import { errorBody, type PackageInfo } from '../kit/index.ts';

export interface CheckUpOptions {
  readonly info: PackageInfo;
  /** Each dependency by name: resolves when it answers, rejects (or times out) when not. */
  readonly dependencies: Readonly<Record<string, () => Promise<unknown>>>;
}

/**
 * `GET /-/check-up` (platform.md): every dependency asked at once; 200 `{name, version, status:
 * "OK", checks}` when all answer, else 503 with `status: "KO"` and which ones did not.
 */
export function checkUpRoute({ info, dependencies }: CheckUpOptions): Hono {
  return new Hono().get('/-/check-up', async (c) => {
    const names = Object.keys(dependencies);
    const answers = await Promise.all(
      names.map((name) =>
        Promise.resolve()
          .then(dependencies[name])
          .then(
            () => 'OK' as const,
            () => 'KO' as const,
          ),
      ),
    );
    const checks = Object.fromEntries(names.map((name, i) => [name, answers[i]]));
    const down = names.filter((name) => checks[name] === 'KO');
    if (down.length === 0) return c.json({ ...info, status: 'OK', checks });
    return c.json(
      { ...errorBody(503, `not answering: ${down.join(', ')}`), ...info, status: 'KO', checks },
      503,
    );
  });
}
