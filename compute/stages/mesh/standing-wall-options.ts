/** @module Options, defaults and report of the standing walls (standing-walls.ts), shared with the cells' module (wall-cells.ts). */

export interface StandingWallOptions {
  /** Lines sought among the points' footprints, at most. */
  maxLines: number;
  /** A run of a wall's footprint holds at least this many points… */
  minPoints: number;
  /** …and is at least this long, in voxels. */
  minLengthVoxels: number;
  /** Gaps along a run up to this long (voxels) are bridged: a wall's top edge is not seen whole. */
  maxGapVoxels: number;
  /** Footprint points lie within this many voxels of their line. */
  inlierVoxels: number;
  /** A plain wall goes on past a free end while this share of each column's cells is covered or plain… */
  minEndShare: number;
  /** …(less the cells of its upper half that the cameras see through: sky over a lower wall) for this many voxels at most. */
  maxEndVoxels: number;
  /**
   * A plain wall rises above its column's points, cell by cell, for this many voxels at most,
   * while the cameras keep each cell and the photos show it plain (raiseColumns()).
   */
  maxRiseVoxels: number;
  /** Planes within this many degrees of upright stand on the ground as walls. */
  maxTiltDeg: number;
  /** Only points at least this high above the ground (voxels) belong to walls: lower ones are the ground's own. */
  minHeightVoxels: number;
  /** Occupancy cell on a wall, in voxels (grown to stay within maxViewChecks). */
  cellVoxels: number;
  /** Cell-and-view visibility checks over all walls, at most. */
  maxViewChecks: number;
  minViews: number;
  maxSeeThrough: number;
  /** No point is added within this many voxels of a cloud point. */
  clearanceVoxels: number;
  /** A wall nearly parallel to a plane with its points within this many voxels of it on average is that plane's layer. */
  layerVoxels: number;
  /** Nor within this many voxels of relief (at least minReliefPoints points off the wall). */
  offPlaneClearanceVoxels: number;
  minReliefPoints: number;
  /**
   * A kept cell is filled only where the photo that sees it most squarely shows it plain: the
   * grey levels of side × side samples, `textureStepVoxels` apart on the wall around it, vary by
   * less than this share of their mean (photo-texture.ts); and only on a wall with more than half
   * of its kept cells plain. rendered/courtyard's shaded wall: 0.008–0.013 (10th–90th
   * percentile); the walls found on Herz-Jesus-P8, fountain-P11 and SceauxCastle, facades in
   * relief and stone: medians 0.09–0.33, and a tenth of their cells under 0.03–0.05.
   */
  maxTextureVariation: number;
  /**
   * A wall's plain cells must cover at least this many voxels squared (as a square's side), as a
   * plane's inliers must (plane-completion.ts): a few plain cells between relief are no wall
   * (synthetic/facade got 54 cells, rendered/plain-room 16, each −0.12 dB on its held-back photos).
   */
  minSideVoxels: number;
  textureSide: number;
  textureStepVoxels: number;
  /** Long side, in pixels, the photos are read at for that test, and how many of them at most. */
  imageSize: number;
  maxPhotos: number;
  iterations: number;
  sampleSize: number;
}

export const STANDING_WALL_DEFAULTS: StandingWallOptions = {
  maxLines: 8,
  minPoints: 100,
  minLengthVoxels: 40,
  maxGapVoxels: 40,
  inlierVoxels: 2,
  minEndShare: 0.9,
  maxEndVoxels: 120,
  maxRiseVoxels: 120,
  maxTiltDeg: 10,
  minHeightVoxels: 10,
  cellVoxels: 2,
  maxViewChecks: 50_000_000,
  minViews: 2,
  maxSeeThrough: 0.2,
  clearanceVoxels: 2,
  layerVoxels: 15,
  offPlaneClearanceVoxels: 5,
  minReliefPoints: 30,
  maxTextureVariation: 0.03,
  minSideVoxels: 40,
  textureSide: 5,
  textureStepVoxels: 2,
  imageSize: 1024,
  maxPhotos: 48,
  iterations: 400,
  sampleSize: 5_000,
};

export interface StandingWallReport {
  /** Runs of points along lines of the ground (wall footprints) found. */
  wallRuns: number;
  /** Of them, runs that are layers of a plane (layerOfPlane()). */
  wallLayers: number;
  /** Upright planes of plane completion carried down to the ground. */
  wallPlanes: number;
  wallCellsTried: number;
  wallCellsAdded: number;
  wallCellsSeenThrough: number;
  wallCellsUnseen: number;
  wallCellsNearRelief: number;
  /** Cells the cameras kept but the photo shows textured (or cannot show), or on a wall mostly textured. */
  wallCellsTextured: number;
  /** Cells of walls whose plain cells cover less than minSideVoxels squared. */
  wallCellsTooFew: number;
  /** Cells added past a plain wall's free ends (extendFreeEnd()). */
  wallEndCellsAdded: number;
  /** Cells added above a plain wall's column tops (raiseColumns()). */
  wallRaisedCellsAdded: number;
  wallPointsAdded: number;
}
