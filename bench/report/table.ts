import type { RunResult } from '../harness/types.ts';

export interface TableRow {
  readonly label: string;
  readonly result: RunResult;
  /** The same workload's ceiling events/s in this run. */
  readonly ceiling: number | null;
  /** The same workload's 2-hop echo events/s in this run (engine rows). */
  readonly twoHopEcho?: number | null;
  /** The same workload's naive peer events/s in this run (MemoryStore engine rows). */
  readonly naive?: number | null;
  /** Lowest and highest events/s when the row is the median of several runs. */
  readonly range?: readonly [number, number];
}

const COLUMNS = [
  'run',
  'events',
  'events/s',
  'range',
  'x ceiling',
  'x 2-hop echo',
  'x naive',
  'out msg/s',
  'out B/event',
  'CPU us/event',
  'loop busy %',
  'p50 ms',
  'p99 ms',
  'rt/event',
  'compression',
  'peak RSS MB',
] as const;

/** A figure with thousands separators and `digits` decimals; `-` when there is none. */
export const number = (value: number | null | undefined, digits = 0): string =>
  value === null || value === undefined || !Number.isFinite(value)
    ? '-'
    : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A fixed-width text table of the runs, one line each. */
export function formatTable(rows: readonly TableRow[]): string {
  const cells = rows.map(cellsOf);
  const widths = COLUMNS.map((title, i) =>
    Math.max(title.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const line = (row: readonly string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(COLUMNS), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** The same table in Markdown (`bench/results/latest.md`), to paste into a document as is. */
export function formatMarkdownTable(rows: readonly TableRow[]): string {
  const line = (row: readonly string[]) => `| ${row.join(' | ')} |`;
  return [line(COLUMNS), line(COLUMNS.map(() => '---')), ...rows.map((row) => line(cellsOf(row)))].join('\n');
}

function cellsOf({ label, result, ceiling, twoHopEcho, naive, range }: TableRow): string[] {
  const standIn = result.standIn ? ' (stand-in)' : '';
  // The stand-in's speed is no figure of the engine's (see `RunResult.standIn`); the ceiling is
  // not compared with itself, and an echo not with an echo.
  const ratio = (to: number | null | undefined, applies: boolean) =>
    applies && !result.standIn && to ? number(result.inputPerSecond / to, 2) : '-';
  const isEcho = result.spec.target === 'ceiling';
  return [
    `${label}${standIn}`,
    number(result.spec.events),
    number(result.inputPerSecond),
    range ? `${number(range[0])}-${number(range[1])}` : '-',
    ratio(ceiling, !isEcho || (result.spec.hops ?? 1) > 1),
    ratio(twoHopEcho, !isEcho),
    ratio(naive, result.spec.target === 'memory'),
    number(result.outputPerSecond),
    number(result.outputBytesPerEvent),
    number(result.cpuMicrosPerEvent, 1),
    number(result.loopBusy * 100),
    number(result.latencyMs.p50),
    number(result.latencyMs.p99),
    number(result.roundTripsPerEvent, 4),
    number(result.internalUpdates?.ratio, 2),
    number(result.peakRssMb),
  ];
}
