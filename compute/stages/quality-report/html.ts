/**
 * @module report.html: the quality report as one self-contained page (inline CSS, the overlap
 * map as a data: URI, the histogram as inline SVG, no scripts, nothing fetched), printable on
 * A4 with a page break before each section. Rendered from the figures alone, so it says what
 * report.json's `quality` section says; each figure carries `data-figure` (its path in the
 * figures) and `data-value` (the number), for a reader or a test to check. Every string from
 * outside (photo, camera and point names, reasons) is escaped. The markup is also well-formed
 * XML, so any parser reads it.
 */
import { OVERLAP_COLOURS, OVERLAP_LABELS } from "./overlap-png.js";
import type { AxisSigmas, QualityFigures, ResidualRmse } from "./types.js";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A number of the figures, shown as `text`, with its path and value for checking. */
function figure(path: string, value: number | string | null, text: string): string {
  return `<span data-figure="${escapeHtml(path)}" data-value="${escapeHtml(String(value))}">${escapeHtml(text)}</span>`;
}

function lengthText(value: number, units: QualityFigures["units"]): string {
  return units === "m" ? `${value.toFixed(3)} m` : `${value.toPrecision(3)} units`;
}

function areaText(value: number, units: QualityFigures["units"]): string {
  if (units !== "m") return `${value.toPrecision(3)} units²`;
  return value >= 10_000 ? `${(value / 10_000).toFixed(2)} ha` : `${value.toFixed(1)} m²`;
}

function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min` : s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

const px = (value: number) => `${value.toFixed(3)} px`;

function row(cells: string[], header = false): string {
  const tag = header ? "th" : "td";
  return `<tr>${cells.map((c) => `<${tag}>${c}</${tag}>`).join("")}</tr>`;
}

function table(head: string[], rows: string[][], className = ""): string {
  return `<table${className ? ` class="${className}"` : ""}><thead>${row(head.map(escapeHtml), true)}</thead><tbody>${rows.map((r) => row(r)).join("")}</tbody></table>`;
}

function summarySection(f: QualityFigures): string {
  const s = f.summary;
  const rows: string[][] = [
    ["Photos used", `${figure("summary.photosUsed", s.photosUsed, String(s.photosUsed))} of ${figure("summary.photosTotal", s.photosTotal, String(s.photosTotal))}`],
    ["Ground sampling distance", s.gsdM === null ? "not known (not georeferenced)" : figure("summary.gsdM", s.gsdM, `${(s.gsdM * 100).toFixed(2)} cm/px`)],
    ["Area seen by at least one photo", figure("summary.areaM2", s.areaM2, areaText(s.areaM2, f.units))],
    ["Coordinate system", s.crs === null ? "none: the model's own frame" : figure("summary.crs", s.crs, s.crs)],
    ["Offset (east, north, up)", s.offset === null ? "none" : s.offset.map((o, i) => figure(`summary.offset.${i}`, o, `${o} m`)).join(", ")],
    ["Georeferenced by", s.georeferenceSource === null ? "nothing" : figure("summary.georeferenceSource", s.georeferenceSource, s.georeferenceSource === "gps" ? "the photos' GPS fixes" : "ground control points")],
    ["Sparse points", figure("summary.points", s.points, String(s.points))],
    ["Processing time", figure("summary.processingMs", s.processingMs, durationText(s.processingMs))],
  ];
  if (f.reprojection) rows.push(["Reprojection error (RMS)", figure("reprojection.rmsPx", f.reprojection.rmsPx, px(f.reprojection.rmsPx))]);
  return `<section id="summary"><h2>Summary</h2>${table(["Figure", "Value"], rows.map(([k, v]) => [escapeHtml(k), v]))}</section>`;
}

function overlapSection(f: QualityFigures, pngBase64: string): string {
  const o = f.overlap;
  const cellArea = o.cellSizeM * o.cellSizeM;
  const legend = OVERLAP_LABELS.map((label, k) => {
    const [r, g, b] = OVERLAP_COLOURS[k];
    return `<span class="swatch"><span class="chip" style="background: rgb(${r}, ${g}, ${b})"></span>${escapeHtml(label)}</span>`;
  }).join("");
  const rows = OVERLAP_LABELS.map((label, k) => [escapeHtml(label), figure(`overlap.cellsByPhotos.${k}`, o.cellsByPhotos[k], String(o.cellsByPhotos[k])), escapeHtml(areaText(o.cellsByPhotos[k] * cellArea, f.units))]);
  return `<section id="overlap"><h2>Overlap</h2>
