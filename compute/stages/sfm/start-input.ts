/** @module What the SfM stage reads: the photos, their features, the verified pairs and the tracks. */
import type { ImageFeatures, ImageRef, Tracks, VerifiedPair } from "../../scene/index.js";

export interface Input {
  images: ImageRef[];
  features: ImageFeatures[];
  pairs: VerifiedPair[];
  tracks: Tracks;
}
