/**
 * `node --import tsx bench/profile-top.ts file.cpuprofile [n] [lastSec]`: the top self-time functions of a
 * V8 CPU profile; with lastSec, only the samples of the profile's last lastSec seconds (the measurement
 * rather than the setup before it).
 */
import { readSamples } from './cpu-profile.js';

const samples = readSamples(process.argv[2], process.argv[4] ? Number(process.argv[4]) : undefined);
const n = Number(process.argv[3] ?? 25);
const self = new Map<string, number>();
let total = 0;
for (const s of samples) {
  total += s.dt;
  self.set(s.fn, (self.get(s.fn) ?? 0) + s.dt);
}
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`total ${(total / 1000).toFixed(0)} ms`);
for (const [k, v] of rows) console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`);
