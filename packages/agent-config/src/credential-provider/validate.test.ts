import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecodeError } from '../decode/problems.js';
import { writeExecutable } from '../testing.js';
import { decodeCredentialProviderConfig } from './codec.js';
import { BinDirError, checkProviderBinaries } from './provider-binaries.js';
import type { CredentialProvider, CredentialProviderConfig } from './schema.js';
import { validateCredentialProviderConfig } from './validate.js';

const good: CredentialProvider = {
  name: 'ecr-credential-provider',
  matchImages: ['*.dkr.ecr.*.amazonaws.com', 'registry.io:5000/team'],
  defaultCacheDuration: 12 * 60 * 60 * 1000,
  apiVersion: 'credentialprovider.agent.plat.io/v1',
  args: ['get-credentials'],
  env: [{ name: 'AWS_PROFILE', value: 'node' }],
};

const withProvider = (change: Partial<CredentialProvider>): CredentialProviderConfig => ({ providers: [{ ...good, ...change }] });

const rules: { rule: string; valid: CredentialProviderConfig; invalid: CredentialProviderConfig; field: string }[] = [
  { rule: 'providers are required', valid: { providers: [good] }, invalid: { providers: [] }, field: 'providers' },
  { rule: 'name is required', valid: withProvider({ name: 'a' }), invalid: withProvider({ name: '' }), field: 'providers[0].name' },
  { rule: 'name has no slash', valid: withProvider({ name: 'gcp-auth' }), invalid: withProvider({ name: '../bin/sh' }), field: 'providers[0].name' },
  { rule: 'name has no spaces', valid: withProvider({ name: 'acr_helper' }), invalid: withProvider({ name: 'acr helper' }), field: 'providers[0].name' },
  { rule: 'name is not . or ..', valid: withProvider({ name: '.hidden' }), invalid: withProvider({ name: '..' }), field: 'providers[0].name' },
  { rule: 'names are unique', valid: { providers: [good, { ...good, name: 'other' }] }, invalid: { providers: [good, good] }, field: 'providers[1].name' },
  { rule: 'apiVersion is required', valid: withProvider({ apiVersion: 'credentialprovider.agent.plat.io/v1beta1' }), invalid: withProvider({ apiVersion: '' }), field: 'providers[0].apiVersion' },
  { rule: 'apiVersion is supported', valid: withProvider({ apiVersion: 'credentialprovider.agent.plat.io/v1alpha1' }), invalid: withProvider({ apiVersion: 'credentialprovider.kubelet.k8s.io/v1' }), field: 'providers[0].apiVersion' },
  { rule: 'matchImages are required', valid: withProvider({ matchImages: ['gcr.io'] }), invalid: withProvider({ matchImages: [] }), field: 'providers[0].matchImages' },
  { rule: 'matchImages are valid patterns', valid: withProvider({ matchImages: ['*.gcr.io', 'k8s.*'] }), invalid: withProvider({ matchImages: ['gcr.io', 'registry.io/*/team'] }), field: 'providers[0].matchImages[1]' },
  { rule: 'matchImages have no glob in the port', valid: withProvider({ matchImages: ['registry.io:443'] }), invalid: withProvider({ matchImages: ['registry.io:*'] }), field: 'providers[0].matchImages[0]' },
  { rule: 'defaultCacheDuration is required', valid: withProvider({ defaultCacheDuration: 0 }), invalid: { providers: [{ name: 'p', matchImages: ['gcr.io'], apiVersion: 'credentialprovider.agent.plat.io/v1' }] }, field: 'providers[0].defaultCacheDuration' },
  { rule: 'defaultCacheDuration is not negative', valid: withProvider({ defaultCacheDuration: 1000 }), invalid: withProvider({ defaultCacheDuration: -1000 }), field: 'providers[0].defaultCacheDuration' },
  { rule: 'env names are required', valid: withProvider({ env: [{ name: 'A', value: '' }] }), invalid: withProvider({ env: [{ name: '', value: 'x' }] }), field: 'providers[0].env[0].name' },
  { rule: 'env values are required', valid: withProvider({ env: [{ name: 'A', value: 'x' }] }), invalid: withProvider({ env: [{ name: 'A' }] }), field: 'providers[0].env[0].value' },
];

for (const { rule, valid, invalid, field } of rules) {
  test(`credential provider validation: ${rule}: valid`, () => {
    assert.deepEqual(validateCredentialProviderConfig(valid).map(String), []);
  });
  test(`credential provider validation: ${rule}: invalid at ${field}`, () => {
    const errors = validateCredentialProviderConfig(invalid);
    assert.ok(errors.some((error) => error.field === field), `expected an error at ${field}, got:\n  ${errors.map(String).join('\n  ') || '(none)'}`);
  });
}

