// Dead exports: a declaration exported from a workspace's source that no file of the tree names
// (not another file, not its own file beyond the declaration, not a test; a re-export is not a use). Such code is either
// dead or waiting for a caller; either way it is removed until one comes. Run by `make test`.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

// The tree checked: the repository (its root as the working folder), or the folder given.
const base = process.argv[2] ?? '.';
const roots = ['packages', 'apps', 'test', 'bench', 'scripts'];

async function* sources(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.(ts|mjs)$/.test(entry.name)) yield path;
  }
}

const texts = new Map();
for (const root of roots) {
  const dir = join(base, root);
  const exists = await readdir(dir).then(() => true, () => false);
  if (exists) for await (const file of sources(dir)) texts.set(file.slice(base === '.' ? 0 : base.length + 1), await readFile(file, 'utf8'));
}

// A re-export (`export { name } from './file.js'`, a package's index) passes a name on and does not
// use it: it is not counted, so that a name only re-exported, by its package's index or by
// another, is found dead.
const reExports = /export\s+(?:type\s+)?\{[^}]*\}\s*from\s*['"][^'"]+['"];?/g;

// Every identifier-like word of the tree, counted, so that a name is looked up once.
const counts = new Map();
for (const text of texts.values()) {
  for (const [word] of text.replace(reExports, '').matchAll(/[A-Za-z_$][A-Za-z0-9_$]*/g)) counts.set(word, (counts.get(word) ?? 0) + 1);
}

const declaration = /^export (?:async )?(?:const|let|function\*?|class|abstract class|interface|type|enum) ([A-Za-z_$][A-Za-z0-9_$]*)/gm;
const dead = [];
for (const [file, text] of texts) {
  if (!/^(packages|apps)\//.test(file) || file.endsWith('.test.ts') || !file.endsWith('.ts')) continue;
  for (const [, name] of text.matchAll(declaration)) if (counts.get(name) === 1) dead.push(`${file}: ${name}`);
}
if (dead.length) {
  console.error(`exported and named nowhere else (remove them, or use them):\n  ${dead.join('\n  ')}`);
  process.exit(1);
}
console.log('dead exports: none');
