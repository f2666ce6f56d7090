// HPACK's Huffman code (RFC 7541, Appendix B), for decoding the header strings etcd's gRPC server
// compresses. The code is canonical: codes follow from the lengths alone, assigned in order of
// length and then of symbol, so only the lengths are kept here.

/** Code lengths in bits of the symbols 0-255, then of EOS (256). */
const CODE_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];
const EOS = 256;

export class HuffmanError extends Error {
  override readonly name = 'HuffmanError';
}

/** Each symbol's code, canonically assigned. */
function huffmanCodes(): { code: number; length: number }[] {
  const symbols = CODE_LENGTHS.map((length, symbol) => ({ symbol, length })).sort((a, b) => a.length - b.length || a.symbol - b.symbol);
  const codes = new Array<{ code: number; length: number }>(CODE_LENGTHS.length);
  let code = 0;
  let previous = symbols[0]!.length;
  symbols.forEach(({ symbol, length }, i) => {
    if (i > 0) code = (code + 1) * 2 ** (length - previous);
    previous = length;
    codes[symbol] = { code, length };
  });
  return codes;
}

/**
 * The decoding tree: node n's children are at 2n (bit 0) and 2n + 1 (bit 1); a child is another
 * node's index, or -(symbol + 1) for a leaf. 0 is no child (the root is never one).
 */
const TREE = (() => {
  const tree = new Int32Array(2 * CODE_LENGTHS.length);
  let nodes = 1;
  huffmanCodes().forEach(({ code, length }, symbol) => {
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + (Math.floor(code / 2 ** bit) % 2);
      if (bit === 0) tree[slot] = -(symbol + 1);
      else node = tree[slot] || (tree[slot] = nodes++);
    }
  });
  return tree;
})();

/** Decodes `bytes[start, end)` to a string of one character per octet. */
export function huffmanDecode(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = '';
  let node = 0;
  // Bits read since the last whole symbol, and whether all were ones (the only valid padding).
  let pending = 0;
  let allOnes = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      const next = TREE[2 * node + one]!;
      pending++;
      allOnes &&= one === 1;
      if (next < 0) {
        const symbol = -next - 1;
        if (symbol === EOS) throw new HuffmanError('a Huffman string holds EOS');
        out += String.fromCharCode(symbol);
        node = 0;
        pending = 0;
        allOnes = true;
      } else if (next === 0) {
        throw new HuffmanError('an invalid Huffman code');
      } else {
        node = next;
      }
    }
  }
  // RFC 7541 5.2: padding is shorter than 8 bits and the most significant bits of EOS.
  if (pending > 7 || !allOnes) throw new HuffmanError('invalid Huffman padding');
  return out;
}
