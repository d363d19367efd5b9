/**
 * `node --import tsx bench/profile-top.ts file.cpuprofile [n] [lastSec]`: the top self-time functions of a
 * V8 CPU profile; with lastSec, only the samples of the profile's last lastSec seconds (the measurement
 * rather than the setup before it).
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const n = Number(process.argv[3] ?? 25);
const lastUs = process.argv[4] ? Number(process.argv[4]) * 1e6 : Infinity;
const span = prof.timeDeltas.reduce((a, b) => a + b, 0);
let at = 0;
const byId = new Map(prof.nodes.map((x) => [x.id, x]));
const self = new Map<string, number>();
let total = 0;
prof.samples.forEach((id, i) => {
  const node = byId.get(id)!;
  const dt = prof.timeDeltas[i] ?? 0;
  at += dt;
  if (span - at > lastUs) return;
  total += dt;
  const f = node.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`;
  self.set(key, (self.get(key) ?? 0) + dt);
});
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`total ${(total / 1000).toFixed(0)} ms`);
for (const [k, v] of rows) console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`);
