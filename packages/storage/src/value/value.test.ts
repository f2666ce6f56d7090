import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import { AesCbcTransformer, AesGcmTransformer } from './aes.js';
import { SecretboxTransformer } from './secretbox.js';
import { identityTransformer } from './identity.js';
import { PrefixTransformers } from './prefix-transformers.js';
import { ResourceTransformers } from './resource-transformers.js';
import type { ValueTransformer } from './transformer.js';

const context = Buffer.from('/registry/core/secrets/default/s1');
const plain = Buffer.from('{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}');

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('aesgcm', () => {
  for (const size of [16, 24, 32]) {
    it(`AES-${size * 8}: nonce (12) | ciphertext | tag (16), bound to the key as authenticated data`, () => {
      const key = randomBytes(size);
      const stored = new AesGcmTransformer(key).toStorage(plain, context);
      assert.equal(stored.length, 12 + plain.length + 16);
      assert.equal(stored.indexOf(plain), -1);
      // The layout, read without our code: what upstream's Go reads.
      const decipher = createDecipheriv(`aes-${size * 8}-gcm` as CipherGCMTypes, key, stored.subarray(0, 12));
      decipher.setAAD(context);
      decipher.setAuthTag(stored.subarray(stored.length - 16));
      assert.deepEqual(Buffer.concat([decipher.update(stored.subarray(12, stored.length - 16)), decipher.final()]), plain);
      assert.deepEqual(new AesGcmTransformer(key).fromStorage(stored, context), { data: plain, stale: false });
    });
  }
  const key = randomBytes(32);
  const stored = new AesGcmTransformer(key).toStorage(plain, context);
  const cases: { name: string; transformer: ValueTransformer; data: Buffer; context: Buffer; error: string }[] = [
    { name: 'another key', transformer: new AesGcmTransformer(randomBytes(32)), data: stored, context, error: 'cipher: message authentication failed' },
    { name: 'moved to another object', transformer: new AesGcmTransformer(key), data: stored, context: Buffer.from('/registry/core/secrets/default/s2'), error: 'cipher: message authentication failed' },
    { name: 'a flipped bit', transformer: new AesGcmTransformer(key), data: Buffer.from(stored).fill(stored[20]! ^ 1, 20, 21), context, error: 'cipher: message authentication failed' },
    { name: 'shorter than a nonce', transformer: new AesGcmTransformer(key), data: stored.subarray(0, 11), context, error: 'the stored data was shorter than the required size' },
    { name: 'no room for a tag', transformer: new AesGcmTransformer(key), data: stored.subarray(0, 20), context, error: 'cipher: message authentication failed' },
  ];
  for (const { name, transformer, data, context: ctx, error } of cases) {
    it(`refuses ${name}`, () => assert.throws(() => transformer.fromStorage(data, ctx), { message: error }));
  }
});

describe('aescbc', () => {
  it('IV (16) | ciphertext padded as PKCS#7, not bound to the key', () => {
    const key = randomBytes(32);
    const stored = new AesCbcTransformer(key).toStorage(plain);
    assert.equal(stored.length, 16 + (Math.floor(plain.length / 16) + 1) * 16);
    const decipher = createDecipheriv('aes-256-cbc', key, stored.subarray(0, 16));
    assert.deepEqual(Buffer.concat([decipher.update(stored.subarray(16)), decipher.final()]), plain);
    assert.deepEqual(new AesCbcTransformer(key).fromStorage(stored).data, plain);
    // A whole block of padding when the value fills its blocks.
    assert.equal(new AesCbcTransformer(key).toStorage(Buffer.alloc(32)).length, 16 + 48);
  });
  const key = randomBytes(16);
  /** A value whose last plaintext block is `block`, padded by hand (or not). */
  const raw = (block: Buffer): Buffer => {
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-128-cbc', key, iv).setAutoPadding(false);
    return Buffer.concat([iv, cipher.update(block), cipher.final()]);
  };
  const cases: { name: string; data: Buffer; error: string }[] = [
    { name: 'shorter than an IV', data: randomBytes(15), error: 'the stored data was shorter than the required size' },
    { name: 'not whole blocks', data: randomBytes(16 + 17), error: 'the stored data is not a multiple of the block size' },
    { name: 'a zero padding byte', data: raw(Buffer.alloc(16)), error: 'invalid PKCS7 data (empty or not padded)' },
    { name: 'padding longer than the value', data: raw(Buffer.alloc(16, 17)), error: 'invalid PKCS7 data (empty or not padded)' },
    { name: 'padding bytes that differ', data: raw(Buffer.from([...Buffer.alloc(13, 65), 1, 2, 3])), error: 'invalid padding on input' },
  ];
  for (const { name, data, error } of cases) {
    it(`refuses ${name}`, () => assert.throws(() => new AesCbcTransformer(key).fromStorage(data), { message: error }));
  }
  it('an IV only: no data, no padding', () => {
    assert.throws(() => new AesCbcTransformer(key).fromStorage(randomBytes(16)), { message: 'invalid PKCS7 data (empty or not padded)' });
  });
});

