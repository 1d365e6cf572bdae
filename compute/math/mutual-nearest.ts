/**
 * @module Nearest and second-nearest neighbours kept in both directions between two sets
 * (A and B) over whichever pairs a search offers, then Lowe's ratio test (IJCV 2004) on each
 * side and a mutual check: a match survives only when each item is the other's unambiguous
 * nearest neighbour. Shared by the exhaustive descriptor search, the guided search along
 * epipolar lines (geometry/epipolar-band.ts) and loop closure in sfm.
 */

/** Per A item and per B item: the nearest and second-nearest distance offered, and the nearest's index (−1: none). */
export interface Neighbours {
  bestA: Uint32Array;
  secondA: Uint32Array;
  argA: Int32Array;
  bestB: Uint32Array;
  secondB: Uint32Array;
  argB: Int32Array;
}

export function allocNeighbours(countA: number, countB: number): Neighbours {
  return {
    bestA: new Uint32Array(countA).fill(0xffffffff),
    secondA: new Uint32Array(countA).fill(0xffffffff),
    argA: new Int32Array(countA).fill(-1),
    bestB: new Uint32Array(countB).fill(0xffffffff),
    secondB: new Uint32Array(countB).fill(0xffffffff),
    argB: new Int32Array(countB).fill(-1),
  };
}

/** Offers distance d between item i of A and item j of B to both sides' best and second best. */
export function recordDistance(nb: Neighbours, i: number, j: number, d: number): void {
  if (d < nb.bestA[i]) {
    nb.secondA[i] = nb.bestA[i];
    nb.bestA[i] = d;
    nb.argA[i] = j;
  } else if (d < nb.secondA[i]) nb.secondA[i] = d;
  if (d < nb.bestB[j]) {
    nb.secondB[j] = nb.bestB[j];
    nb.bestB[j] = d;
    nb.argB[j] = i;
  } else if (d < nb.secondB[j]) nb.secondB[j] = d;
}

/**
 * Matches that are mutual nearest neighbours and pass the ratio test on both sides.
 * Returns (indexA, indexB, distance) triples, in order of indexA.
 */
export function mutualRatioMatches(nb: Neighbours, ratio: number): Uint32Array {
  const out: number[] = [];
  for (let i = 0; i < nb.argA.length; i++) {
    const j = nb.argA[i];
    if (j < 0 || nb.argB[j] !== i) continue;
    // Equal distances (an exact tie) always fail: the match is ambiguous.
    if (nb.bestA[i] >= ratio * nb.secondA[i] || nb.bestB[j] >= ratio * nb.secondB[j]) continue;
    out.push(i, j, nb.bestA[i]);
  }
  return Uint32Array.from(out);
}