// Each rule's whole message; durations print as Go prints them (time.Duration's String), not as milliseconds.
const messageCases: { name: string; config: CredentialProviderConfig; errors: string[] }[] = [
  { name: 'a negative defaultCacheDuration', config: withProvider({ defaultCacheDuration: -60_000 }), errors: ['providers[0].defaultCacheDuration: Invalid value: "-1m0s": must be greater than or equal to 0'] },
  { name: 'a negative defaultCacheDuration under a second', config: withProvider({ defaultCacheDuration: -1.5 }), errors: ['providers[0].defaultCacheDuration: Invalid value: "-1.5ms": must be greater than or equal to 0'] },
  { name: 'a negative defaultCacheDuration of hours', config: withProvider({ defaultCacheDuration: -(90 * 60_000 + 500) }), errors: ['providers[0].defaultCacheDuration: Invalid value: "-1h30m0.5s": must be greater than or equal to 0'] },
];

for (const { name, config, errors } of messageCases) {
  test(`credential provider validation message: ${name}`, () => {
    assert.deepEqual(validateCredentialProviderConfig(config).map(String), errors);
  });
}

test('credential provider validation: messages', () => {
  const errors = validateCredentialProviderConfig({ providers: [{ name: 'a b', matchImages: ['registry.io:x'], apiVersion: 'v9' }] });
  assert.deepEqual(errors.map(String), [
    'providers[0].name: Invalid value: "a b": provider name cannot contain spaces',
    'providers[0].apiVersion: Unsupported value: "v9": supported values: "credentialprovider.agent.plat.io/v1", "credentialprovider.agent.plat.io/v1beta1", "credentialprovider.agent.plat.io/v1alpha1"',
    'providers[0].matchImages[0]: Invalid value: "registry.io:x": match image is invalid: invalid port "x"',
    'providers[0].defaultCacheDuration: Required value',
  ]);
});

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

test('provider binaries: each name is an executable file in the bin dir', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-bins-'));
  dirs.push(dir);
  await writeExecutable(dir, 'present', '#!/bin/sh\n');
  await writeFile(join(dir, 'not-executable'), '#!/bin/sh\n');
  const config: CredentialProviderConfig = {
    providers: ['present', 'missing', 'not-executable'].map((name) => ({ ...good, name })),
  };
  assert.deepEqual(checkProviderBinaries(config, dir).map(String), [
    `providers[1].name: Invalid value: "missing": plugin binary executable ${join(dir, 'missing')} did not exist`,
    `providers[2].name: Invalid value: "not-executable": plugin binary ${join(dir, 'not-executable')} is not executable`,
  ]);
});

test('provider binaries: a missing bin dir is one error', () => {
  assert.throws(() => checkProviderBinaries({ providers: [good] }, '/nonexistent/plat-bins'), new BinDirError('plugin binary directory /nonexistent/plat-bins did not exist'));
});

test('decode: a CredentialProviderConfig in YAML', () => {
  const config = decodeCredentialProviderConfig(`apiVersion: agent.config.plat.io/v1beta1
kind: CredentialProviderConfig
providers:
- name: ecr-credential-provider
  matchImages: ["*.dkr.ecr.*.amazonaws.com"]
  defaultCacheDuration: 12h
  apiVersion: credentialprovider.agent.plat.io/v1
  args: [get-credentials]
  env:
  - {name: AWS_PROFILE, value: node}
`);
  assert.deepEqual(config, {
    apiVersion: 'agent.config.plat.io/v1beta1',
    kind: 'CredentialProviderConfig',
    providers: [{ ...good, matchImages: ['*.dkr.ecr.*.amazonaws.com'] }],
  });
});

test('decode: unknown and duplicate fields in a CredentialProviderConfig', () => {
  try {
    decodeCredentialProviderConfig(`apiVersion: agent.config.plat.io/v1beta1
kind: CredentialProviderConfig
providers:
- name: p
  name: q
  matchImage: [gcr.io]
  env: [{name: A, value: b, secret: true}]
`);
    assert.fail('expected a DecodeError');
  } catch (error) {
    assert.ok(error instanceof DecodeError);
    assert.deepEqual(error.problems.map(String), ['duplicate field "providers[0].name"', 'unknown field "providers[0].matchImage"', 'unknown field "providers[0].env[0].secret"']);
  }
});
