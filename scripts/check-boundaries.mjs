// Import boundaries (DESIGN.md): imports go downward only, packages never import apps, a package
// is reached only through its exports map (no deep imports into another package's files), and
// only tests import test support.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What each workspace may import of ours. */
const allowed = {
  'packages/apimachinery': [],
  'packages/storage': [],
  'packages/protobuf': ['@plat/apimachinery'],
  'packages/cel': ['@plat/apimachinery'],
  'packages/registry': ['@plat/apimachinery', '@plat/storage', '@plat/merge'],
  // The admission chain and its plugins: above the registry (whose Admission it implements), below the server.
  'packages/admission': ['@plat/apimachinery', '@plat/registry', '@plat/api'],
  'packages/merge': ['@plat/apimachinery'],
  // Objects that name a webhook are validated with the webhook package's URL and Service checks, as upstream's are;
  // the flowcontrol kinds with APF's constants, its shuffle-sharding entropy bound and its mandatory objects.
  'packages/api': ['@plat/apimachinery', '@plat/registry', '@plat/cel', '@plat/webhook', '@plat/flowcontrol'],
  'packages/auth': ['@plat/apimachinery'],
  'packages/featuregate': [],
  'packages/serving': ['@plat/apimachinery'],
  // API Priority and Fairness, the pure core: classification, seats, fair queuing; no I/O, no koa.
  'packages/flowcontrol': ['@plat/apimachinery'],
  // The webhook client: above the machinery, below every caller (knows no koa, no registry).
  'packages/webhook': ['@plat/apimachinery'],
  // The API server, bottom up: metrics and audit, authn < authz < filters < endpoints < apiserver (the wiring).
  // Its Prometheus metrics: below everything that counts, knowing requests only by their labels.
  'packages/metrics': ['@plat/serving', '@plat/storage'],
  // The audit policy, events and log: no HTTP, no API (the audit filter is in filters).
  'packages/audit': ['@plat/apimachinery'],
  // Authentication: service accounts read through the registry's stores, TokenReview through the webhook client.
  // The TokenRequest kind's types (what a service-account token request and answer hold) are @plat/api's.
  'packages/authn': ['@plat/apimachinery', '@plat/api', '@plat/registry', '@plat/serving', '@plat/webhook'],
  // Authorization: the RBAC core's decisions over the registry's informers, SubjectAccessReview through the webhook client.
  'packages/authz': ['@plat/apimachinery', '@plat/auth', '@plat/authn', '@plat/registry', '@plat/serving', '@plat/webhook'],
  // The secure port, the request context and the filter chain: they know who (authn), what is allowed (authz)
  // and audit, not the API's resources.
  'packages/filters': ['@plat/apimachinery', '@plat/storage', '@plat/protobuf', '@plat/serving', '@plat/metrics', '@plat/audit', '@plat/authn', '@plat/authz', '@plat/flowcontrol'],
  // The REST endpoints: handlers at the end of the filter chain over the registry's stores (ObjectMeta's
  // schema for OpenAPI from api); no authentication, authorization or audit of their own.
  'packages/endpoints': ['@plat/apimachinery', '@plat/storage', '@plat/registry', '@plat/merge', '@plat/protobuf', '@plat/api', '@plat/metrics', '@plat/filters'],
  // The wiring: builds the server from all of the above, admission and the CRD controller included.
  'packages/apiserver': ['@plat/apimachinery', '@plat/storage', '@plat/registry', '@plat/admission', '@plat/api', '@plat/auth', '@plat/protobuf', '@plat/serving', '@plat/webhook', '@plat/metrics', '@plat/audit', '@plat/authn', '@plat/authz', '@plat/filters', '@plat/endpoints', '@plat/flowcontrol'],
  'apps/apiserver': ['@plat/apimachinery', '@plat/apiserver', '@plat/admission', '@plat/storage', '@plat/api', '@plat/featuregate', '@plat/webhook', '@plat/serving', '@plat/audit', '@plat/authn', '@plat/authz'],
  'packages/client': ['@plat/apimachinery'],
  'apps/controller-manager': ['@plat/apimachinery', '@plat/client', '@plat/serving', '@plat/featuregate'],
  'packages/agent-config': ['@plat/apimachinery', '@plat/featuregate'],
  'apps/node-agent': ['@plat/apimachinery', '@plat/agent-config', '@plat/api', '@plat/client', '@plat/protobuf', '@plat/serving'],
  test: ['@plat/apimachinery', '@plat/apiserver', '@plat/api', '@plat/storage', '@plat/protobuf', '@plat/serving'],
  // bench/agents runs the node agent's own loops, many in one process.
  bench: ['@plat/apimachinery', '@plat/api', '@plat/cel', '@plat/storage', '@plat/merge', '@plat/auth', '@plat/protobuf', '@plat/serving', '@plat/client', '@plat/node-agent'],
};
/** What a workspace's tests (`*.test.ts`, `test-support.ts`) may import besides: a server to talk to. */
const allowedInTests = {
  // The kinds register their Protobuf forms from their definitions: the codec's tests use the real ones.
  'packages/protobuf': ['@plat/api'],
  // A custom resource's versions are tried through the real generic store, on the memory backend.
  'packages/api': ['@plat/storage'],
  // A loopback HTTPS webhook needs a certificate for name.namespace.svc.
  'packages/webhook': ['@plat/serving'],
  // The server's packages test through the in-process server (@plat/apiserver/testing) where a unit
  // alone proves nothing; those tests are a project of their own (tsconfig.test.json), off the build graph.
  'packages/metrics': ['@plat/apiserver'],
  'packages/audit': ['@plat/apiserver'],
  // Service-account tokens and the RBAC authorizer are tried against the real catalog and kinds, on the memory backend.
  'packages/authn': ['@plat/apiserver', '@plat/endpoints', '@plat/storage'],
  'packages/authz': ['@plat/apiserver', '@plat/api', '@plat/endpoints', '@plat/storage'],
  'packages/filters': ['@plat/apiserver'],
  'packages/endpoints': ['@plat/apiserver'],
  'packages/client': ['@plat/apiserver', '@plat/api', '@plat/storage', '@plat/protobuf', '@plat/serving'],
  'apps/controller-manager': ['@plat/apiserver', '@plat/api', '@plat/storage'],
};
/** Libraries a workspace must not know of, besides the workspaces it may not import. */
const banned = {
  // The webhook client serves every caller; HTTP serving is theirs.
  'packages/webhook': ['koa'],
  // The filter that serves it is the server's; the core knows no HTTP.
  'packages/flowcontrol': ['koa'],
};
const isTestFile = (file) => /(\.test|test-support)\.ts$/.test(file);
const ours = /^@plat\/([a-z-]+)(\/.*)?$/;
/** Per package name, the sub-paths its exports map offers ('' for the package itself). */
const exported = new Map();
for (const workspace of Object.keys(allowed)) {
  const manifest = JSON.parse(await readFile(join(workspace, 'package.json'), 'utf8'));
  exported.set(manifest.name, new Set(Object.keys(manifest.exports ?? { '.': '' }).map((key) => key.slice(1))));
}

