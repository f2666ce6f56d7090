// A node --test reporter that writes, for each test file, the wall time from its first event to its
// last and the sum of its top-level tests' durations, slowest first: what to look at when the suite
// gets slower. Used by scripts/run-tests.mjs beside the TAP reporter.
export default async function* fileTimes(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = performance.now();
    let entry = files.get(file);
    if (!entry) files.set(file, (entry = { first: now, last: now, tests: 0, testMs: 0, failed: 0 }));
    entry.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      entry.testMs += event.data.details?.duration_ms ?? 0;
      entry.tests++;
      if (event.type === 'test:fail') entry.failed++;
    }
  }
  const rows = [...files].map(([file, e]) => ({ file: file.replace(`${process.cwd()}/`, ''), testsMs: Math.round(e.testMs), topLevel: e.tests, failed: e.failed }));
  rows.sort((a, b) => b.testsMs - a.testsMs);
  yield `${JSON.stringify(rows, null, 1)}\n`;
}