<p>Photos that see each ground cell of ${figure("overlap.cellSizeM", o.cellSizeM, lengthText(o.cellSizeM, f.units))}, north up, ${figure("overlap.width", o.width, String(o.width))} × ${figure("overlap.height", o.height, String(o.height))} cells. Red and yellow areas are seen by too few photos for a reliable surface; green by five or more.
${figure("overlap.fiveOrMoreShare", o.fiveOrMoreShare, `${(100 * o.fiveOrMoreShare).toFixed(1)} %`)} of the area seen is seen by five photos or more.</p>
<figure><img class="map" alt="Overlap map" src="data:image/png;base64,${pngBase64}" /><figcaption class="legend">Photos: ${legend}</figcaption></figure>
${table(["Photos", "Cells", "Area"], rows)}</section>`;
}

function calibrationSection(f: QualityFigures): string {
  const blocks = f.calibration.map((cam, k) => {
    const keys = ["focal", "cx", "cy", "k1", "k2"] as const;
    const rows = keys.map((key) => {
      const before = cam.before[key];
      const after = cam.after[key];
      const digits = key === "k1" || key === "k2" ? 5 : 2;
      const change = before !== 0 ? `${((100 * (after - before)) / Math.abs(before)).toFixed(2)} %` : (after - before).toFixed(digits);
      return [escapeHtml(key === "focal" ? "focal (px)" : key === "cx" || key === "cy" ? `${key} (px)` : key),
        figure(`calibration.${k}.before.${key}`, before, before.toFixed(digits)), figure(`calibration.${k}.after.${key}`, after, after.toFixed(digits)), escapeHtml(change)];
    });
    return `<h3>${escapeHtml(cam.camera)}: ${figure(`calibration.${k}.photos`, cam.photos, String(cam.photos))} photos</h3>
<p>Before: the focal length from ${escapeHtml(cam.priorSource === "default" ? "a default guess (no EXIF focal length)" : `the photos' EXIF (${cam.priorSource})`)}, the principal point at the image centre, no distortion. After: as the bundle adjustment solved them.</p>
${table(["Parameter", "Before", "After", "Change"], rows)}`;
  });
  return `<section id="calibration"><h2>Camera calibration</h2>${blocks.join("") || "<p>No camera was solved.</p>"}</section>`;
}

/** Inline SVG bar chart of the per-photo RMS histogram. */
function histogramSvg(binPx: number, counts: number[]): string {
  const [w, h, left, bottom] = [640, 220, 40, 30];
  const top = Math.max(1, ...counts);
  const barW = (w - left - 10) / counts.length;
  const bars = counts.map((n, i) => {
    const bh = ((h - bottom - 10) * n) / top;
    return `<rect x="${(left + i * barW + 1).toFixed(1)}" y="${(h - bottom - bh).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${bh.toFixed(1)}" fill="#3b6ea5"><title>${escapeHtml(`${(i * binPx).toPrecision(3)}–${((i + 1) * binPx).toPrecision(3)} px: ${n} photos`)}</title></rect>`;
  });
  const step = Math.max(1, Math.ceil(counts.length / 10));
  const ticks = counts.map((_, i) => (i % step === 0 ? `<text x="${(left + i * barW).toFixed(1)}" y="${h - bottom + 14}" font-size="10">${(i * binPx).toPrecision(2)}</text>` : "")).join("");
  return `<svg class="chart" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="Photos by RMS reprojection error">
