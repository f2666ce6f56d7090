// The repository's own checks (make check-boundaries) catch what they are for: a dead export is one
// no file names, and a re-export (a package's index passing it on) is not a use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/check-dead-exports.mjs', import.meta.url));

test('check-dead-exports: a name only re-exported by its package\'s index is dead; one another package imports is not', async (t) => {
  const tree = await mkdtemp(join(tmpdir(), 'plat-dead-exports-'));
  t.after(() => rm(tree, { recursive: true, force: true }));
  await mkdir(join(tree, 'packages/p/src'), { recursive: true });
  await mkdir(join(tree, 'apps/a/src'), { recursive: true });
  await writeFile(join(tree, 'packages/p/src/names.ts'), 'export function lonely(): number {\n  return 1;\n}\nexport function wanted(): number {\n  return 2;\n}\n');
  await writeFile(join(tree, 'packages/p/src/index.ts'), "export { lonely, wanted } from './names.js';\n");
  await writeFile(join(tree, 'apps/a/src/main.ts'), "import { wanted } from 'p-package';\nconsole.log(wanted());\n");
  const failed = await run(process.execPath, [SCRIPT, tree]).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  assert.ok(failed, 'the check passed');
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /packages\/p\/src\/names\.ts: lonely/);
  assert.doesNotMatch(failed.stderr, /wanted/);
});
