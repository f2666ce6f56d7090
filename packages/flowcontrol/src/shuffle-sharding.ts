// Shuffle sharding (upstream's pkg/util/shufflesharding): a 64-bit hash deals a hand of distinct
// cards from a deck, so that each flow gets its own small set of queues. The deal must give the
// same hand as upstream for the same hash, so it is done in exact integer arithmetic (BigInt while
// the hash does not fit a double's 53 bits).

/** The bits of the hash a deal may use: with all 64, the last card would be uneven up to 2:3; with 60, to 32:33. */
export const MAX_HASH_BITS = 60;

/**
 * A quick, slightly conservative estimate of the hash bits consumed dealing handSize cards from
 * deckSize; meaningful for 1 <= handSize <= deckSize <= 2^26.
 */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export class Dealer {
  private constructor(
    readonly deckSize: number,
    readonly handSize: number,
  ) {}

  /** A dealer, or upstream's error text when the sizes are not usable. */
  static create(deckSize: number, handSize: number): Dealer | { error: string } {
    if (deckSize <= 0 || handSize <= 0) return { error: `deckSize ${deckSize} or handSize ${handSize} is not positive` };
    if (handSize > deckSize) return { error: `handSize ${handSize} is greater than deckSize ${deckSize}` };
    if (deckSize > 1 << 26) return { error: `deckSize ${deckSize} is impractically large` };
    if (requiredEntropyBits(deckSize, handSize) > MAX_HASH_BITS) {
      return { error: `required entropy bits of deckSize ${deckSize} and handSize ${handSize} is greater than ${MAX_HASH_BITS}` };
    }
    return new Dealer(deckSize, handSize);
  }

  /**
   * The hand for a hash (an unsigned 64-bit value). The hash is read as successive remainders
   * modulo deckSize, deckSize-1, ...; each remainder is then shifted past the cards it is not
   * below among the earlier remainders, which makes the cards distinct.
   */
  deal(hash: bigint): number[] {
    const remainders: number[] = [];
    let big = BigInt.asUintN(64, hash);
    let small = -1;
    for (let i = 0; i < this.handSize; i++) {
      const divisor = this.deckSize - i;
      if (small < 0 && big <= MAX_SAFE) small = Number(big);
      if (small >= 0) {
        remainders.push(small % divisor);
        small = Math.floor(small / divisor);
      } else {
        const d = BigInt(divisor);
        remainders.push(Number(big % d));
        big /= d;
      }
    }
    const hand: number[] = [];
    for (let i = 0; i < this.handSize; i++) {
      let card = remainders[i]!;
      for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
      hand.push(card);
    }
    return hand;
  }
}
