import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { MetricsStability } from '@plat/serving';
import { parseEncryptionConfiguration } from './encryption-config.js';
import { encryptionTransformers } from './transformers.js';
import { TransformationMetrics } from './transformation-metrics.js';

const KEY32 = Buffer.alloc(32, 7).toString('base64');
const KEY16 = Buffer.alloc(16, 7).toString('base64');
const header = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';

/** A file with one entry: `resources` and the providers' YAML. */
const file = (resources: string[], providers: string): string =>
  `${header}resources:\n  - resources: [${resources.map((r) => JSON.stringify(r)).join(', ')}]\n    providers:\n${providers}`;
const aesgcm = (secret = KEY32, name = 'key1') => `      - aesgcm:\n          keys:\n            - name: ${JSON.stringify(name)}\n              secret: ${JSON.stringify(secret)}\n`;

describe('EncryptionConfiguration', () => {
  it('accepts upstream\'s apiVersion, ours, and the old EncryptionConfig of v1', () => {
    for (const head of [header, 'apiVersion: apiserver.config.plat.io/v1\nkind: EncryptionConfiguration\n', 'kind: EncryptionConfig\napiVersion: v1\n']) {
      const config = parseEncryptionConfiguration(`${head}resources:\n  - resources: [secrets]\n    providers:\n${aesgcm()}      - identity: {}\n`);
      assert.deepEqual(config.resources[0]!.resources, ['secrets']);
      assert.equal(config.resources[0]!.providers.length, 2);
    }
    // JSON too.
    parseEncryptionConfiguration(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers: [{ identity: {} }] }] }));
  });

  const cases: { name: string; text: string; error: string | RegExp }[] = [
    { name: 'an empty file', text: '  \n', error: 'the encryption provider configuration is empty' },
    { name: 'another kind', text: 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n', error: /no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io\/v1"/ },
    { name: 'no kind', text: 'apiVersion: apiserver.config.k8s.io/v1\n', error: "Object 'Kind' is missing" },
    { name: 'no resources', text: `${header}resources: []\n`, error: 'resources: Required value: at least one resources is required' },
    { name: 'an entry without resources or providers', text: `${header}resources:\n  - resources: []\n    providers: []\n`, error: '[resources[0].resources: Required value: at least one resources[0].resources is required, resources[0].providers: Required value: at least one resources[0].providers is required]' },
    { name: 'a provider of no known kind', text: file(['secrets'], '      - aesgcmm: {}\n'), error: /resources\[0\]\.providers\[0\]: Invalid value: .*: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity$/ },
    { name: 'two providers in one element', text: file(['secrets'], `      - identity: {}\n        aescbc:\n          keys: [{name: k, secret: "${KEY32}"}]\n`), error: /providers\[0\]: Invalid value: .*: more than one provider specified in a single element, should split into different list elements/ },
    { name: 'a provider without keys', text: file(['secrets'], '      - aescbc:\n          keys: []\n'), error: 'resources[0].providers[0].aescbc.keys: Required value: at least one keys is required' },
    { name: 'a key without a name', text: file(['secrets'], aesgcm(KEY32, '')), error: 'resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key' },
    { name: 'a key without a secret', text: file(['secrets'], aesgcm('')), error: 'resources[0].providers[0].aesgcm.keys[0].secret: Required value: secret is a mandatory field for a key' },
    { name: 'a secret not in base64', text: file(['secrets'], aesgcm('not base64!')), error: 'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded' },
    { name: 'an AES key of 8 bytes', text: file(['secrets'], aesgcm(Buffer.alloc(8).toString('base64'))), error: 'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]' },
    { name: 'a secretbox key of 16 bytes', text: file(['secrets'], `      - secretbox:\n          keys: [{name: k, secret: "${KEY16}"}]\n`), error: 'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]' },
    { name: 'capital letters', text: file(['Secrets'], aesgcm()), error: 'resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters' },
    { name: 'a bare star', text: file(['*'], aesgcm()), error: "resources[0].resources[0]: Invalid value: \"*\": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources" },
    { name: 'a resource across groups', text: file(['secrets.*'], aesgcm()), error: 'resources[0].resources[0]: Invalid value: "secrets.*": encrypting the same resource across groups is not supported' },
    { name: 'events.k8s.io', text: file(['events.events.k8s.io'], aesgcm()), error: "resources[0].resources[0]: Invalid value: \"events.events.k8s.io\": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file" },
    { name: 'the extensions group', text: file(['ingresses.extensions'], aesgcm()), error: "resources[0].resources[0]: Invalid value: \"ingresses.extensions\": 'extensions' group has been removed and cannot be used for encryption" },
    { name: 'a resource with no REST API', text: file(['serviceipallocations'], aesgcm()), error: 'resources[0].resources[0]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted' },
    { name: 'a resource twice', text: file(['secrets', 'secrets'], aesgcm()), error: 'resources[0].resources: Invalid value: []string{"secrets", "secrets"}: the same resource cannot be specified multiple times' },
    { name: 'overlapping resources', text: file(['secrets', '*.'], aesgcm()), error: "resources[0].resources: Invalid value: []string{\"secrets\", \"*.\"}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked" },
    { name: 'a KMS endpoint that is not unix', text: file(['secrets'], '      - kms:\n          name: p\n          endpoint: tcp://127.0.0.1:1\n'), error: 'resources[0].providers[0].kms.endpoint: Invalid value: "tcp://127.0.0.1:1": unsupported scheme "tcp" for KMS provider, only unix is supported' },
    { name: 'resources not a list', text: `${header}resources: secrets\n`, error: 'resources: must be a list' },
  ];
  for (const { name, text, error } of cases) {
    it(`refuses ${name}`, () => assert.throws(() => parseEncryptionConfiguration(text), typeof error === 'string' ? { message: error } : error));
  }

  // Hostile input round 2: two providers in one entry printed the aesgcm key in the refusal.
  it('no refusal, when parsing or when building, holds a key in any form', () => {
    const key = Buffer.from('0123456789abcdef0123456789ABCDEF');
    const secret = key.toString('base64');
    const forms = [secret, key.toString('hex'), key.toString('latin1'), secret.slice(0, 16)];
    const keyed = (kind: string, extra = '') => `      - ${kind}:\n          keys:\n            - name: k\n              secret: "${secret}"\n${extra}`;
    const refused = [
      ...cases.map(({ text }) => text.split(KEY32).join(secret)),
      file(['secrets'], keyed('aesgcm', '        identity: {}\n')),
      file(['secrets'], keyed('aescbc', '        aesgcm:\n          keys: [{name: x, secret: "${secret}"}]\n')),
      file(['secrets'], keyed('secretbox', '        kms: {name: p, endpoint: "unix:///x"}\n')),
      file(['secrets'], keyed('aesgcm', '      - bogus: {}\n')),
      file(['secrets', 'secrets'], keyed('aesgcm')),
      file(['Secrets'], keyed('aesgcm')),
      file(['secrets'], keyed('secretbox').replace(secret, key.subarray(0, 16).toString('base64'))),
      // Not YAML: the parser's message quotes the lines around the error.
      file(['secrets'], `      - aesgcm:\n          keys:\n            - name: k\n              secret: ${secret}: {{\n`),
      `${header}resources:\n  - resources: [secrets]\n    providers:\n      - aesgcm: {keys: [{name: k, secret: "${secret}"}]}\n     bad: [\n`,
      file(['secrets'], `      - aesgcm:\n          keys: [{name: k, secret: ["${secret}"]}]\n`),
    ];
    for (const text of refused) {
      let message: string | undefined;
      try {
        encryptionTransformers(parseEncryptionConfiguration(text));
      } catch (error) {
        message = `${(error as Error).message} ${(error as Error).stack ?? ''}`;
      }
      assert.ok(message !== undefined, `accepted: ${text}`);
      for (const form of forms) assert.ok(!message.includes(form), `the refusal holds the key: ${message}`);
    }
  });

  it('a KMS provider is refused when building: not supported here', () => {
    const config = parseEncryptionConfiguration(file(['secrets'], '      - kms:\n          name: p\n          endpoint: unix:///tmp/kms.sock\n'));
    assert.throws(() => encryptionTransformers(config), /could not configure KMS plugin "p": KMS providers are not supported by this server/);
  });
});

