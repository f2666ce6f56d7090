// Bundles each binary's compiled entry (apps/<app>/dist/main.js) into one file,
// apps/<app>/dist/bundle/plat-<name>.mjs, with esbuild: a process then loads one module instead of
// resolving, reading and compiling hundreds (plat-apiserver: serving after 0.5 s of CPU instead of
// 1.5 s), which is what every replica start, every restart in a rollout, and every process the
// end-to-end tests start pays.
//
// The bundles keep the workspace's layout around them: better-sqlite3 (a native addon) is loaded
// from node_modules as before, and the Protobuf schema's .proto files are read from
// packages/protobuf/proto, the path rewritten for the bundle's place.
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const binaries = [
  { app: 'apiserver', name: 'plat-apiserver' },
  { app: 'controller-manager', name: 'plat-controller-manager' },
  { app: 'node-agent', name: 'plat-agent' },
];

/** The .proto folder, as the bundle at `outdir` reaches it. */
const protoDirectory = (outdir) => {
  const path = relative(outdir, join(root, 'packages/protobuf/proto'));
  return `${path.split('\\').join('/')}/`;
};

const PROTO_URL = "new URL('../proto/', import.meta.url)";

await Promise.all(
  binaries.map(async ({ app, name }) => {
    const outdir = join(root, 'apps', app, 'dist', 'bundle');
    await build({
      entryPoints: [join(root, 'apps', app, 'dist', 'main.js')],
      outfile: join(outdir, `${name}.mjs`),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: true,
      external: ['better-sqlite3'],
      // CommonJS dependencies require node's modules; an ES module has no `require` of its own.
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      logLevel: 'warning',
      plugins: [
        {
          name: 'proto-directory',
          setup(pluginBuild) {
            pluginBuild.onLoad({ filter: /packages[\\/]protobuf[\\/]dist[\\/]schema\.js$/ }, async (args) => {
              const source = await readFile(args.path, 'utf8');
              if (!source.includes(PROTO_URL)) throw new Error(`${args.path}: the .proto folder is no longer found as ${PROTO_URL}`);
              return { contents: source.replace(PROTO_URL, `new URL(${JSON.stringify(protoDirectory(outdir))}, import.meta.url)`), loader: 'js' };
            });
          },
        },
      ],
    });
  }),
);
