import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HpackDecoder, HpackError, encodeHeaders, type HeaderField } from './hpack.js';
import { HuffmanError, huffmanDecode } from './huffman.js';

const dehex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// The examples of RFC 7541 Appendix C: each step's block, the header list, and the dynamic table
// after it (newest first) with its size.
interface Step {
  block: string;
  fields: HeaderField[];
  table: HeaderField[];
  size: number;
}

const requests = (authority: HeaderField, cacheControl: HeaderField, customKey: HeaderField) => ({
  fields: [
    [
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ],
    [
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
      ['cache-control', 'no-cache'],
    ],
    [
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ],
  ] as HeaderField[][],
  tables: [[authority], [cacheControl, authority], [customKey, cacheControl, authority]],
  sizes: [57, 110, 164],
});

const responses = {
  fields: [
    [
      [':status', '302'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['location', 'https://www.example.com'],
    ],
    [
      [':status', '307'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['location', 'https://www.example.com'],
    ],
    [
      [':status', '200'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
      ['location', 'https://www.example.com'],
      ['content-encoding', 'gzip'],
      ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
    ],
  ] as HeaderField[][],
  tables: [
    [
      ['location', 'https://www.example.com'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['cache-control', 'private'],
      [':status', '302'],
    ],
    [
      [':status', '307'],
      ['location', 'https://www.example.com'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['cache-control', 'private'],
    ],
    [
      ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
      ['content-encoding', 'gzip'],
      ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
    ],
  ] as HeaderField[][],
  sizes: [222, 222, 215],
};

const steps = (blocks: string[], series: { fields: HeaderField[][]; tables: HeaderField[][]; sizes: number[] }): Step[] =>
  blocks.map((block, i) => ({ block, fields: series.fields[i]!, table: series.tables[i]!, size: series.sizes[i]! }));

const request = requests([':authority', 'www.example.com'], ['cache-control', 'no-cache'], ['custom-key', 'custom-value']);
const series: { name: string; tableSize: number; steps: Step[] }[] = [
  {
    name: 'C.3 requests without Huffman coding',
    tableSize: 4096,
    steps: steps(
      ['8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d', '8286 84be 5808 6e6f 2d63 6163 6865', '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65'],
      { fields: request.fields, tables: request.tables, sizes: request.sizes },
    ),
  },
  {
    name: 'C.4 requests with Huffman coding',
    tableSize: 4096,
    steps: steps(
      ['8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff', '8286 84be 5886 a8eb 1064 9cbf', '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'],
      { fields: request.fields, tables: request.tables, sizes: request.sizes },
    ),
  },
  {
    name: 'C.5 responses without Huffman coding, evicting from a 256-byte table',
    tableSize: 256,
    steps: steps(
      [
        '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
        '4803 3330 37c1 c0bf',
        '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31',
      ],
      responses,
    ),
  },
  {
    name: 'C.6 responses with Huffman coding, evicting from a 256-byte table',
    tableSize: 256,
    steps: steps(
      [
        '4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3',
        '4883 640e ffc1 c0bf',
        '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
      ],
      responses,
    ),
  },
];

describe('HPACK decoding: RFC 7541 Appendix C', () => {
  for (const { name, tableSize, steps: stepList } of series) {
    it(name, () => {
      const decoder = new HpackDecoder(tableSize);
      stepList.forEach((step, i) => {
        assert.deepEqual(decoder.decode(dehex(step.block)), step.fields, `step ${i + 1}`);
        assert.deepEqual(decoder.table, step.table, `table after step ${i + 1}`);
        assert.equal(decoder.tableSize, step.size, `table size after step ${i + 1}`);
      });
    });
  }

  const single: { name: string; block: string; fields: HeaderField[]; table: HeaderField[] }[] = [
    { name: 'C.2.1 literal with indexing', block: '400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572', fields: [['custom-key', 'custom-header']], table: [['custom-key', 'custom-header']] },
    { name: 'C.2.2 literal without indexing', block: '040c 2f73 616d 706c 652f 7061 7468', fields: [[':path', '/sample/path']], table: [] },
    { name: 'C.2.3 literal never indexed', block: '1008 7061 7373 776f 7264 0673 6563 7265 74', fields: [['password', 'secret']], table: [] },
    { name: 'C.2.4 indexed', block: '82', fields: [[':method', 'GET']], table: [] },
  ];
  for (const { name, block, fields, table } of single) {
    it(name, () => {
      const decoder = new HpackDecoder();
      assert.deepEqual(decoder.decode(dehex(block)), fields);
      assert.deepEqual(decoder.table, table);
    });
  }
});

describe('HPACK decoding: malformed blocks', () => {
  const cases: { name: string; block: string; limit?: number }[] = [
    { name: 'index 0', block: '80' },
    { name: 'an index beyond both tables', block: 'be' },
    { name: 'a truncated integer', block: 'ff' },
    { name: 'a string longer than the block', block: '0408 2f61' },
    { name: 'a table size update above the announced limit', block: '3fe21f', limit: 4096 },
    { name: 'a table size update after a field', block: '8220' },
  ];
  for (const { name, block, limit } of cases) {
    it(name, () => assert.throws(() => new HpackDecoder(limit).decode(dehex(block)), HpackError));
  }

  it('a table size update evicts, and later entries fit the new size', () => {
    const decoder = new HpackDecoder();
    decoder.decode(dehex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'));
    assert.equal(decoder.tableSize, 55);
    // Size update to 0 empties the table; then an indexed field.
    assert.deepEqual(decoder.decode(dehex('20 82')), [[':method', 'GET']]);
    assert.equal(decoder.tableSize, 0);
    assert.throws(() => decoder.decode(dehex('be')), HpackError);
  });
});

describe('Huffman decoding', () => {
  const valid: [string, string][] = [
    ['f1e3 c2e5 f23a 6ba0 ab90 f4ff', 'www.example.com'],
    ['a8eb 1064 9cbf', 'no-cache'],
    ['6402', '302'],
    ['9bd9 ab', 'gzip'],
    ['9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3', 'https://www.example.com'],
  ];
  for (const [hex, text] of valid) it(`${hex} -> ${text}`, () => assert.equal(huffmanDecode(dehex(hex)), text));

  const invalid: [string, string][] = [
    ['ff', 'padding of 8 bits'],
    ['1fff', "'a' and a byte of padding too many"],
    ['00', 'padding that is not all ones'],
    ['ffff fffc', 'EOS inside the string'],
  ];
  for (const [hex, what] of invalid) it(`refuses ${what}`, () => assert.throws(() => huffmanDecode(dehex(hex)), HuffmanError));
});

describe('HPACK encoding of request headers', () => {
  it('round-trips through the decoder and leaves no dynamic table behind', () => {
    const fields: HeaderField[] = [
      [':method', 'POST'],
      [':scheme', 'http'],
      [':path', '/etcdserverpb.KV/Range'],
      [':authority', '127.0.0.1:2379'],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ['grpc-timeout', `${'9'.repeat(200)}m`],
    ];
    const decoder = new HpackDecoder();
    assert.deepEqual(decoder.decode(encodeHeaders(fields)), fields);
    assert.equal(decoder.tableSize, 0);
  });

  it('indexes a field that is whole in the static table', () => assert.equal(encodeHeaders([[':method', 'POST']]).toString('hex'), '83'));
});
