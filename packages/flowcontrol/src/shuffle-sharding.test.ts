import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Dealer, MAX_HASH_BITS, requiredEntropyBits } from './shuffle-sharding.js';
import { hashFlowID } from './flow-hash.js';

function dealer(deckSize: number, handSize: number): Dealer {
  const d = Dealer.create(deckSize, handSize);
  if (!(d instanceof Dealer)) throw new Error(d.error);
  return d;
}

describe('shuffle sharding (upstream shufflesharding_test.go)', () => {
  test('TestRequiredEntropyBits', () => {
    assert.equal(requiredEntropyBits(1024, 6), 60);
    assert.equal(requiredEntropyBits(512, 8), 72);
    assert.equal(MAX_HASH_BITS, 60);
  });

  test('TestNewDealer: upstream\'s errors, word for word', () => {
    const rows: Array<[number, number, string | null]> = [
      [-100, 8, 'deckSize -100 or handSize 8 is not positive'],
      [100, 0, 'deckSize 100 or handSize 0 is not positive'],
      [100, 101, 'handSize 101 is greater than deckSize 100'],
      [1 << 27, 2, 'deckSize 134217728 is impractically large'],
      [512, 8, 'required entropy bits of deckSize 512 and handSize 8 is greater than 60'],
      [1024, 6, null],
    ];
    for (const [deck, hand, error] of rows) {
      const got = Dealer.create(deck, hand);
      assert.deepEqual(got instanceof Dealer ? null : got.error, error, `${deck}/${hand}`);
    }
  });

  test('TestDealer_DealIntoHand: a hand always has handSize cards', () => {
    assert.equal(dealer(6, 6).deal(0n).length, 6);
  });

  test('hands worked out by hand from the successive remainders', () => {
    // hash 0: every remainder is 0; each card is pushed past the ones before it.
    assert.deepEqual(dealer(8, 3).deal(0n), [0, 1, 2]);
    // 253 = 5 + 8·(3 + 7·4): remainders 5, 3, 4. Card 2 (3) is below 5: stays 3. Card 3 (4) is
    // not below 3 (→5), then not below 5 (→6).
    assert.deepEqual(dealer(8, 3).deal(253n), [5, 3, 6]);
    // The same digits as a 64-bit value whose top bits the deal never reaches: the remainders of
    // 2^64-1 modulo 128, 127, 126, 125 are 127, 1, 6, 54 (as Python's integers also give).
    let h = (1n << 64n) - 1n;
    const rems: number[] = [];
    for (const d of [128n, 127n, 126n, 125n]) {
      rems.push(Number(h % d));
      h /= d;
    }
    assert.deepEqual(rems, [127, 1, 6, 54]);
    // 127; 1 (<127); 6 (≥1 →7, <127); 54 (≥6 →55, ≥1 →56, <127) → [127, 1, 7, 56].
    assert.deepEqual(dealer(128, 4).deal((1n << 64n) - 1n), [127, 1, 7, 56]);
  });

  test('TestCardDuplication: cards are in range and distinct', () => {
    const hashes = [0n, 1n, 0xdeadbeefcafebaben, (1n << 64n) - 1n, 1234567890123456789n];
    for (const [deck, hand] of [[4, 4], [8, 8], [10, 10], [12, 12], [128, 8], [256, 7], [512, 6]] as const) {
      for (const hash of hashes) {
        const cards = dealer(deck, hand).deal(hash);
        assert.equal(cards.length, hand);
        assert.equal(new Set(cards).size, hand);
        for (const c of cards) assert.ok(c >= 0 && c < deck);
      }
    }
  });

  test('TestUniformDistribution: hashes 0..n·ff(deck,hand) give every hand the same count', () => {
    // When the hash range is a multiple of the falling factorial, the deal is an exact mixed-radix
    // decoding: every ordered hand appears equally often, every unordered hand hand! times as often.
    for (const [deck, hand] of [[10, 3], [7, 4], [20, 2]] as const) {
      let ff = 1;
      for (let f = deck; f > deck - hand; f--) ff *= f;
      let perms = 1;
      for (let f = hand; f > 1; f--) perms *= f;
      const d = dealer(deck, hand);
      const counts = new Map<string, number>();
      for (let i = 0; i < 2 * ff; i++) {
        const key = d.deal(BigInt(i)).sort((a, b) => a - b).join(',');
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      assert.equal(counts.size, ff / perms);
      for (const count of counts.values()) assert.equal(count, 2 * perms);
    }
  });
});

describe('flow hash (upstream hashFlowID)', () => {
  test('first 8 bytes of sha256(fsName NUL distinguisher), little-endian', () => {
    // Expected digests from coreutils: printf 'catch-all\0alice' | sha256sum → 2c335f8f6cce8ad7…
    assert.equal(hashFlowID('catch-all', 'alice'), 0xd78ace6c8f5f332cn);
    assert.equal(hashFlowID('global-default', 'system:serviceaccount:ns:sa'), 0xbe7174e0fd994ca3n);
    assert.equal(hashFlowID('exempt', ''), 0xffa9e4a2537c0600n);
  });
});
