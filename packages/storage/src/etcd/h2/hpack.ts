// HPACK (RFC 7541) for the etcd client's HTTP/2 connection: a full decoder (static and dynamic
// tables, Huffman strings, table size updates), since the server compresses as it likes; and the
// encoding of our requests' few headers as literals that are never indexed into a dynamic table,
// which the server then never has to keep for us.
import { huffmanDecode } from './huffman.js';

export type HeaderField = readonly [name: string, value: string];

export class HpackError extends Error {
  override readonly name = 'HpackError';
}

/** RFC 7541 Appendix A; index 1 first. */
const STATIC_TABLE: readonly HeaderField[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** For encoding: the static table's index of each name, and of each whole field with a value. */
const STATIC_NAME_INDEX = new Map<string, number>();
const STATIC_FIELD_INDEX = new Map<string, number>();
STATIC_TABLE.forEach(([name, value], i) => {
  if (!STATIC_NAME_INDEX.has(name)) STATIC_NAME_INDEX.set(name, i + 1);
  if (value) STATIC_FIELD_INDEX.set(`${name}\u0000${value}`, i + 1);
});

/** RFC 7541 4.1: an entry's size is its name's and value's octets plus 32. */
const entrySize = ([name, value]: HeaderField): number => name.length + value.length + 32;

/** The default SETTINGS_HEADER_TABLE_SIZE, which this client never changes. */
const DEFAULT_TABLE_SIZE = 4096;

export class HpackDecoder {
  /** Newest first: dynamic index 1 is the static table's length + 1. */
  private readonly dynamic: HeaderField[] = [];
  private size = 0;
  private maxSize: number;

  /** @param limit the SETTINGS_HEADER_TABLE_SIZE this side announced: the encoder may not exceed it. */
  constructor(private readonly limit = DEFAULT_TABLE_SIZE) {
    this.maxSize = limit;
  }

  /** Bytes the dynamic table holds now (RFC 7541 4.1), for tests. */
  get tableSize(): number {
    return this.size;
  }

  /** The dynamic table, newest first, for tests. */
  get table(): readonly HeaderField[] {
    return this.dynamic;
  }

  /** Decodes one complete header block. Any error leaves the connection's table unusable. */
  decode(block: Uint8Array): HeaderField[] {
    const fields: HeaderField[] = [];
    const reader = { block, position: 0 };
    while (reader.position < block.length) {
      const first = block[reader.position]!;
      if (first & 0x80) {
        fields.push(this.at(readInteger(reader, 7)));
      } else if (first & 0x40) {
        const field = this.readLiteral(reader, 6);
        this.add(field);
        fields.push(field);
      } else if (first & 0x20) {
        if (fields.length) throw new HpackError('a dynamic table size update after a header field');
        const size = readInteger(reader, 5);
        if (size > this.limit) throw new HpackError(`a dynamic table size of ${size} above the ${this.limit} allowed`);
        this.maxSize = size;
        this.evictTo(size);
      } else {
        // Without indexing (0000) or never indexed (0001): the same to a decoder.
        fields.push(this.readLiteral(reader, 4));
      }
    }
    return fields;
  }

  private at(index: number): HeaderField {
    if (index === 0) throw new HpackError('header index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const field = this.dynamic[index - STATIC_TABLE.length - 1];
    if (!field) throw new HpackError(`header index ${index} beyond the tables`);
    return field;
  }

  private readLiteral(reader: Reader, prefixBits: number): HeaderField {
    const index = readInteger(reader, prefixBits);
    const name = index === 0 ? readString(reader) : this.at(index)[0];
    return [name, readString(reader)];
  }

  private add(field: HeaderField): void {
    const size = entrySize(field);
    // RFC 7541 4.4: an entry larger than the table empties it and is not added.
    this.evictTo(Math.max(0, this.maxSize - size));
    if (size > this.maxSize) return;
    this.dynamic.unshift(field);
    this.size += size;
  }

  private evictTo(size: number): void {
    while (this.size > size) this.size -= entrySize(this.dynamic.pop()!);
  }
}

interface Reader {
  block: Uint8Array;
  position: number;
}

/** RFC 7541 5.1: an integer in the low `prefixBits` of the current octet and continuation octets. */
function readInteger(reader: Reader, prefixBits: number): number {
  const { block } = reader;
  const mask = (1 << prefixBits) - 1;
  let value = block[reader.position++]! & mask;
  if (value < mask) return value;
  for (let shift = 0; ; shift += 7) {
    if (reader.position >= block.length) throw new HpackError('a truncated integer');
    if (shift > 28) throw new HpackError('an integer too large');
    const byte = block[reader.position++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (!(byte & 0x80)) return value;
  }
}

/** RFC 7541 5.2: a length-prefixed string, Huffman-coded when the high bit says so. */
function readString(reader: Reader): string {
  if (reader.position >= reader.block.length) throw new HpackError('a truncated string');
  const huffman = (reader.block[reader.position]! & 0x80) !== 0;
  const length = readInteger(reader, 7);
  const start = reader.position;
  const end = start + length;
  if (end > reader.block.length) throw new HpackError('a truncated string');
  reader.position = end;
  return huffman ? huffmanDecode(reader.block, start, end) : Buffer.from(reader.block.buffer, reader.block.byteOffset + start, length).toString('latin1');
}

/** An integer with a `prefixBits` prefix whose higher bits are `pattern`. */
function integerBytes(value: number, prefixBits: number, pattern: number): number[] {
  const mask = (1 << prefixBits) - 1;
  if (value < mask) return [pattern | value];
  const bytes = [pattern | mask];
  value -= mask;
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  bytes.push(value);
  return bytes;
}

const stringBytes = (text: string): Buffer => {
  const octets = Buffer.from(text, 'latin1');
  return Buffer.concat([Buffer.from(integerBytes(octets.length, 7, 0)), octets]);
};

/**
 * Header fields as "literal header field without indexing" (RFC 7541 6.2.2), the name by its
 * static index where it has one; a field whose name and value are both in the static table is
 * indexed (6.1).
 */
export function encodeHeaders(fields: readonly HeaderField[]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    const exact = STATIC_FIELD_INDEX.get(`${name}\u0000${value}`);
    if (exact) {
      parts.push(Buffer.from(integerBytes(exact, 7, 0x80)));
      continue;
    }
    const nameIndex = STATIC_NAME_INDEX.get(name);
    if (nameIndex) parts.push(Buffer.from(integerBytes(nameIndex, 4, 0)), stringBytes(value));
    else parts.push(Buffer.from([0]), stringBytes(name), stringBytes(value));
  }
  return Buffer.concat(parts);
}
