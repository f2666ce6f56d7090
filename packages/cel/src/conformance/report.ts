// `node packages/cel/dist/conformance/report.js [--failures]`: the cel-spec conformance counts as
// JSON (cases, not applicable, applicable, passing, known failures; by file and in total), with
// --failures every case that does not pass and why.
import { runSuite } from './suite.js';

const result = runSuite();
const failures = process.argv.includes('--failures')
  ? { failures: result.cases.filter((c) => !c.passed).map((c) => ({ id: c.id, category: c.category, detail: c.detail })) }
  : {};
process.stdout.write(`${JSON.stringify({ total: result.total, files: result.files, unexpected: result.unexpected, ...failures }, null, 2)}\n`);
