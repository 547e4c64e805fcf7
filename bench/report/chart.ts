/**
 * A dependency-free SVG chart of a bench run: per workload, input events/s of the ceiling, the
 * 2-hop echo, the naive peer, MemoryStore and MongoStore runs (left), and p99 latency of the engine runs (right).
 */
export interface ChartBar {
  readonly workload: string;
  readonly series: string;
  readonly value: number | null;
}

const COLORS: Record<string, string> = {
  ceiling: '#9aa5b1',
  '2-hop echo': '#cfd6dd',
  'naive peer': '#e0894a',
  memory: '#2f6fdf',
  mongo: '#2e9e5b',
};
const WIDTH = 420;
const HEIGHT = 260;
const MARGIN = { top: 40, right: 16, bottom: 48, left: 64 };

export function renderChart(
  title: string,
  throughput: readonly ChartBar[],
  p99: readonly ChartBar[],
): string {
  const panels = [panel('input events/s', throughput, 0), panel('p99 latency (ms)', p99, WIDTH)];
  const series = [...new Set([...throughput, ...p99].map((b) => b.series))];
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${MARGIN.left + i * 110}" y="${HEIGHT - 14}" width="10" height="10" fill="${COLORS[s] ?? '#888'}"/>` +
        `<text x="${MARGIN.left + i * 110 + 14}" y="${HEIGHT - 5}" font-size="11">${escapeXml(s)}</text>`,
    )
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH * 2}" height="${HEIGHT}" viewBox="0 0 ${WIDTH * 2} ${HEIGHT}" font-family="sans-serif">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${WIDTH}" y="16" font-size="13" text-anchor="middle">${escapeXml(title)}</text>`,
    ...panels,
    legend,
    '</svg>',
    '',
  ].join('\n');
}

function panel(label: string, bars: readonly ChartBar[], x0: number): string {
  const workloads = [...new Set(bars.map((b) => b.workload))];
  const series = [...new Set(bars.map((b) => b.series))];
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value ?? 0)));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const groupW = plotW / Math.max(1, workloads.length);
  const barW = (groupW * 0.8) / Math.max(1, series.length);
  const y = (v: number) => MARGIN.top + plotH - (max > 0 ? (v / max) * plotH : 0);
  const parts = [
    `<g transform="translate(${x0},0)">`,
    `<text x="${MARGIN.left}" y="32" font-size="12">${escapeXml(label)}</text>`,
  ];
  for (let t = 0; t <= 4; t++) {
    const v = (max * t) / 4;
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e3e7eb"/>`,
      `<text x="${MARGIN.left - 6}" y="${y(v) + 4}" font-size="10" text-anchor="end">${formatTick(v)}</text>`,
    );
  }
  workloads.forEach((workload, w) => {
    const gx = MARGIN.left + w * groupW + groupW * 0.1;
    series.forEach((s, i) => {
      const value = bars.find((b) => b.workload === workload && b.series === s)?.value;
      if (value === null || value === undefined) return;
      parts.push(
        `<rect x="${(gx + i * barW).toFixed(1)}" y="${y(value).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(MARGIN.top + plotH - y(value)).toFixed(1)}" fill="${COLORS[s] ?? '#888'}"><title>${escapeXml(`${workload} ${s}: ${formatTick(value)}`)}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${(gx + groupW * 0.4).toFixed(1)}" y="${MARGIN.top + plotH + 16}" font-size="11" text-anchor="middle">${escapeXml(workload)}</text>`,
    );
  });
  parts.push('</g>');
  return parts.join('\n');
}

/** A round axis maximum (1, 2 or 5 times a power of ten) at or above `value`. */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value) ?? 10;
  return step * power;
}

function formatTick(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (value >= 1000) return `${(value / 1000).toFixed(value >= 10_000 ? 0 : 1)}k`;
  return `${Math.round(value)}`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
