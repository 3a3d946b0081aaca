import { describe, expect, it } from "vitest";
import { EntryType, MessageType, SeededRandom, newMessage, type Entry, type Message } from "../raft/index.ts";
import { CodecError, decodeMessage, encodeMessage } from "./codec.ts";

function randomBytes(rng: SeededRandom, max: number): Uint8Array {
  const n = rng.intn(max + 1);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rng.intn(256);
  return b;
}

function randomMessage(rng: SeededRandom): Message {
  const big = (): number => (rng.intn(4) === 0 ? rng.intn(2 ** 30) * 2 ** 20 + rng.intn(2 ** 20) : rng.intn(1000));
  const entries: Entry[] = [];
  let index = big();
  let term = rng.intn(50);
  for (let i = rng.intn(5); i > 0; i--) {
    entries.push({ index, term, type: rng.intn(2) as EntryType, data: randomBytes(rng, 40) });
    index += rng.intn(3) === 0 ? -rng.intn(Math.min(index, 3) + 1) : 1;
    term += rng.intn(3) === 0 ? 1 : 0;
  }
  const m = newMessage({
    type: rng.intn(19) as MessageType,
    to: rng.intn(10),
    from: rng.intn(10),
    term: big(),
    logTerm: big(),
    index: big(),
    commit: big(),
    reject: rng.intn(2) === 1,
    rejectHint: big(),
    entries,
  });
  if (rng.intn(3) === 0) m.context = randomBytes(rng, 16);
  if (rng.intn(4) === 0) {
    m.snapshot = {
      data: randomBytes(rng, 100),
      metadata: {
        index: big(),
        term: big(),
        confState: { voters: [1, 2, 3], learners: rng.intn(2) ? [4] : [], votersOutgoing: [], learnersNext: rng.intn(2) ? [5] : [], autoLeave: rng.intn(2) === 1 },
      },
    };
  }
  return m;
}

describe("peer message codec", () => {
  it("round-trips 2000 random messages exactly", () => {
    const rng = new SeededRandom(42);
    for (let i = 0; i < 2000; i++) {
      const m = randomMessage(rng);
      expect(decodeMessage(encodeMessage(m))).toEqual(m);
    }
  });

  it("is compact for a typical append", () => {
    const entries: Entry[] = Array.from({ length: 100 }, (_, i) => ({ index: 1_000_000 + i, term: 7, type: EntryType.Normal, data: new Uint8Array(32) }));
    const m = newMessage({ type: MessageType.App, to: 2, from: 1, term: 7, logTerm: 7, index: 999_999, commit: 999_990, entries });
    const buf = encodeMessage(m);
    // 32 data bytes + 1 length + 3 framing per entry, plus a small header.
    expect(buf.length).toBeLessThan(100 * 36 + 40);
    const hb = encodeMessage(newMessage({ type: MessageType.Heartbeat, to: 2, from: 1, term: 7, commit: 123456 }));
    expect(hb.length).toBeLessThanOrEqual(16);
  });

  it("decodes copies, not views", () => {
    const m = newMessage({ type: MessageType.App, to: 2, from: 1, entries: [{ index: 1, term: 1, type: EntryType.Normal, data: new Uint8Array([1, 2, 3]) }] });
    const buf = encodeMessage(m);
    const d = decodeMessage(buf);
    buf.fill(0);
    expect([...d.entries[0].data]).toEqual([1, 2, 3]);
  });

  it("rejects every truncation and trailing bytes with CodecError", () => {
    const rng = new SeededRandom(7);
    for (let i = 0; i < 50; i++) {
      const buf = encodeMessage(randomMessage(rng));
      for (let cut = 0; cut < buf.length; cut++) expect(() => decodeMessage(buf.subarray(0, cut))).toThrow(CodecError);
      const longer = new Uint8Array(buf.length + 1);
      longer.set(buf);
      expect(() => decodeMessage(longer)).toThrow(CodecError);
    }
  });

  it("never throws anything but CodecError on random bytes", () => {
    const rng = new SeededRandom(9);
    for (let i = 0; i < 3000; i++) {
      const buf = randomBytes(rng, 60);
      if (buf.length > 0 && rng.intn(2) === 0) buf[0] = 1;
      try {
        decodeMessage(buf);
      } catch (e) {
        expect(e).toBeInstanceOf(CodecError);
      }
    }
  });

  it("refuses unknown versions and out-of-range values", () => {
    const buf = encodeMessage(newMessage({ type: MessageType.Beat }));
    buf[0] = 2;
    expect(() => decodeMessage(buf)).toThrow(/unknown version/);
    expect(() => encodeMessage(newMessage({ type: MessageType.App, term: -1 }))).toThrow(RangeError);
    expect(() => encodeMessage(newMessage({ type: MessageType.App, entries: [{ index: 2 ** 53, term: 1, type: EntryType.Normal, data: new Uint8Array() }] }))).toThrow(RangeError);
  });
});
