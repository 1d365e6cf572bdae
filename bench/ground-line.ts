/**
 * @module The mesh stage's ground plane in one line, from a report's mesh counts: for the dense and
 * views benches (a model's ground height weighs on the held-back photos that see it near their
 * feet: docs/decisions.md, "The ground is the plane the cameras stand above").
 */

function fmt(value: number | undefined, digits = 2): string {
  return value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

/**
 * Whether the photos' sweep moved the ground off the points' plane and by how much (a wrong sweep
 * puts the ground's extension a layer off the true ground), and where the ground lies against the
 * cameras; undefined without a ground.
 */
export function groundLine(counts: Record<string, number>): string | undefined {
  if (!counts.groundFound) return undefined;
  const swept = counts.groundSweepPatches > 0
    ? `the photos' sweep over ${counts.groundSweepPatches} patches, NCC ${fmt(counts.groundSweepScoreBefore, 3)} → ${fmt(counts.groundSweepScoreAfter, 3)}, moved it ${fmt(counts.groundSweepShiftVoxels, 2)} voxels and ${fmt(counts.groundSweepTurnDeg, 2)}°; its points lie ${fmt(counts.groundSweepPointsOffsetVoxels, 2)} voxels above it, spread ${fmt(counts.groundInlierSpreadVoxels, 2)}${counts.groundSweepRefusedByPoints ? " (refused by the points)" : ""}${counts.groundSweepRefused ? `; found NCC ${fmt(counts.groundSweepFoundScore, 3)} ${fmt(counts.groundSweepFoundShiftVoxels, 2)} voxels off, refused (${counts.groundSweepRefused === 1 ? "on the range's edge" : "too small a gain"})` : ""}`
    : "placed by its points";
  const regions = counts.groundRegionTilesSwept ? `; ${counts.groundRegionTilesMoved} of ${counts.groundRegionTilesSwept} tiles swept moved (up to ${fmt(counts.groundRegionLargestMoveVoxels, 1)} voxels), ${counts.groundRegionTilesNoise ?? 0} held as noise` : "";
  return `${counts.groundInliers} inliers, ${swept}${regions}; ${fmt(counts.groundTiltFromUpDeg, 2)}° from the cameras' up, ${fmt(counts.groundMeanCameraHeightVoxels, 2)} voxels below them (mean); ${counts.groundCellsAdded} cells added (voxel ${fmt(counts.voxelSize, 4)})`;
}
