/**
 * Seeded random numbers for resampling. seedrandom (ARC4) turns the user's seed into the state of
 * a xoshiro128** generator; the bootstrap then draws ~10^8 indices per comparison, which needs a
 * generator whose step is a handful of 32-bit integer operations.
 */
import { seedrandom } from '../util/lazy-packages.js';

export class Xoshiro128 {
  s0: number;
  s1: number;
  s2: number;
  s3: number;

  constructor(seed: number | string) {
    const arc4 = seedrandom(`rawrag-stats:${String(seed)}`);
    this.s0 = arc4.int32() >>> 0;
    this.s1 = arc4.int32() >>> 0;
    this.s2 = arc4.int32() >>> 0;
    this.s3 = arc4.int32() >>> 0;
    // The all-zero state is the generator's only fixed point.
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 0x9e3779b9;
  }

  /** Next unsigned 32-bit integer. (Hot loops inline this step on local copies of the state.) */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /**
   * Uniform integer in [0, n) by multiply-shift (Lemire). The bias is below n / 2^32
   * (5e-7 for 2,071 items), far under the bootstrap's Monte Carlo error.
   */
  below(n: number): number {
    return Math.floor((this.nextU32() * n) / 4294967296);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
