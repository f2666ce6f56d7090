import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchesImage, parseImagePattern, registryOf } from './match-image.js';

// [pattern, image, matches]
const matchCases: [string, string, boolean][] = [
  // Plain domains.
  ['gcr.io', 'gcr.io', true],
  ['gcr.io', 'gcr.io/project/image', true],
  ['gcr.io', 'gcr.io/project/image:v1', true],
  ['gcr.io', 'gcr.io/project/image@sha256:0123abcd', true],
  ['gcr.io', 'us.gcr.io/project/image', false],
  ['gcr.io', 'gcr.com/image', false],
  ['123456789.dkr.ecr.us-east-1.amazonaws.com', '123456789.dkr.ecr.us-east-1.amazonaws.com/repo', true],
  ['123456789.dkr.ecr.us-east-1.amazonaws.com', '987654321.dkr.ecr.us-east-1.amazonaws.com/repo', false],
  // A leading glob matches one subdomain segment, never several or none.
  ['*.azurecr.io', 'myregistry.azurecr.io/image', true],
  ['*.azurecr.io', 'azurecr.io/image', false],
  ['*.azurecr.io', 'a.b.azurecr.io/image', false],
  ['*.io', 'k8s.io', true],
  ['*.io', 'registry.k8s.io', false],
  // Interior globs and several globs.
  ['k8s.*.io', 'k8s.registry.io/pause', true],
  ['k8s.*.io', 'k8s.io/pause', false],
  ['*.*.registry.io', 'a.b.registry.io/x', true],
  ['*.*.registry.io', 'a.registry.io/x', false],
  // Top-level-domain globs.
  ['k8s.*', 'k8s.io', true],
  ['k8s.*', 'k8s.example.io', false],
  ['*', 'localhost/image', true],
  ['*', 'registry.io/image', false],
  // Partial-segment globs, single-character globs and character classes.
  ['app*.k8s.io', 'app1.k8s.io/x', true],
  ['app*.k8s.io', 'app.k8s.io/x', true],
  ['app*.k8s.io', 'web.k8s.io/x', false],
  ['registry?.io', 'registry1.io/x', true],
  ['registry?.io', 'registry12.io/x', false],
  ['registry[0-9].io', 'registry7.io/x', true],
  ['registry[0-9].io', 'registrya.io/x', false],
  ['registry[^0-9].io', 'registrya.io/x', true],
  // Ports must be equal: present in both or in neither.
  ['registry.io:8080', 'registry.io:8080/image', true],
  ['registry.io:8080', 'registry.io:9090/image', false],
  ['registry.io:8080', 'registry.io/image', false],
  ['registry.io', 'registry.io:8080/image', false],
  ['*.registry.io:5000/team', 'eu.registry.io:5000/team/app', true],
  // The pattern's path is a prefix of the image's path.
  ['registry.io/path', 'registry.io/path', true],
  ['registry.io/path', 'registry.io/path/image', true],
  ['registry.io/path', 'registry.io/pathology/image', true],
  ['registry.io/path', 'registry.io/other/image', false],
  ['registry.io/path', 'registry.io', false],
  ['registry.io:8080/path', 'registry.io:8080/path/image:latest', true],
  ['*.registry.io/team', 'eu.registry.io/team/app', true],
  ['*.registry.io/team', 'eu.registry.io/other/app', false],
  // Case matters, as with upstream's glob matching.
  ['Registry.io', 'registry.io/image', false],
  // IPv6 literals compare as written.
  ['[::1]:5000', '[::1]:5000/image', true],
  ['[::1]:5000', '[::2]:5000/image', false],
  ['[::1]', '[::1]/image', true],
  // An image whose first part does not parse as a domain (a tag without a registry) matches nothing.
  ['nginx', 'nginx:latest', false],
  ['localhost', 'localhost/image', true],
];

for (const [pattern, image, expected] of matchCases) {
  test(`matchImages ${JSON.stringify(pattern)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(image)}`, () => {
    assert.equal(matchesImage(pattern, image), expected);
  });
}

// [pattern, error or undefined when valid]
const patternCases: [string, string | undefined][] = [
  ['gcr.io', undefined],
  ['*.azurecr.io', undefined],
  ['registry.io:8080/path', undefined],
  ['registry[0-9].io', undefined],
  ['[::1]:5000', undefined],
  ['', 'the registry domain is required'],
  ['/path', 'the registry domain is required'],
  ['registry..io', 'the registry domain has an empty segment'],
  ['registry.io:*', 'globs are not allowed in the port'],
  ['registry.io:80*', 'globs are not allowed in the port'],
  ['registry.io:abc', 'invalid port "abc"'],
  ['registry.io:', 'the port is empty'],
  ['registry.io/*/image', 'globs are allowed only in the domain, not in the path'],
  ['registry.io/team?', 'globs are allowed only in the domain, not in the path'],
  ['registry[0-9.io', 'unterminated character class in "registry[0-9"'],
  ['regi stry.io', 'invalid character in domain segment "regi stry"'],
  ['registry].io', 'unexpected "]" in "registry]"'],
];

for (const [pattern, error] of patternCases) {
  test(`pattern ${JSON.stringify(pattern)} is ${error ? 'invalid' : 'valid'}`, () => {
    if (error) assert.throws(() => parseImagePattern(pattern), { message: error });
    else assert.doesNotThrow(() => parseImagePattern(pattern));
  });
}

test('an invalid pattern matches nothing', () => {
  assert.equal(matchesImage('registry.io:*', 'registry.io:80/image'), false);
});

test('the registry of an image is its first part, port included', () => {
  assert.equal(registryOf('registry.io:5000/team/app:v1'), 'registry.io:5000');
  assert.equal(registryOf('registry.io'), 'registry.io');
});