describe('secretbox (XSalsa20-Poly1305)', () => {
  // NaCl's secretbox test vector (tests/secretbox.c: firstkey, nonce, m -> c).
  const key = hex('1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389');
  const nonce = hex('69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37');
  const message = hex(`be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f93776384864 5e0705`);
  const box = hex(`f3ffc7703f9400e52a7dfb4b3d3305d98e993b9f48681273c29650ba32fc76ce48332ea7164d96a4476fb8c531a1186ac0dfc17c98dce87b4da7f011ec48c97271d2c20f9b928fe2270d6fb863d51738b48eeee314a7cc8ab932164548e526ae90224368517acfeabd6bb3732bc0e9da99832b61ca01b6de56244a9e88d5f9b37973f622a43d14a6599b1f654cb45a74e355a5`);

  it('opens NaCl\'s vector: nonce (24) | tag (16) | ciphertext', () => {
    const opened = new SecretboxTransformer(key).fromStorage(Buffer.concat([nonce, box]));
    assert.deepEqual(opened.data, message);
  });
  it('seals to the same layout with a fresh nonce', () => {
    const stored = new SecretboxTransformer(key).toStorage(plain);
    assert.equal(stored.length, 24 + 16 + plain.length);
    assert.deepEqual(new SecretboxTransformer(key).fromStorage(stored).data, plain);
    assert.notDeepEqual(new SecretboxTransformer(key).toStorage(plain).subarray(0, 24), stored.subarray(0, 24));
  });
  it('refuses another key, a flipped bit, a short value; wants a 32-byte key', () => {
    const stored = new SecretboxTransformer(key).toStorage(plain);
    const opened = /output array was not large enough for encryption/;
    assert.throws(() => new SecretboxTransformer(randomBytes(32)).fromStorage(stored), opened);
    assert.throws(() => new SecretboxTransformer(key).fromStorage(Buffer.from(stored).fill(stored[50]! ^ 4, 50, 51)), opened);
    assert.throws(() => new SecretboxTransformer(key).fromStorage(stored.subarray(0, 39)), /shorter than the required size/);
    assert.throws(() => new SecretboxTransformer(randomBytes(16)), /expected key size 32 for secretbox provider, got 16/);
  });
});

describe('identity', () => {
  it('stores values as they are and refuses encrypted ones', () => {
    assert.equal(identityTransformer.toStorage(plain, context), plain);
    assert.deepEqual(identityTransformer.fromStorage(plain, context), { data: plain, stale: false });
    assert.throws(() => identityTransformer.fromStorage(Buffer.from('k8s:enc:aescbc:v1:key1:xyz'), context), {
      message: 'identity transformer tried to read encrypted data',
    });
  });
});

/** A provider as the apiserver builds one: its keys behind their names, behind its prefix. */
function provider(name: string, keys: [string, ValueTransformer][]) {
  return {
    prefix: `k8s:enc:${name}:v1:`,
    name: `provider ${name}`,
    transformer: new PrefixTransformers(
      keys.map(([keyName, transformer]) => ({ prefix: `${keyName}:`, name: `key "${keyName}"`, transformer })),
      'no matching key was found for the provided AES transformer',
    ),
  };
}
const identity = { prefix: '', name: 'provider identity', transformer: identityTransformer };

