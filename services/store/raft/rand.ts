// A small seeded PRNG (sfc32 seeded through splitmix32). The Raft core takes
// its randomness only from an instance of this interface, so that a run is
// reproducible from its seed.

export interface RandomSource {
  /** A uniformly distributed integer in [0, n). n must be a positive integer. */
  intn(n: number): number;
}

export class SeededRandom implements RandomSource {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = (Math.floor(seed) ^ 0x9e3779b9) >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.nextUint32() / 4294967296;
  }

  intn(n: number): number {
    if (!(n > 0)) throw new RangeError(`intn: n must be positive, got ${n}`);
    return Math.floor(this.float() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty list");
    return items[this.intn(items.length)] as T;
  }
}
