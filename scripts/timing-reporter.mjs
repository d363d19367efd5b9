// A node:test reporter (scripts/test.mjs adds it when TEST_TIMINGS names a file): per test file, the time its
// top-level tests took and the span from its first to its last event (module loading and setup included, as the
// runner saw it), slowest span first, so the suite's time can be spent where it goes (the guide's 6-minute goal).
export default async function* timingReporter(source) {
  const byFile = new Map();
  const started = Date.now();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = Date.now();
    const f = byFile.get(file) ?? { first: now, last: now, ms: 0, tests: 0 };
    f.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      f.ms += event.data.details?.duration_ms ?? 0;
      f.tests += 1;
    }
    byFile.set(file, f);
  }
  const rows = [...byFile.entries()].sort((a, b) => b[1].last - b[1].first - (a[1].last - a[1].first));
  yield `wall ${((Date.now() - started) / 1000).toFixed(1)} s; ${rows.length} files; span = first to last event, tests = top-level test time\n`;
  for (const [file, f] of rows) {
    yield `${((f.last - f.first) / 1000).toFixed(1).padStart(8)} s span ${(f.ms / 1000).toFixed(1).padStart(8)} s tests  ${file.replace(process.cwd() + '/', '')}\n`;
  }
}