describe('encryption transformers from a configuration', () => {
  const context = Buffer.from('/registry/core/secrets/default/s1');
  const plain = Buffer.from('{"data":{"a":"b"}}');
  const config = parseEncryptionConfiguration(
    `${header}resources:\n  - resources: [secrets, configmaps]\n    providers:\n${aesgcm(KEY32, 'new')}      - secretbox:\n          keys: [{name: old, secret: "${KEY32}"}]\n      - identity: {}\n  - resources: ["*.example.com"]\n    providers:\n      - aescbc:\n          keys: [{name: k, secret: "${KEY16}"}]\n`,
  );

  it('the first provider and key write each listed resource; others are stored as they are', () => {
    const transformers = encryptionTransformers(config);
    assert.match(transformers.forKey('/core/secrets/default/s1')!.toStorage(plain, context).toString('latin1'), /^k8s:enc:aesgcm:v1:new:/);
    assert.match(transformers.forKey('/core/configmaps/default/c')!.toStorage(plain, context).toString('latin1'), /^k8s:enc:aesgcm:v1:new:/);
    assert.match(transformers.forKey('/example.com/widgets/default/w')!.toStorage(plain, context).toString('latin1'), /^k8s:enc:aescbc:v1:k:/);
    assert.equal(transformers.forKey('/core/serviceaccounts/default/a'), undefined);
  });

  it('reads what a later provider wrote, as stale; counts every transformation', async () => {
    const metrics = new TransformationMetrics();
    const registry = new Registry();
    metrics.register(new MetricsStability(registry));
    const secrets = encryptionTransformers(config, metrics).forKey('/core/secrets/default/s1')!;
    const secretboxOnly = encryptionTransformers(parseEncryptionConfiguration(file(['secrets'], `      - secretbox:\n          keys: [{name: old, secret: "${KEY32}"}]\n`)));
    const old = secretboxOnly.forKey('/core/secrets/default/s1')!.toStorage(plain, context);
    assert.match(old.toString('latin1'), /^k8s:enc:secretbox:v1:old:/);
    assert.deepEqual(secrets.fromStorage(old, context), { data: plain, stale: true });
    assert.deepEqual(secrets.fromStorage(plain, context), { data: plain, stale: true });
    secrets.fromStorage(secrets.toStorage(plain, context), context);
    const text = await registry.metrics();
    for (const line of [
      'apiserver_storage_transformation_operations_total{transformation_type="from_storage",transformer_prefix="k8s:enc:secretbox:v1:",status="OK"} 1',
      'apiserver_storage_transformation_operations_total{transformation_type="from_storage",transformer_prefix="identity",status="OK"} 1',
      'apiserver_storage_transformation_operations_total{transformation_type="to_storage",transformer_prefix="k8s:enc:aesgcm:v1:",status="OK"} 1',
      'apiserver_storage_transformation_operations_total{transformation_type="from_storage",transformer_prefix="k8s:enc:aesgcm:v1:",status="OK"} 1',
    ]) {
      assert.ok(text.includes(line), `${line}\n${text}`);
    }
    assert.match(text, /^# HELP apiserver_storage_transformation_operations_total \[ALPHA\] Total number of transformations\.$/m);
    assert.match(text, /apiserver_storage_transformation_duration_seconds_bucket\{le="0.000005",transformation_type="to_storage",transformer_prefix="k8s:enc:aesgcm:v1:"\}/);
  });
});
