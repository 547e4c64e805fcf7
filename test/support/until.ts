/**
 * A bounded wait for a condition: `check` is asked every 250 ms (a throw counts as not yet) until
 * it holds, or the wait fails after `timeoutMs` naming `what` and the `detail` of that moment.
 *
 * @example
 *   await until('the engine is ready', async () => (await fetch(url)).status === 200, 60_000);
 */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  detail: () => string = () => '',
): Promise<void> {
  for (
    const deadline = Date.now() + timeoutMs;
    !(await Promise.resolve()
      .then(check)
      .catch(() => false));
  ) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
