/**
 * Progress of a long run on stderr (records done, rate, ETA when the total is known), only when
 * stderr is a terminal, at most every 500 ms; `done()` clears the line. Silent in pipes and CI.
 */
export function progressReporter(
  unit: string,
  fixedTotal?: number,
  stream: NodeJS.WriteStream = process.stderr,
) {
  const started = performance.now();
  let last = 0;
  let shown = false;
  const enabled = stream.isTTY === true;
  return {
    update(count: number, total = fixedTotal): void {
      if (!enabled) return;
      const now = performance.now();
      if (now - last < 500) return;
      last = now;
      const rate = count / ((now - started) / 1000);
      const eta = total && rate > 0 ? `, ETA ${Math.ceil((total - count) / rate)} s` : '';
      const of = total ? `/${total}` : '';
      stream.write(`\r${count}${of} ${unit}, ${Math.round(rate)}/s${eta}\u001b[K`);
      shown = true;
    },
    done(): void {
      if (shown) stream.write('\r\u001b[K');
    },
  };
}
