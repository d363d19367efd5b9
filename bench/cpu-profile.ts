/** Reading a V8 `.cpuprofile` for the profile scripts: each sample's function and time, optionally only the last seconds. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface Sample {
  /** `name file:line` of the function the sample is in (self time). */
  fn: string;
  /** µs since the start of the window. */
  at: number;
  /** µs this sample stands for. */
  dt: number;
}

/** The samples of `file`; with `lastSec`, only those of the profile's last `lastSec` seconds. */
export function readSamples(file: string, lastSec?: number): Sample[] {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const span = prof.timeDeltas.reduce((a, b) => a + b, 0);
  const from = lastSec === undefined ? 0 : Math.max(0, span - lastSec * 1e6);
  const names = new Map(
    prof.nodes.map((x) => {
      const f = x.callFrame;
      const where = f.url ? ` ${f.url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${f.lineNumber + 1}` : '';
      return [x.id, `${f.functionName || '(anonymous)'}${where}`];
    }),
  );
  const out: Sample[] = [];
  let at = 0;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] ?? 0;
    at += dt;
    if (at >= from) out.push({ fn: names.get(id)!, at: at - from, dt });
  });
  return out;
}
