// A definition's converter, chosen by spec.conversion.strategy: None between the definition's own
// versions (served or not), upstream's refusals otherwise; every served version shares it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@plat/registry';
import { customResourceConverter } from './crd-conversion.js';
import { customResourceDefinitions } from './custom-resource.js';
import type { CustomResourceConversion, CustomResourceDefinition } from './types.js';

const definition = (conversion?: CustomResourceConversion): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
    scope: 'Namespaced',
    versions: [
      { name: 'v1', served: true, storage: true },
      { name: 'v1beta1', served: true, storage: false },
      { name: 'v0', served: false, storage: false },
    ],
    ...(conversion && { conversion }),
  },
});

const cronTab = (apiVersion: string): KubeObject => ({ apiVersion, kind: 'CronTab', metadata: { name: 'a', labels: { x: 'y' } }, spec: { cronSpec: '* * * * *' } });

describe('CRD conversion: the converter of spec.conversion.strategy', () => {
  const cases: { name: string; conversion?: CustomResourceConversion; from: string; to: string; want?: KubeObject; error?: string }[] = [
    { name: 'None: apiVersion rewritten, nothing else', conversion: { strategy: 'None' }, from: 'stable.example.com/v1', to: 'stable.example.com/v1beta1', want: cronTab('stable.example.com/v1beta1') },
    { name: 'no conversion given is None', from: 'stable.example.com/v1beta1', to: 'stable.example.com/v1', want: cronTab('stable.example.com/v1') },
    { name: 'None: a version not served is still one of its own', conversion: { strategy: 'None' }, from: 'stable.example.com/v0', to: 'stable.example.com/v1', want: cronTab('stable.example.com/v1') },
    { name: 'None: to a version it does not have', conversion: { strategy: 'None' }, from: 'stable.example.com/v1', to: 'stable.example.com/v2', error: 'request to convert CR to an invalid group/version: stable.example.com/v2' },
    { name: 'None: from another group', conversion: { strategy: 'None' }, from: 'other.example.com/v1', to: 'stable.example.com/v1', error: 'request to convert CR from an invalid group/version: other.example.com/v1' },
    {
      name: 'Webhook (refused when the definition is written) converts nothing',
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://convert.example.com' } } },
      from: 'stable.example.com/v1',
      to: 'stable.example.com/v1beta1',
      error: 'webhook conversion is not supported by this server',
    },
    { name: 'an unknown strategy, as upstream names it', conversion: { strategy: 'Magic' }, from: 'stable.example.com/v1', to: 'stable.example.com/v1beta1', error: 'unknown conversion strategy "Magic" for CRD crontabs.stable.example.com' },
  ];
  for (const { name, conversion, from, to, want, error } of cases) {
    it(name, async () => {
      const converting = customResourceConverter(definition(conversion)).convert([cronTab(from)], to);
      if (error) await assert.rejects(converting, { message: error });
      else assert.deepEqual(await converting, [want]);
    });
  }

  it('every served version of a definition converts through the one converter', () => {
    const served = customResourceDefinitions(definition({ strategy: 'None' }));
    assert.deepEqual(served.map((version) => version.version), ['v1', 'v1beta1']);
    const converters = served.map((version) => version.unstructured?.converter);
    assert.ok(converters[0]);
    assert.equal(converters[1], converters[0]);
  });
});