<line x1="${left}" y1="${h - bottom}" x2="${w - 10}" y2="${h - bottom}" stroke="#333" />
<line x1="${left}" y1="10" x2="${left}" y2="${h - bottom}" stroke="#333" />
<text x="4" y="16" font-size="10">${top}</text><text x="4" y="${h - bottom}" font-size="10">0</text>
${bars.join("")}${ticks}<text x="${w / 2}" y="${h - 4}" font-size="11" text-anchor="middle">RMS reprojection error per photo (px)</text></svg>`;
}

function reprojectionSection(f: QualityFigures): string {
  const r = f.reprojection;
  if (!r) return `<section id="reprojection"><h2>Reprojection error</h2><p>Not measured for this job.</p></section>`;
  const summary = table(["Observations", "Mean", "RMS", "Median"], [[figure("reprojection.observations", r.observations, String(r.observations)),
    figure("reprojection.meanPx", r.meanPx, px(r.meanPx)), figure("reprojection.rmsPx", r.rmsPx, px(r.rmsPx)), figure("reprojection.medianPx", r.medianPx, px(r.medianPx))]]);
  const rows = r.perPhoto.map((p, i) => [escapeHtml(p.name), figure(`reprojection.perPhoto.${i}.observations`, p.observations, String(p.observations)),
    figure(`reprojection.perPhoto.${i}.meanPx`, p.meanPx, px(p.meanPx)), figure(`reprojection.perPhoto.${i}.rmsPx`, p.rmsPx, px(p.rmsPx))]);
  return `<section id="reprojection"><h2>Reprojection error</h2>
<p>Distance in the photo between each keypoint and its 3D point projected through the solved camera.</p>${summary}
<figure>${histogramSvg(r.histogram.binPx, r.histogram.counts)}<figcaption>Photos by RMS reprojection error, bins of ${figure("reprojection.histogram.binPx", r.histogram.binPx, px(r.histogram.binPx))}.</figcaption></figure>
${table(["Photo", "Observations", "Mean", "RMS"], rows, "long")}</section>`;
}

const GAUGE_TEXT: Record<string, string> = {
  priors: "The position priors of the adjustment hold the block: the σ include the uncertainty of its position.",
  "held-poses": "Held camera poses hold the block: the σ are relative to them.",
  "inner-constraints": "Nothing in the adjustment holds the block's position, orientation and scale; the σ are its inner precision (how well the photos place each camera relative to the others: the centroid, orientation and size of the set of camera centres held, Förstner & Wrobel 2016 §4.5). The uncertainty of the georeference itself comes on top.",
};

function sigmas(path: string, s: AxisSigmas, units: QualityFigures["units"]): string[] {
  return (["eastM", "northM", "upM"] as const).map((k) => figure(`${path}.${k}`, s[k], lengthText(s[k], units)));
}

function uncertaintySection(f: QualityFigures): string {
  const u = f.uncertainty;
  if (!u) return `<section id="uncertainty"><h2>Camera position uncertainty</h2><p>Not computed for this job.</p></section>`;
  const summary = table(["", "σ east", "σ north", "σ up"], [[escapeHtml("median"), ...sigmas("uncertainty.median", u.median, f.units)], [escapeHtml("largest"), ...sigmas("uncertainty.max", u.max, f.units)]]);
  const rows = u.perPhoto.map((p, i) => [escapeHtml(p.name), ...sigmas(`uncertainty.perPhoto.${i}`, p, f.units)]);
  const inverse = u.inverse === "dense" ? "from the full inverse of the reduced camera system" : "from each camera's own block of the reduced camera system, with the other cameras held: optimistic";
  return `<section id="uncertainty"><h2>Camera position uncertainty</h2>
