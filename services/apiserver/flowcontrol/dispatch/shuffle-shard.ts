/**
 * Shuffle sharding as the platform does it: a flow's identity (FlowSchema name and
 * distinguisher) hashes to 64 bits (the first 8 bytes, little endian, of
 * sha256(name 0x00 distinguisher)); the hash deals a hand of `handSize` distinct
 * cards from a deck of `deckSize` queues (mixed-radix digits of the hash, each card
 * skipping the ones dealt before it). Two flows share a whole hand only rarely, so a
 * heavy flow crowds few of the queues another flow may use.
 */
import { createHash } from "node:crypto";

export function flowHash(flowSchema: string, distinguisher: string): bigint {
  const digest = createHash("sha256").update(flowSchema).update(new Uint8Array([0])).update(distinguisher).digest();
  return digest.readBigUInt64LE(0);
}

/** The queue indexes of the hand, in the order dealt. */
export function dealHand(hash: bigint, deckSize: number, handSize: number): number[] {
  const size = Math.min(handSize, deckSize);
  const remainders: number[] = [];
  let h = hash;
  for (let i = 0; i < size; i++) {
    const radix = BigInt(deckSize - i);
    remainders.push(Number(h % radix));
    h /= radix;
  }
  const hand: number[] = [];
  for (let i = 0; i < size; i++) {
    let card = remainders[i];
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]) card++;
    hand.push(card);
  }
  return hand;
}
