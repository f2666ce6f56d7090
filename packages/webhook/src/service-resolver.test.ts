import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultServiceResolver } from './service-resolver.js';

// Upstream's TestDefaultServiceResolver.
const cases: { name: string; namespace: string; service: string; port: number; want: { hostname: string; port: number } | RegExp }[] = [
  { name: 'a service and its namespace', namespace: 'andromeda', service: 'ross', port: 443, want: { hostname: 'ross.andromeda.svc', port: 443 } },
  { name: 'another port', namespace: 'andromeda', service: 'ross', port: 1002, want: { hostname: 'ross.andromeda.svc', port: 1002 } },
  { name: 'no namespace', namespace: '', service: 'ross', port: 443, want: /^Error: cannot resolve an empty service name or namespace or port$/ },
  { name: 'no name', namespace: 'andromeda', service: '', port: 443, want: /cannot resolve an empty service name/ },
  { name: 'no port', namespace: 'andromeda', service: 'ross', port: 0, want: /cannot resolve an empty service name or namespace or port/ },
];

for (const { name, namespace, service, port, want } of cases) {
  test(`default service resolver: ${name}`, () => {
    if (want instanceof RegExp) return void assert.throws(() => defaultServiceResolver.resolve(namespace, service, port), want);
    const url = defaultServiceResolver.resolve(namespace, service, port);
    assert.equal(url.protocol, 'https:');
    // A WHATWG URL leaves https' own port implicit.
    assert.deepEqual({ hostname: url.hostname, port: Number(url.port || 443) }, want);
  });
}
