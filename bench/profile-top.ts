/**
 * Top self-time functions of a V8 CPU profile: `node --import tsx bench/profile-top.ts <file.cpuprofile> [n]`.
 * Profile a run with `node --cpu-prof --import tsx bench/harness/child.ts '<RunSpec JSON>'`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const inclusive = args.includes('--inclusive');
const [file, count = '25'] = args.filter((a) => a !== '--inclusive');
if (!file) {
  console.error('usage: bench/profile-top.ts <file.cpuprofile> [n] [--inclusive]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
const nameOf = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*\/work\/main\//, '')}:${lineNumber + 1}`;
};
/** Self time per function, or with --inclusive the time of samples with it anywhere on the stack. */
const self = new Map<string, number>();
let totalUs = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  totalUs += delta;
  const names = new Set<string>();
  for (let n = byNode.get(id); n; n = inclusive ? byNode.get(parentOf.get(n.id) ?? -1) : undefined)
    names.add(nameOf(n));
  for (const name of names) self.set(name, (self.get(name) ?? 0) + delta);
});
console.log(`total ${(totalUs / 1000).toFixed(0)} ms`);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(
    `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${name}`,
  );
}
