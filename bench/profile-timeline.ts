/**
 * `node --import tsx bench/profile-timeline.ts file.cpuprofile [bucketMs] [lastSec]`: a V8 CPU profile as a
 * timeline: per bucket the share of samples that were not idle and the top self-time functions, to find
 * what ran during a stall.
 */
import { readSamples } from './cpu-profile.js';

const bucketUs = Number(process.argv[3] ?? 100) * 1000;
const samples = readSamples(process.argv[2], process.argv[4] ? Number(process.argv[4]) : undefined);
const buckets = new Map<number, Map<string, number>>();
for (const s of samples) {
  const b = Math.floor(s.at / bucketUs);
  let m = buckets.get(b);
  if (!m) buckets.set(b, (m = new Map()));
  m.set(s.fn, (m.get(s.fn) ?? 0) + s.dt);
}
for (const [b, m] of [...buckets].sort((x, y) => x[0] - y[0])) {
  const total = [...m.values()].reduce((sum, v) => sum + v, 0);
  const idle = m.get('(idle)') ?? 0;
  const top = [...m].filter(([k]) => k !== '(idle)').sort((x, y) => y[1] - x[1]).slice(0, 3);
  console.log(
    `${((b * bucketUs) / 1e6).toFixed(1).padStart(6)}s busy ${(((total - idle) / total) * 100).toFixed(0).padStart(3)}%  ` +
      top.map(([k, v]) => `${k} ${(v / 1000).toFixed(0)}ms`).join(' | '),
  );
}
