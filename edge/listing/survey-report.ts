/**
 * @module The public report's `survey` (shared/survey-report.ts) from report.json's
 * `qualityReport` (compute/stages/quality-report/types.ts `QualityFigures`, camelCase).
 *
 * The survey is one section: compute writes its figures in one go, so a part that does not
 * parse makes the whole survey absent (never a 500, never the rest of the report). Fields the
 * public survey leaves out (the overlap map's grid, the per-photo reprojection errors and their
 * histogram, `leftOut`, …) are not read, so compute may change them freely.
 */
import { z } from "zod";
import { SurveyReport } from "../../shared/survey-report.js";

const num = z.number();
const Intrinsic5 = z.object({ focal: num, cx: num, cy: num, k1: num, k2: num });
const AxisSigmas = z.object({ eastM: num, northM: num, upM: num });
const ResidualRmse = z.object({ count: num, horizontalM: num, verticalM: num, threeDM: num });

const QualityFigures = z.object({
  units: z.enum(["m", "model units"]),
  summary: z.object({
    photosUsed: num,
    photosTotal: num,
    gsdM: num.nullable(),
    areaM2: num,
    crs: z.string().nullable(),
    offset: z.array(num).length(3).nullable(),
    georeferenceSource: z.enum(["control", "gps"]).nullable(),
  }),
  overlap: z.object({ cellSizeM: num, cellsByPhotos: z.array(num).length(6), fiveOrMoreShare: num }),
  calibration: z.array(z.object({ camera: z.string(), photos: num, width: num, height: num, priorSource: z.string(), before: Intrinsic5, after: Intrinsic5 })),
  reprojection: z.object({ observations: num, meanPx: num, rmsPx: num, medianPx: num }).nullable(),
  uncertainty: z.object({ gauge: z.string(), sigma0Px: num, median: AxisSigmas, max: AxisSigmas, perPhoto: z.array(AxisSigmas.extend({ name: z.string() })) }).nullable(),
  control: z
    .object({
      points: z.array(z.object({
        name: z.string(),
        role: z.enum(["control", "check"]),
        used: z.boolean(),
        reason: z.string().optional(),
        dx: num,
        dy: num,
        dz: num,
        horizontalM: num,
        threeDM: num,
        reprojectionPx: num.optional(),
        marks: num,
      })),
      rmse: z.object({ control: ResidualRmse.nullable(), check: ResidualRmse.nullable() }),
    })
    .nullable(),
  warnings: z.array(z.string()),
});
type QualityFigures = z.infer<typeof QualityFigures>;

/** The public survey of report.json's `qualityReport`; undefined when it is absent or does not parse. */
export function surveyOf(qualityReport: unknown): SurveyReport | undefined {
  if (qualityReport === undefined) return undefined;
  const parsed = QualityFigures.safeParse(qualityReport);
  if (!parsed.success) return undefined;
  // The public schema's own bounds (integers, non-negative lengths…) are checked too, so that
  // the report's final parse cannot fail on the survey.
  const survey = SurveyReport.safeParse(toSurvey(parsed.data));
  return survey.success ? survey.data : undefined;
}

function toSurvey(q: QualityFigures): SurveyReport {
  const sigmas = (s: z.infer<typeof AxisSigmas>) => ({ east_m: s.eastM, north_m: s.northM, up_m: s.upM });
  const rmse = (r: z.infer<typeof ResidualRmse> | null) => (r ? { count: r.count, horizontal_m: r.horizontalM, vertical_m: r.verticalM, three_d_m: r.threeDM } : null);
  const { summary: s, overlap: o, reprojection: r, uncertainty: u, control: c } = q;
  return {
    units: q.units,
    summary: {
      photos_used: s.photosUsed,
      photos_total: s.photosTotal,
      gsd_m: s.gsdM,
      area_m2: s.areaM2,
      crs: s.crs,
      offset: s.offset,
      georeference_source: s.georeferenceSource,
    },
    overlap: { cell_size_m: o.cellSizeM, cells_by_photos: o.cellsByPhotos, five_or_more_share: o.fiveOrMoreShare },
    calibration: q.calibration.map((cam) => ({
      camera: cam.camera,
      photos: cam.photos,
      width: cam.width,
      height: cam.height,
      prior_source: cam.priorSource,
      before: cam.before,
      after: cam.after,
    })),
    reprojection: r ? { observations: r.observations, mean_px: r.meanPx, rms_px: r.rmsPx, median_px: r.medianPx } : null,
    uncertainty: u
      ? { gauge: u.gauge, sigma0_px: u.sigma0Px, median: sigmas(u.median), max: sigmas(u.max), per_photo: u.perPhoto.map((p) => ({ name: p.name, ...sigmas(p) })) }
      : null,
    control: c
      ? {
          points: c.points.map((p) => ({
            name: p.name,
            role: p.role,
            used: p.used,
            ...(p.reason !== undefined ? { reason: p.reason } : {}),
            dx_m: p.dx,
            dy_m: p.dy,
            dz_m: p.dz,
            horizontal_m: p.horizontalM,
            three_d_m: p.threeDM,
            ...(p.reprojectionPx !== undefined ? { reprojection_px: p.reprojectionPx } : {}),
            marks: p.marks,
          })),
          rmse: { control: rmse(c.rmse.control), check: rmse(c.rmse.check) },
        }
      : null,
    warnings: q.warnings,
  };
}