<p>Standard deviations of each camera centre from the bundle adjustment's covariance (Triggs et al. 2000, "Bundle Adjustment — A Modern Synthesis", §9), scaled by the a-posteriori σ₀ = ${figure("uncertainty.sigma0Px", u.sigma0Px, px(u.sigma0Px))}, ${escapeHtml(inverse)}. ${escapeHtml(GAUGE_TEXT[u.gauge] ?? u.gauge)}</p>
${summary}${table(["Photo", "σ east", "σ north", "σ up"], rows, "long")}</section>`;
}

function rmseRow(role: string, r: ResidualRmse | null, units: QualityFigures["units"]): string[] {
  if (!r) return [escapeHtml(role), "0", "–", "–", "–", "–", "–"];
  const path = `control.rmse.${role}`;
  return [escapeHtml(role), figure(`${path}.count`, r.count, String(r.count)),
    ...(["eastM", "northM", "horizontalM", "verticalM", "threeDM"] as const).map((k) => figure(`${path}.${k}`, r[k], lengthText(r[k], units)))];
}

function controlSection(f: QualityFigures): string {
  const c = f.control;
  if (!c) return `<section id="control"><h2>Control and checkpoints</h2><p>No control points or checkpoints were given.</p></section>`;
  const rows = c.points.map((p, i) => [escapeHtml(p.name), escapeHtml(p.role), escapeHtml(p.used ? "yes" : `no: ${p.reason ?? "not used"}`),
    ...(["dx", "dy", "dz", "horizontalM", "threeDM"] as const).map((k) => figure(`control.points.${i}.${k}`, p[k], lengthText(p[k], f.units))),
    p.reprojectionPx === undefined ? "–" : figure(`control.points.${i}.reprojectionPx`, p.reprojectionPx, px(p.reprojectionPx)),
    figure(`control.points.${i}.marks`, p.marks, String(p.marks))]);
  return `<section id="control"><h2>Control and checkpoints</h2>
<p>Residuals are the adjusted position minus the stated one, east (dx), north (dy) and up (dz). Control points held the model; checkpoints were left out of the adjustment, so their residuals measure its accuracy. RMSE over the points used:</p>
${table(["Role", "Points", "RMSE east", "RMSE north", "RMSE horizontal", "RMSE vertical", "RMSE 3D"], [rmseRow("control", c.rmse.control, f.units), rmseRow("check", c.rmse.check, f.units)])}
${table(["Point", "Role", "Used", "dx", "dy", "dz", "Horizontal", "3D", "Reprojection", "Marks"], rows, "long")}</section>`;
}

function leftOutSection(f: QualityFigures): string {
  const rows = f.leftOut.map((l) => [escapeHtml(l.kind), escapeHtml(l.name), escapeHtml(l.reason)]);
  const warnings = f.warnings.length ? `<h3>Warnings</h3><ul>${f.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>` : "";
  return `<section id="left-out"><h2>Left out</h2>${rows.length ? table(["What", "Name", "Why"], rows, "long") : "<p>Nothing was left out.</p>"}${warnings}</section>`;
}

const STYLE = `
@page { size: A4; margin: 15mm; }
body { font: 10.5pt/1.4 "Helvetica Neue", Arial, sans-serif; color: #1d1d1d; margin: 0 auto; max-width: 180mm; }
h1 { font-size: 18pt; margin: 0 0 2mm; } h2 { font-size: 14pt; border-bottom: 1px solid #999; padding-bottom: 1mm; } h3 { font-size: 11.5pt; }
section { margin-bottom: 8mm; }
table { border-collapse: collapse; width: 100%; margin: 2mm 0 4mm; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #bbb; padding: 1mm 2mm; text-align: left; vertical-align: top; }
th { background: #eee; }
table.long { font-size: 9pt; }
td span[data-figure] { white-space: nowrap; }
img.map { width: 100%; max-height: 150mm; object-fit: contain; image-rendering: pixelated; border: 1px solid #999; }
.legend .swatch { margin-right: 4mm; white-space: nowrap; }
.chip { display: inline-block; width: 4mm; height: 4mm; border: 1px solid #666; margin-right: 1mm; vertical-align: middle; }
svg.chart { max-width: 100%; height: auto; }
@media print {
  section { break-before: page; page-break-before: always; }
  section#summary { break-before: auto; page-break-before: auto; }
  thead { display: table-header-group; }
  tr, figure { break-inside: avoid; page-break-inside: avoid; }
}`;

/** The whole page. `pngBase64` is the overlap map (overlap-png.ts). */
export function renderHtml(figures: QualityFigures, pngBase64: string, title: string, generatedAt: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8" /><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title)}</h1><p>Quality report, generated ${escapeHtml(generatedAt)}.</p></header>
${summarySection(figures)}
${overlapSection(figures, pngBase64)}
${calibrationSection(figures)}
${reprojectionSection(figures)}
${uncertaintySection(figures)}
${controlSection(figures)}
${leftOutSection(figures)}
</body></html>
`;
}
