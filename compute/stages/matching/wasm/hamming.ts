/**
 * AssemblyScript brute-force nearest neighbours of binary descriptors, both directions in one
 * pass. Mirrors nearestNeighboursReference in ../hamming.ts, which the tests compare it
 * against. Each descriptor is one 64-byte row (AKAZE MLDB's 61 bytes, zero padded).
 * The exhaustive search holds the A row in eight 64-bit locals and takes each distance as
 * eight XORs and i64.popcnt, one instruction each where the CPU has POPCNT. A v128 version
 * (i8x16.popcnt, four B rows per pass, shuffle-add transposes) ran 4.4–4.6 ns per distance on
 * smoke's real descriptors against 3.5 ns for this one on the development machine (SSE4 and
 * AVX but no AVX2, where i8x16.popcnt becomes a pshufb sequence). Two A rows share each pass
 * over B (sixteen 64-bit locals; each B word is loaded once for both): 3.02 instead of 3.45 ns
 * per distance on 4000 × 4000 random rows (scratch timing of both builds, 2026-11-22). The
 * neighbour bookkeeping runs only when a distance beats the row's or the B keypoint's current
 * second best.
 * The guided search's `distancesTo` keeps the v128 form: its candidates are scattered rows.
 *
 * Memory layout (byte addresses, little endian), written by the host:
 *   a: countA rows of 64 bytes;  b: countB rows of 64 bytes;
 *   outA: per A row (bestDistance u32, secondDistance u32, nearestB i32);
 *   bestB, secondB (u32[countB], initialised to 0xffffffff) and argB (i32[countB], -1).
 * Build: npx asc compute/stages/matching/wasm/hamming.ts -O3 --enable simd --runtime stub
 *        --noAssert -o compute/stages/matching/wasm/hamming.wasm
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
  updateColumn(i, j, d, bestB, secondB, argB);
}

// State of the second A row of a blocked pass.
let e1: u32 = 0;
let e2: u32 = 0;
let k1: i32 = -1;

function updateSecondRow(i: i32, j: i32, d: u32, bestB: usize, secondB: usize, argB: usize): void {
  if (d < e1) {
    e2 = e1;
    e1 = d;
    k1 = j;
  } else if (d < e2) e2 = d;
  updateColumn(i, j, d, bestB, secondB, argB);
}

@inline function updateColumn(i: i32, j: i32, d: u32, bestB: usize, secondB: usize, argB: usize): void {
  const pBest = bestB + (<usize>j << 2);
  const pSecond = secondB + (<usize>j << 2);
  const best = load<u32>(pBest);
  if (d < best) {
    store<u32>(pSecond, best);
    store<u32>(pBest, d);
    store<i32>(argB + (<usize>j << 2), i);
  } else if (d < load<u32>(pSecond)) store<u32>(pSecond, d);
}

@inline function storeRow(outA: usize, i: i32, best: u32, second: u32, arg: i32): void {
  const pA = outA + <usize>i * 12;
  store<u32>(pA, best);
  store<u32>(pA, second, 4);
  store<i32>(pA, arg, 8);
}

export function nearestNeighbours(a: usize, countA: i32, b: usize, countB: i32, outA: usize, bestB: usize, secondB: usize, argB: usize): void {
  let i = 0;
  // Two A rows per pass over B: each B word is loaded once for both. Per B column the
  // bookkeeping still sees row i before row i + 1, as the reference does, so ties resolve alike.
  for (; i + 1 < countA; i += 2) {
    const pa = a + (<usize>i << 6);
    const q0 = load<u64>(pa);
    const q1 = load<u64>(pa, 8);
    const q2 = load<u64>(pa, 16);
    const q3 = load<u64>(pa, 24);
    const q4 = load<u64>(pa, 32);
    const q5 = load<u64>(pa, 40);
    const q6 = load<u64>(pa, 48);
    const q7 = load<u64>(pa, 56);
    const r0 = load<u64>(pa, 64);
    const r1 = load<u64>(pa, 72);
    const r2 = load<u64>(pa, 80);
    const r3 = load<u64>(pa, 88);
    const r4 = load<u64>(pa, 96);
    const r5 = load<u64>(pa, 104);
    const r6 = load<u64>(pa, 112);
    const r7 = load<u64>(pa, 120);
    d1 = 0xffffffff;
    d2 = 0xffffffff;
    j1 = -1;
    e1 = 0xffffffff;
    e2 = 0xffffffff;
    k1 = -1;
    for (let j = 0; j < countB; j++) {
      const pb = b + (<usize>j << 6);
      const b0 = load<u64>(pb);
      const b1 = load<u64>(pb, 8);
      const b2 = load<u64>(pb, 16);
      const b3 = load<u64>(pb, 24);
      const b4 = load<u64>(pb, 32);
      const b5 = load<u64>(pb, 40);
      const b6 = load<u64>(pb, 48);
      const b7 = load<u64>(pb, 56);
      const d = <u32>(popcnt<u64>(q0 ^ b0) + popcnt<u64>(q1 ^ b1) + popcnt<u64>(q2 ^ b2) + popcnt<u64>(q3 ^ b3) + popcnt<u64>(q4 ^ b4) + popcnt<u64>(q5 ^ b5) + popcnt<u64>(q6 ^ b6) + popcnt<u64>(q7 ^ b7));
      const e = <u32>(popcnt<u64>(r0 ^ b0) + popcnt<u64>(r1 ^ b1) + popcnt<u64>(r2 ^ b2) + popcnt<u64>(r3 ^ b3) + popcnt<u64>(r4 ^ b4) + popcnt<u64>(r5 ^ b5) + popcnt<u64>(r6 ^ b6) + popcnt<u64>(r7 ^ b7));
      if (d < d2 || d < load<u32>(secondB + (<usize>j << 2))) update(i, j, d, bestB, secondB, argB);
      if (e < e2 || e < load<u32>(secondB + (<usize>j << 2))) updateSecondRow(i + 1, j, e, bestB, secondB, argB);
    }
    storeRow(outA, i, d1, d2, j1);
    storeRow(outA, i + 1, e1, e2, k1);
  }
  for (; i < countA; i++) {
    const pa = a + (<usize>i << 6);
    const q0 = load<u64>(pa);
    const q1 = load<u64>(pa, 8);
    const q2 = load<u64>(pa, 16);
    const q3 = load<u64>(pa, 24);
    const q4 = load<u64>(pa, 32);
    const q5 = load<u64>(pa, 40);
    const q6 = load<u64>(pa, 48);
    const q7 = load<u64>(pa, 56);
    d1 = 0xffffffff;
    d2 = 0xffffffff;
    j1 = -1;
    for (let j = 0; j < countB; j++) {
      const pb = b + (<usize>j << 6);
      const d = <u32>(popcnt<u64>(q0 ^ load<u64>(pb)) + popcnt<u64>(q1 ^ load<u64>(pb, 8)) + popcnt<u64>(q2 ^ load<u64>(pb, 16)) + popcnt<u64>(q3 ^ load<u64>(pb, 24)) +
        popcnt<u64>(q4 ^ load<u64>(pb, 32)) + popcnt<u64>(q5 ^ load<u64>(pb, 40)) + popcnt<u64>(q6 ^ load<u64>(pb, 48)) + popcnt<u64>(q7 ^ load<u64>(pb, 56)));
      if (d < d2 || d < load<u32>(secondB + (<usize>j << 2))) update(i, j, d, bestB, secondB, argB);
    }
    storeRow(outA, i, d1, d2, j1);
  }
}

/**
 * Guided matching (geometry/epipolar-band.ts): distances from the A row at `pa` to the `count` B rows whose
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
