/**
 * What the Kafka client watchdog (operators/broker/kafka/watchdog.ts) did during a run, from the
 * component's own evidence: every replacement is counted in `streamfold_kafka_clients_replaced_total{client}`
 * and warned about in its log ("kafka consumer stranded: replacing its client"). The two must
 * agree; how many there were tells whether librdkafka#5301 stranded a client during the run.
 *
 * @example
 *   const note = watchdogEvidence('rest2broker', await (await fetch(`${base}/-/metrics`)).text(), lines.join('\n'));
 */
import * as assert from 'node:assert/strict';

const CLIENTS = ['consumer', 'producer'] as const;
const METRIC = 'streamfold_kafka_clients_replaced_total';

/** The component's replacements per client kind, asserted equal in its metric and its log; `name: none` or e.g. `name: consumer 1`. */
export function watchdogEvidence(name: string, metrics: string, log: string): string {
  const counted = Object.fromEntries(CLIENTS.map((client) => [client, metricValue(metrics, client)]));
  const warned = Object.fromEntries(
    CLIENTS.map((client) => [client, log.split(`kafka ${client} stranded: replacing its client`).length - 1]),
  );
  assert.deepEqual(warned, counted, `${name}: every client the watchdog replaced is both counted and logged`);
  const replaced = CLIENTS.filter((client) => counted[client]! > 0).map((c) => `${c} ${counted[c]}`);
  return `${name}: ${replaced.join(', ') || 'none'}`;
}

function metricValue(metrics: string, client: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${METRIC}{client="${client}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
