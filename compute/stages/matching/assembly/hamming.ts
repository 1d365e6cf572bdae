/**
 * AssemblyScript (v128 SIMD) brute-force nearest neighbours of binary descriptors, both
 * directions in one pass. Mirrors nearestNeighboursReference in ../hamming.ts, which the tests
 * compare it against. Each descriptor is one 64-byte row (AKAZE MLDB's 61 bytes, zero padded):
 * four v128 XORs, i8x16.popcnt, and two pairwise widening adds give the Hamming distance.
 *
 * Memory layout (byte addresses, little endian), written by the host:
 *   a: countA rows of 64 bytes;  b: countB rows of 64 bytes;
 *   outA: per A row (bestDistance u32, secondDistance u32, nearestB i32);
 *   outB: per B row (bestDistance u32, secondDistance u32, nearestA i32), initialised by the
 *         host to (0xffffffff, 0xffffffff, -1).
 * Build: npx asc compute/stages/matching/assembly/hamming.ts -O3 --enable simd --runtime stub
 *        --noAssert -o compute/stages/matching/assembly/hamming.wasm
 */

export function nearestNeighbours(a: usize, countA: i32, b: usize, countB: i32, outA: usize, outB: usize): void {
  for (let i = 0; i < countA; i++) {
    const pa = a + (<usize>i << 6);
    const a0 = v128.load(pa);
    const a1 = v128.load(pa, 16);
    const a2 = v128.load(pa, 32);
    const a3 = v128.load(pa, 48);
    let d1: u32 = 0xffffffff;
    let d2: u32 = 0xffffffff;
    let j1: i32 = -1;
    for (let j = 0; j < countB; j++) {
      const pb = b + (<usize>j << 6);
      let c = i8x16.popcnt(v128.xor(a0, v128.load(pb)));
      c = i8x16.add(c, i8x16.popcnt(v128.xor(a1, v128.load(pb, 16))));
      c = i8x16.add(c, i8x16.popcnt(v128.xor(a2, v128.load(pb, 32))));
      c = i8x16.add(c, i8x16.popcnt(v128.xor(a3, v128.load(pb, 48))));
      const s32 = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(c));
      const d = <u32>(i32x4.extract_lane(s32, 0) + i32x4.extract_lane(s32, 1) + i32x4.extract_lane(s32, 2) + i32x4.extract_lane(s32, 3));
      if (d < d1) {
        d2 = d1;
        d1 = d;
        j1 = j;
      } else if (d < d2) d2 = d;
      const pB = outB + <usize>j * 12;
      const bestB = load<u32>(pB);
      if (d < bestB) {
        store<u32>(pB, bestB, 4);
        store<u32>(pB, d);
        store<i32>(pB, i, 8);
      } else if (d < load<u32>(pB, 4)) store<u32>(pB, d, 4);
    }
    const pA = outA + <usize>i * 12;
    store<u32>(pA, d1);
    store<u32>(pA, d2, 4);
    store<i32>(pA, j1, 8);
  }
}
