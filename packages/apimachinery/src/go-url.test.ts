import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoRequestURI, parseGoURL } from './go-url.js';

test('go url: the parts Go parses out', () => {
  assert.deepEqual(parseGoURL('https://user:pw@example.com:8443/a/b?x=1#frag'), {
    scheme: 'https',
    opaque: '',
    user: 'user:pw',
    host: 'example.com:8443',
    rawQuery: 'x=1',
    fragment: 'frag',
  });
  assert.deepEqual(parseGoURL(''), { scheme: '', opaque: '', host: '', rawQuery: '', fragment: '' });
  assert.equal(parseGoURL('mailto:someone').opaque, 'someone');
  assert.equal(parseGoURL('HTTPS://Example.com').scheme, 'https');
  assert.equal(parseGoURL('//example.com/x').host, 'example.com');
});

test('go url: what Go refuses, with its messages', () => {
  const refusals: [string, string][] = [
    [':foo', 'parse ":foo": missing protocol scheme'],
    ['x y:b/c', 'parse "x y:b/c": first path segment in URL cannot contain colon'],
    ['https://example.com:port/', 'parse "https://example.com:port/": invalid port ":port" after host'],
    ['https://example.com/%zz', 'parse "https://example.com/%zz": invalid URL escape "%zz"'],
    ['https://example.com/\n', 'parse "https://example.com/\\n": net/url: invalid control character in URL'],
  ];
  for (const [url, message] of refusals) assert.throws(() => parseGoURL(url), { message }, url);
});

test('go url: a request URI is absolute or a path, its fragment not split off', () => {
  assert.equal(parseGoRequestURI('https://github.com/kubernetes/enhancements/pull/1111')?.host, 'github.com');
  assert.equal(parseGoRequestURI('/pull/1')?.host, '');
  assert.equal(parseGoRequestURI('pull/1'), undefined);
  assert.equal(parseGoRequestURI(''), undefined);
  assert.equal(parseGoRequestURI('https://example.com/#x')?.fragment, '');
});
