/**
 * @module The `survey` of the public report (docs/API.md "Records"): the figures of the
 * accuracy report (the `report` download) in the API's snake_case, from report.json's
 * `qualityReport` (compute/stages/quality-report/types.ts `QualityFigures`; converted by
 * edge/listing/survey-report.ts).
 */
import { z } from "zod";

const count = z.number().int().nonnegative();
const metres = z.number().nonnegative();
const pixels = z.number().nonnegative();

const Intrinsics = z.object({
  focal: z.number().meta({ description: "Focal length, pixels" }),
  cx: z.number().meta({ description: "Principal point x, pixels" }),
  cy: z.number().meta({ description: "Principal point y, pixels" }),
  k1: z.number().meta({ description: "Radial distortion, first coefficient" }),
  k2: z.number().meta({ description: "Radial distortion, second coefficient" }),
});

const AxisSigmas = z.object({ east_m: metres, north_m: metres, up_m: metres });

const Rmse = z
  .object({ count, horizontal_m: metres, vertical_m: metres, three_d_m: metres })
  .meta({ description: "RMSE over the role's used points: horizontal √(dx² + dy²), vertical |dz|, and 3D length" });

export const SurveySummary = z.object({
  photos_used: count,
  photos_total: count,
  gsd_m: metres.nullable().meta({ description: "Ground sampling distance, metres per pixel; null when unknown" }),
  area_m2: metres.meta({ description: "Area seen by at least one photo, in square `units`" }),
  crs: z.string().nullable().meta({ description: "The output system (as `georeference.crs`); null when not georeferenced" }),
  offset: z.array(z.number()).length(3).nullable().meta({ description: "As `georeference.offset`; null when not georeferenced" }),
  georeference_source: z.enum(["control", "gps"]).nullable().meta({ description: "What placed the model: ground control points or the photos' GPS fixes; null when not georeferenced" }),
});

export const SurveyOverlap = z.object({
  cell_size_m: metres.meta({ description: "Side of one ground cell of the overlap map" }),
  cells_by_photos: z.array(count).length(6).meta({ description: "Cells seen by 0, 1, 2, 3, 4 and 5 or more photos" }),
  five_or_more_share: z.number().min(0).max(1).meta({ description: "Share of the seen cells seen by 5 or more photos" }),
});

export const SurveyCamera = z.object({
  camera: z.string(),
  photos: count,
  width: count,
  height: count,
  prior_source: z.string().meta({ description: "Where the focal length before adjustment came from: `exif35mm`, `exif-sensor` or `default` today" }),
  before: Intrinsics.meta({ description: "The prior: focal from the photos, principal point at the centre, no distortion" }),
  after: Intrinsics.meta({ description: "As solved by the bundle adjustment" }),
});

export const SurveyReprojection = z.object({
  observations: count,
  mean_px: pixels,
  rms_px: pixels,
  median_px: pixels,
});

export const SurveyUncertainty = z.object({
  gauge: z.string().meta({ description: "What holds the adjustment's gauge (the datum the σ are relative to)" }),
  sigma0_px: pixels.meta({ description: "A posteriori standard deviation of unit weight, pixels" }),
  median: AxisSigmas,
  max: AxisSigmas,
  per_photo: z.array(AxisSigmas.extend({ name: z.string() })).meta({ description: "σ of each camera position along east, north and up" }),
});

export const SurveyControlPoint = z.object({
  name: z.string(),
  role: z.enum(["control", "check"]).meta({ description: "`control` held the adjustment; `check` was only measured against it" }),
  used: z.boolean(),
  reason: z.string().optional().meta({ description: "Why the point was left out, when `used` is false" }),
  dx_m: z.number().meta({ description: "Residual east (estimated − stated), metres" }),
  dy_m: z.number().meta({ description: "Residual north, metres" }),
  dz_m: z.number().meta({ description: "Residual up, metres" }),
  horizontal_m: metres,
  three_d_m: metres,
  reprojection_px: pixels.optional().meta({ description: "RMS reprojection error of its marks" }),
  marks: count.meta({ description: "Photos it was marked in" }),
});

export const SurveyReport = z
  .object({
    units: z.enum(["m", "model units"]).meta({ description: "Unit of lengths and areas: `m` when georeferenced, else the model's own units" }),
    summary: SurveySummary,
    overlap: SurveyOverlap,
    calibration: z.array(SurveyCamera).meta({ description: "One entry per solved camera (photos sharing intrinsics)" }),
    reprojection: SurveyReprojection.nullable().meta({ description: "Reprojection error over all observations; null when not measured" }),
    uncertainty: SurveyUncertainty.nullable().meta({ description: "Camera position σ from the adjustment's covariance; null when not measured" }),
    control: z
      .object({
        points: z.array(SurveyControlPoint),
        rmse: z.object({ control: Rmse.nullable(), check: Rmse.nullable() }).meta({ description: "Per role, over its used points; null when the role has none" }),
      })
      .nullable()
      .meta({ description: "Ground control points and checkpoints after the adjustment; null when none were given" }),
    warnings: z.array(z.string()),
  })
  .meta({
    id: "SurveyReport",
    description:
      "The accuracy report's figures (the `report` download shows the same numbers). The per-photo reprojection errors and their histogram are left out here; the `report` download has them.",
  });
export type SurveyReport = z.infer<typeof SurveyReport>;