describe('prefix transformers', () => {
  const key1 = new AesGcmTransformer(randomBytes(32));
  const key2 = new AesGcmTransformer(randomBytes(32));

  it('the first provider and key write, under k8s:enc:<provider>:v1:<key>:', () => {
    const chain = new PrefixTransformers([provider('aesgcm', [['key2', key2], ['key1', key1]]), identity], 'no matching prefix found');
    const stored = chain.toStorage(plain, context);
    assert.equal(stored.subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key2:');
    assert.deepEqual(key2.fromStorage(stored.subarray(23), context).data, plain);
    assert.deepEqual(chain.fromStorage(stored, context), { data: plain, stale: false });
  });

  it('every listed provider and key reads; anything not written by the first is stale', () => {
    const old = new PrefixTransformers([provider('aesgcm', [['key1', key1]]), identity], 'no matching prefix found');
    const rotated = new PrefixTransformers([provider('aesgcm', [['key2', key2], ['key1', key1]]), identity], 'no matching prefix found');
    const cases: { name: string; stored: Buffer; stale: boolean }[] = [
      { name: 'the old key', stored: old.toStorage(plain, context), stale: true },
      { name: 'the new key', stored: rotated.toStorage(plain, context), stale: false },
      { name: 'clear text, by identity', stored: plain, stale: true },
    ];
    for (const { name, stored, stale } of cases) assert.deepEqual(rotated.fromStorage(stored, context), { data: plain, stale }, name);
  });

  it('identity first (migrating away) writes clear text and passes encrypted values on', () => {
    const chain = new PrefixTransformers([identity, provider('aesgcm', [['key1', key1]])], 'no matching prefix found');
    assert.equal(chain.toStorage(plain, context), plain);
    const encrypted = new PrefixTransformers([provider('aesgcm', [['key1', key1]])], 'x').toStorage(plain, context);
    assert.deepEqual(chain.fromStorage(encrypted, context), { data: plain, stale: true });
  });

  it('the same provider twice with other keys: each is tried before failing', () => {
    const chain = new PrefixTransformers([provider('aesgcm', [['k', key2]]), provider('aesgcm', [['k', key1]])], 'no matching prefix found');
    const stored = new PrefixTransformers([provider('aesgcm', [['k', key1]])], 'x').toStorage(plain, context);
    assert.deepEqual(chain.fromStorage(stored, context), { data: plain, stale: true });
  });

  it('fails naming the provider and the key, never with other bytes', () => {
    const stored = new PrefixTransformers([provider('aesgcm', [['key1', key1]])], 'x').toStorage(plain, context);
    const wrongKey = new PrefixTransformers([provider('aesgcm', [['key1', key2]])], 'no matching prefix found');
    assert.throws(() => wrongKey.fromStorage(stored, context), {
      message: 'provider aesgcm: key "key1": cipher: message authentication failed',
    });
    const otherName = new PrefixTransformers([provider('aesgcm', [['key9', key1]])], 'no matching prefix found');
    assert.throws(() => otherName.fromStorage(stored, context), {
      message: 'provider aesgcm: no matching key was found for the provided AES transformer',
    });
    const otherProvider = new PrefixTransformers([provider('aescbc', [['key1', new AesCbcTransformer(randomBytes(32))]])], 'no matching prefix found');
    assert.throws(() => otherProvider.fromStorage(stored, context), { message: 'no matching prefix found' });
    const both = new PrefixTransformers([provider('aesgcm', [['key1', key2]]), provider('aesgcm', [['key1', key2]])], 'no matching prefix found');
    assert.throws(() => both.fromStorage(stored, context), /^Error: \[provider aesgcm: key "key1": cipher: message authentication failed, provider aesgcm/);
  });

  it('reports each transformation with upstream\'s labels', () => {
    const seen: string[] = [];
    const observer = { observe: (type: string, prefix: string, _seconds: number, error: unknown) => seen.push(`${type} ${prefix} ${error ? 'error' : 'OK'}`) };
    const chain = new PrefixTransformers([provider('aesgcm', [['key1', key1]]), identity], 'no matching prefix found', observer);
    chain.fromStorage(chain.toStorage(plain, context), context);
    chain.fromStorage(plain, context);
    const wrong = new PrefixTransformers([provider('aesgcm', [['key1', key2]])], 'no matching prefix found', observer);
    assert.throws(() => wrong.fromStorage(chain.toStorage(plain, context), context));
    assert.throws(() => wrong.fromStorage(Buffer.from('k8s:enc:kms:v2:x'), context));
    assert.deepEqual(seen, [
      'to_storage k8s:enc:aesgcm:v1: OK',
      'from_storage k8s:enc:aesgcm:v1: OK',
      'from_storage identity OK',
      'to_storage k8s:enc:aesgcm:v1: OK',
      'from_storage k8s:enc:aesgcm:v1: error',
      'from_storage unknown error',
    ]);
  });
});

describe('resource transformers', () => {
  const named = (name: string): ValueTransformer => ({ ...identityTransformer, toString: () => name }) as ValueTransformer;
  const secrets = named('secrets');
  const core = named('core');
  const apps = named('apps');
  const any = named('any');
  const transformers = new ResourceTransformers([
    [{ group: '', resource: 'secrets' }, secrets],
    [{ group: '', resource: '*' }, core],
    [{ group: 'apps', resource: '*' }, apps],
    [{ group: '*', resource: '*' }, any],
  ]);
  const cases: { key: string; want: ValueTransformer | undefined }[] = [
    { key: '/core/secrets/default/s1', want: secrets },
    { key: '/core/configmaps/default/c1', want: core },
    { key: '/apps/deployments/default/d', want: apps },
    { key: '/example.com/widgets/default/w', want: any },
    { key: '/nokey', want: undefined },
  ];
  for (const { key, want } of cases) {
    it(`${key}: exact, then *.<group>, then *.*`, () => {
      assert.equal(transformers.forKey(key), want);
      assert.equal(transformers.forKey(key), want, 'again, from the cache');
    });
  }
  it('resources not listed are stored as they are', () => {
    const only = new ResourceTransformers([[{ group: '', resource: 'secrets' }, secrets]]);
    assert.equal(only.forKey('/core/configmaps/default/c1'), undefined);
    assert.equal(only.forResource('example.com', 'widgets'), undefined);
  });
});
