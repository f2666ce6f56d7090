import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestContext } from '@plat/filters';
import { encodeBody } from './respond.js';

const ctx = (query: Record<string, string> = {}) => ({ query }) as unknown as RequestContext;

describe('encodeBody: lists with shared items', () => {
  const lists: { name: string; list: { apiVersion?: string; kind?: string; metadata?: object; items: object[] } }[] = [
    { name: 'no items', list: { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '3' }, items: [] } },
    {
      name: 'items with escapes and unicode, and a continue token',
      list: {
        apiVersion: 'v1',
        kind: 'ConfigMapList',
        metadata: { resourceVersion: '9', continue: 'eyJ2IjoxfQ', remainingItemCount: 4 },
        items: [{ metadata: { name: 'a' }, data: { text: 'line\nbreak "quoted" \u00e9\u2028' } }, { metadata: { name: 'b' }, data: {} }],
      },
    },
    { name: 'only items', list: { items: [{ metadata: { name: 'a' } }] } },
  ];
  for (const { name, list } of lists) {
    it(`writes what JSON.stringify writes: ${name}`, () => {
      assert.equal(encodeBody(ctx(), list, { type: 'json' }, true).body.toString(), JSON.stringify(list));
    });
  }

  it("keeps each item's JSON: an item encoded once is not encoded again", () => {
    const item = { metadata: { name: 'a', resourceVersion: '1' } };
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: {}, items: [item] };
    const first = encodeBody(ctx(), list, { type: 'json' }, true).body;
    // Shared items never change; if one did, the kept JSON would show that it was reused.
    item.metadata.resourceVersion = '2';
    assert.equal(encodeBody(ctx(), { ...list, metadata: { resourceVersion: '5' } }, { type: 'json' }, true).body.toString(), String(first).replace('"metadata":{}', '"metadata":{"resourceVersion":"5"}'));
    assert.match(String(encodeBody(ctx(), list, { type: 'json' }, false).body), /"resourceVersion":"2"/, 'without sharedItems every item is encoded');
  });

  it('indents with ?pretty as before', () => {
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: {}, items: [{ metadata: { name: 'a' } }] };
    assert.equal(encodeBody(ctx({ pretty: 'true' }), list, { type: 'json' }, true).body, `${JSON.stringify(list, null, 2)}\n`);
  });
});