// The table itself goes downward only: no workspace may be allowed, directly or not, to import one
// that may import it (tests aside, which are built apart).
const workspaceOf = new Map();
for (const workspace of Object.keys(allowed)) {
  const manifest = JSON.parse(await readFile(join(workspace, 'package.json'), 'utf8'));
  workspaceOf.set(manifest.name, workspace);
}
function cycleFrom(workspace, path = []) {
  if (path.includes(workspace)) return [...path.slice(path.indexOf(workspace)), workspace];
  for (const target of allowed[workspace] ?? []) {
    const found = cycleFrom(workspaceOf.get(target), [...path, workspace]);
    if (found) return found;
  }
  return undefined;
}
for (const workspace of Object.keys(allowed)) {
  const cycle = cycleFrom(workspace);
  if (cycle) {
    console.error(`import boundaries: the allowed table has a cycle: ${cycle.join(' -> ')}`);
    process.exit(1);
  }
}

async function* sources(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const problems = [];
for (const [workspace, permitted] of Object.entries(allowed)) {
  for await (const file of sources(workspace)) {
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      const specifier = match[1];
      if (specifier.startsWith('.') && /\.\.\/\.\.\/(packages|apps)\//.test(specifier)) {
        problems.push(`${file}: reaches into another workspace by path: ${specifier}`);
      }
      // The image drops test support with the tests (deploy/Dockerfile): nothing else may need it.
      if (specifier.startsWith('.') && /test-support/.test(specifier) && !isTestFile(file)) {
        problems.push(`${file}: imports test support, which the image does not ship: ${specifier}`);
      }
      if ((banned[workspace] ?? []).includes(specifier.split('/')[0])) problems.push(`${file}: ${workspace} may not import ${specifier}`);
      const ourImport = ours.exec(specifier);
      if (!ourImport) continue;
      const target = `@plat/${ourImport[1]}`;
      const inTests = isTestFile(file) ? (allowedInTests[workspace] ?? []) : [];
      if (!permitted.includes(target) && !inTests.includes(target)) problems.push(`${file}: ${workspace} may not import ${target}`);
      if (!exported.get(target)?.has(ourImport[2] ?? '')) problems.push(`${file}: deep import ${specifier}`);
    }
  }
}
// The scripts are plain JavaScript, which no compiler checks: each name they import of ours must
// be one its package exports (a package split once left make cluster and make run importing a
// name from where it no longer was).
for (const entry of await readdir('scripts')) {
  if (!entry.endsWith('.mjs')) continue;
  const text = await readFile(join('scripts', entry), 'utf8');
  for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"](@plat\/[^'"]+)['"]/g)) {
    const module = await import(match[2]);
    for (const name of match[1].split(',').map((part) => part.trim().split(/\s+as\s+/)[0]).filter((name) => name && !name.startsWith('type '))) {
      if (!(name in module)) problems.push(`scripts/${entry}: ${match[2]} exports no ${name}`);
    }
  }
}
if (problems.length) {
  console.error(`import boundaries violated:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`import boundaries: ok (${Object.keys(allowed).length} workspaces)`);
