/**
 * AssemblyScript (v128 SIMD) brute-force nearest neighbours of binary descriptors, both
 * directions in one pass. Mirrors nearestNeighboursReference in ../hamming.ts, which the tests
 * compare it against. Each descriptor is one 64-byte row (AKAZE MLDB's 61 bytes, zero padded).
 * One A row is compared with four B rows per iteration: XOR, i8x16.popcnt, a widening pairwise
 * add and a dot product with ones give per-row partial sums, and two shuffle-add rounds
 * transpose them into one vector of four distances. The neighbour bookkeeping is scalar but
 * runs only when some lane beats the current second-best (rare after the first rows).
 *
 * Memory layout (byte addresses, little endian), written by the host:
 *   a: countA rows of 64 bytes;  b: countB rows of 64 bytes;
 *   outA: per A row (bestDistance u32, secondDistance u32, nearestB i32);
 *   bestB, secondB (u32[countB], initialised to 0xffffffff) and argB (i32[countB], -1).
 * Build: npx asc compute/stages/matching/assembly/hamming.ts -O3 --enable simd --runtime stub
 *        --noAssert -o compute/stages/matching/assembly/hamming.wasm
 */

// Per-call state of the A row being scanned (globals keep the rare update path out of line).
let d1: u32 = 0;
let d2: u32 = 0;
let j1: i32 = -1;

@inline function rowCounts(a0: v128, a1: v128, a2: v128, a3: v128, pb: usize): v128 {
  let c = i8x16.popcnt(v128.xor(a0, v128.load(pb)));
  c = i8x16.add(c, i8x16.popcnt(v128.xor(a1, v128.load(pb, 16))));
  c = i8x16.add(c, i8x16.popcnt(v128.xor(a2, v128.load(pb, 32))));
  c = i8x16.add(c, i8x16.popcnt(v128.xor(a3, v128.load(pb, 48))));
  // Bytes ≤ 32 → eight u16 sums → four i32 partial sums of this row.
  return i32x4.dot_i16x8_s(i16x8.extadd_pairwise_i8x16_u(c), i16x8.splat(1));
}

function update(i: i32, j: i32, d: u32, bestB: usize, secondB: usize, argB: usize): void {
  if (d < d1) {
    d2 = d1;
    d1 = d;
    j1 = j;
  } else if (d < d2) d2 = d;
  const pBest = bestB + (<usize>j << 2);
  const pSecond = secondB + (<usize>j << 2);
  const best = load<u32>(pBest);
  if (d < best) {
    store<u32>(pSecond, best);
    store<u32>(pBest, d);
    store<i32>(argB + (<usize>j << 2), i);
  } else if (d < load<u32>(pSecond)) store<u32>(pSecond, d);
}

export function nearestNeighbours(a: usize, countA: i32, b: usize, countB: i32, outA: usize, bestB: usize, secondB: usize, argB: usize): void {
  const blocks = countB & ~3;
  for (let i = 0; i < countA; i++) {
    const pa = a + (<usize>i << 6);
    const a0 = v128.load(pa);
    const a1 = v128.load(pa, 16);
    const a2 = v128.load(pa, 32);
    const a3 = v128.load(pa, 48);
    d1 = 0xffffffff;
    d2 = 0xffffffff;
    j1 = -1;
    let j = 0;
    for (; j < blocks; j += 4) {
      const pb = b + (<usize>j << 6);
      const p0 = rowCounts(a0, a1, a2, a3, pb);
      const p1 = rowCounts(a0, a1, a2, a3, pb + 64);
      const p2 = rowCounts(a0, a1, a2, a3, pb + 128);
      const p3 = rowCounts(a0, a1, a2, a3, pb + 192);
      // Transpose-add: lanes of t01 = (p0[0]+p0[2], p0[1]+p0[3], p1[0]+p1[2], p1[1]+p1[3]).
      const t01 = i32x4.add(v128.shuffle<i32>(p0, p1, 0, 1, 4, 5), v128.shuffle<i32>(p0, p1, 2, 3, 6, 7));
      const t23 = i32x4.add(v128.shuffle<i32>(p2, p3, 0, 1, 4, 5), v128.shuffle<i32>(p2, p3, 2, 3, 6, 7));
      const d = i32x4.add(v128.shuffle<i32>(t01, t23, 0, 2, 4, 6), v128.shuffle<i32>(t01, t23, 1, 3, 5, 7));
      const beatsA = i32x4.lt_u(d, i32x4.splat(d2));
      const beatsB = i32x4.lt_u(d, v128.load(secondB + (<usize>j << 2)));
      if (v128.any_true(v128.or(beatsA, beatsB))) {
        update(i, j, <u32>i32x4.extract_lane(d, 0), bestB, secondB, argB);
        update(i, j + 1, <u32>i32x4.extract_lane(d, 1), bestB, secondB, argB);
        update(i, j + 2, <u32>i32x4.extract_lane(d, 2), bestB, secondB, argB);
        update(i, j + 3, <u32>i32x4.extract_lane(d, 3), bestB, secondB, argB);
      }
    }
    for (; j < countB; j++) {
      const p = rowCounts(a0, a1, a2, a3, b + (<usize>j << 6));
      const d = <u32>(i32x4.extract_lane(p, 0) + i32x4.extract_lane(p, 1) + i32x4.extract_lane(p, 2) + i32x4.extract_lane(p, 3));
      update(i, j, d, bestB, secondB, argB);
    }
    const pA = outA + <usize>i * 12;
    store<u32>(pA, d1);
    store<u32>(pA, d2, 4);
    store<i32>(pA, j1, 8);
  }
}

/**
 * Guided matching (../guided.ts): distances from the A row at `pa` to the `count` B rows whose
 * indices (u32) are at `candidates`, written as u32 to `out`.
 */
export function distancesTo(pa: usize, b: usize, candidates: usize, count: i32, out: usize): void {
  const a0 = v128.load(pa);
  const a1 = v128.load(pa, 16);
  const a2 = v128.load(pa, 32);
  const a3 = v128.load(pa, 48);
  for (let k = 0; k < count; k++) {
    const pb = b + (<usize>load<u32>(candidates + (<usize>k << 2)) << 6);
    const p = rowCounts(a0, a1, a2, a3, pb);
    store<u32>(out + (<usize>k << 2), <u32>(i32x4.extract_lane(p, 0) + i32x4.extract_lane(p, 1) + i32x4.extract_lane(p, 2) + i32x4.extract_lane(p, 3)));
  }
}
