/**
 * `node --import tsx bench/profile-timeline.ts file.cpuprofile [bucketMs] [lastSec]`: a V8 CPU profile as a
 * timeline: per bucket the share of samples that were not idle and the top self-time functions, to find
 * what ran during a stall.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const bucketUs = Number(process.argv[3] ?? 100) * 1000;
const lastUs = process.argv[4] ? Number(process.argv[4]) * 1e6 : Infinity;
const span = prof.timeDeltas.reduce((a, b) => a + b, 0);
const byId = new Map(prof.nodes.map((x) => [x.id, x]));
const buckets = new Map<number, Map<string, number>>();
let at = 0;
prof.samples.forEach((id, i) => {
  const dt = prof.timeDeltas[i] ?? 0;
  at += dt;
  if (span - at > lastUs) return;
  const b = Math.floor((at - Math.max(0, span - lastUs)) / bucketUs);
  const f = byId.get(id)!.callFrame;
  const key = `${f.functionName || '(anonymous)'}${f.url ? ' ' + f.url.replace(/^.*\/(node_modules|packages)\//, '$1/') + ':' + (f.lineNumber + 1) : ''}`;
  let m = buckets.get(b);
  if (!m) buckets.set(b, (m = new Map()));
  m.set(key, (m.get(key) ?? 0) + dt);
});
for (const [b, m] of [...buckets].sort((x, y) => x[0] - y[0])) {
  const total = [...m.values()].reduce((s, v) => s + v, 0);
  const idle = m.get('(idle)') ?? 0;
  const top = [...m].filter(([k]) => k !== '(idle)').sort((x, y) => y[1] - x[1]).slice(0, 3);
  console.log(
    `${((b * bucketUs) / 1e6).toFixed(1).padStart(6)}s busy ${(((total - idle) / total) * 100).toFixed(0).padStart(3)}%  ` +
      top.map(([k, v]) => `${k} ${(v / 1000).toFixed(0)}ms`).join(' | '),
  );
}
