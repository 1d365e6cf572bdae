/**
 * @module Dashboard reconstructions: the list (newest first, paged, live while processing), the
 * new-reconstruction page (drag and drop, per-file checks, upload progress, quality), and the
 * detail page (status, failure and refund, per-image report, downloads, 3D viewer). Each page is
 * complete HTML; dashboard.js only keeps the numbers current and drives the upload.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { configOf } from "../env.js";
import { signedUrl } from "../downloads/signing.js";
import { listReconstructions } from "../listing/list.js";
import { readReport } from "../listing/report.js";
import { FORMATS, isFormat, type Format } from "../../shared/formats.js";
import { ListQuery } from "../../shared/listing.js";
import { RECONSTRUCTION_STATUSES, ReconstructionId, type StatusRecord } from "../../shared/records.js";
import { Quality } from "../../shared/jobs.js";
import { duration, notice, page } from "./layout.js";
import type { DashboardContext, DashboardEnv } from "./session.js";
import { reportSection, statusBlock } from "./reconstruction-parts.js";

export const reconstructionPages = new Hono<DashboardEnv>();

function eta(record: StatusRecord): string {
  if (record.status === "completed" || record.status === "failed") return "";
  return `about ${duration((Date.parse(record.estimated_completion) - Date.now()) / 1000)} left`;
}

reconstructionPages.get("/", async function listPage(c) {
  const user = c.get("user")!;
  const parsed = ListQuery.safeParse({ cursor: c.req.query("cursor") || undefined, status: c.req.query("status") || undefined });
  const query = parsed.success ? parsed.data : ListQuery.parse({});
  const list = await listReconstructions(c.env, user.accountId, query);
  const rows = list.data.map(
    (r) => html`<tr data-live-id="${r.id}" data-status="${r.status}">
      <td data-label="Id"><a href="/dashboard/reconstructions/${r.id}">${r.id}</a></td>
      <td data-label="Created"><time datetime="${r.created_at}">${r.created_at.slice(0, 16).replace("T", " ")} UTC</time></td>
      <td data-label="Status" data-field="status">${r.status}</td>
      <td data-label="Progress"><progress max="100" value="${r.progress}" data-field="progress" aria-label="Progress of ${r.id}">${r.progress}%</progress> <span data-field="percent">${r.progress}%</span></td>
      <td data-label="Stage" data-field="stage">${r.stage ?? ""}</td>
      <td data-label="Time left" data-field="eta">${eta(r)}</td>
    </tr>`,
  );
  const older = list.next_cursor ? html`<a href="?cursor=${list.next_cursor}${query.status ? `&status=${query.status}` : ""}">Older reconstructions</a>` : "";
  return c.html(
    page(
      { title: "Reconstructions", user, csrf: c.get("csrf"), current: "reconstructions", scripts: ["dashboard.js"] },
      html`${notice("info", c.req.query("welcome") ? `Welcome! Your free trial has ${configOf(c.env).TRIAL_CREDITS} credits.` : undefined)}
      <p><a class="button" href="/dashboard/reconstructions/new">New reconstruction</a></p>
      <form method="get" action="/dashboard/reconstructions" class="row">
        <label for="status-filter">Show</label>
        <select id="status-filter" name="status"><option value="">all</option>${RECONSTRUCTION_STATUSES.map((s) => html`<option value="${s}"${query.status === s ? " selected" : ""}>${s}</option>`)}</select>
        <button type="submit">Filter</button>
      </form>
      <div class="table-wrap"><table class="stack-on-phone"><caption>Your reconstructions, newest first</caption>
        <thead><tr><th scope="col">Id</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Stage</th><th scope="col">Time left</th></tr></thead>
        <tbody>${rows.length ? rows : html`<tr><td colspan="6">None yet.</td></tr>`}</tbody></table></div>
      <p>${older}</p>`,
    ),
  );
});

reconstructionPages.get("/new", async function newPage(c) {
  const config = configOf(c.env);
  const user = c.get("user")!;
  const balance = await c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(user.accountId)).balance();
  const csrf = c.get("csrf")!;
  return c.html(
    page(
      { title: "New reconstruction", user, csrf, current: "new", scripts: ["dashboard.js"] },
      html`<p>Balance: <strong>${balance}</strong> credits; this costs 1.</p>
      <p>Photos (JPEG, PNG, HEIC) up to ${Math.round(config.MAX_IMAGE_BYTES / 1048576)} MiB each, videos (MP4, MOV) up to ${Math.round(config.MAX_VIDEO_BYTES / 1048576)} MiB each,
        ${Math.round(config.MAX_REQUEST_BYTES / 1048576)} MiB and ${config.MAX_FILES_PER_REQUEST} files in all. Take 20 or more overlapping photos around the object.</p>
      <form id="upload-form" class="stack" method="post" enctype="multipart/form-data" action="/dashboard/api/reconstructions?redirect=1&amp;csrf=${encodeURIComponent(csrf)}"
        data-csrf="${csrf}" data-max-image="${config.MAX_IMAGE_BYTES}" data-max-video="${config.MAX_VIDEO_BYTES}" data-max-request="${config.MAX_REQUEST_BYTES}" data-max-files="${config.MAX_FILES_PER_REQUEST}">
        <div id="dropzone" class="dropzone">
          <label for="files">Photos and videos</label>
          <input id="files" name="files" type="file" multiple required accept="image/jpeg,image/png,image/heic,image/heif,.heic,video/mp4,video/quicktime,.mov">
          <p class="hint">or drop them here</p>
        </div>
        <ul id="file-list" class="file-list" aria-live="polite"></ul>
        <label for="quality">Quality</label>
        <select id="quality" name="quality">${Quality.options.map((q) => html`<option value="${q}"${q === "standard" ? " selected" : ""}>${q}</option>`)}</select>
        <details id="survey" class="stack">
          <summary>Survey: ground control points (optional)</summary>
          <p class="hint">OpenDroneMap's gcp_list.txt: the coordinate system on the first line (EPSG:&lt;code&gt;, a PROJ string or WGS84 UTM &lt;zone&gt;&lt;N|S&gt;), then
            <code>geo_x geo_y geo_z im_x im_y image_name point_name</code> per mark. See the API documentation, "Ground control".</p>
          <label for="gcp">Control points file</label>
          <input id="gcp" name="gcp" type="file" accept=".txt,text/plain">
          <label for="checkpoints">Checkpoints (point names, comma-separated; measured, never used to adjust)</label>
          <input id="checkpoints" name="checkpoints" type="text" autocomplete="off" placeholder="e.g. gcp7,gcp8">
          <label for="output-crs">Output coordinate system (optional)</label>
          <input id="output-crs" name="output_crs" type="text" autocomplete="off" placeholder="EPSG:32632; default: the control points' system">
        </details>
        <button type="submit" id="upload-button">Upload and start</button>
        <label for="upload-progress" class="progress-label">Upload progress</label>
        <progress id="upload-progress" max="100" value="0">0%</progress>
        <p id="upload-message" role="status" aria-live="polite"></p>
      </form>`,
    ),
  );
});

/** The caller's record, or null (malformed, unknown and foreign ids alike). */
async function owned(c: DashboardContext, rawId: string): Promise<StatusRecord | null> {
  const id = ReconstructionId.safeParse(rawId);
  if (!id.success) return null;
  return c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id.data)).status(c.get("user")!.accountId);
}

async function download(c: DashboardContext, record: StatusRecord, format: Format): Promise<string> {
  const config = configOf(c.env);
  const expires = Math.floor(Date.now() / 1000) + config.DOWNLOAD_TTL_SECONDS;
  return signedUrl(config.CDN_URL, { reconstructionId: record.id, format, expires }, config.SIGNING_SECRET);
}

function notFound(c: DashboardContext) {
  return c.html(page({ title: "Not found", user: c.get("user"), csrf: c.get("csrf") }, html`<p>No reconstruction with this id. <a href="/dashboard/reconstructions">Back to the list</a></p>`), 404);
}

/** Every format the status record lists (models and camera exports), in the API's format order. */
function offeredFormats(record: StatusRecord): Array<{ format: Format; file_size: number }> {
  return [...(record.formats ?? [])].sort((a, b) => FORMATS.indexOf(a.format) - FORMATS.indexOf(b.format));
}

/** 2.3 MiB, 41 KiB: the camera exports are often well under a MiB. */
function fileSize(bytes: number): string {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${Math.max(1, Math.round(bytes / 1024))} KiB`;
}

reconstructionPages.get("/:id", async function detailPage(c) {
  const record = await owned(c, c.req.param("id"));
  if (!record) return notFound(c);
  const available = new Set((record.formats ?? []).map((f) => f.format));
  const report = record.status === "completed" || record.status === "failed" ? await readReport(c.env.BUCKET, record) : null;
  const viewer = available.has("glb")
    ? html`<section aria-labelledby="viewer-title"><h2 id="viewer-title">3D view</h2>
      <div id="viewer" class="viewer" data-glb="${await download(c, record, "glb")}" ${available.has("ply") ? html`data-ply="${await download(c, record, "ply")}"` : ""}>
        <canvas id="viewer-canvas" tabindex="0" aria-label="Interactive 3D view of the model: drag to orbit, scroll or pinch to zoom"></canvas>
        <fieldset class="viewer-controls"><legend>Show</legend>
          <label><input type="radio" name="geometry" value="mesh" checked> Mesh</label>
          <label><input type="radio" name="geometry" value="points"${available.has("ply") ? "" : " disabled"}> Point cloud</label>
          <label><input type="checkbox" id="show-cameras" checked> Cameras</label>
        </fieldset>
        <p id="viewer-status" role="status">Loading the model… (needs JavaScript and WebGL)</p>
      </div></section>`
    : "";
  const survey = record.georeference
    ? html`<section aria-labelledby="survey-title"><h2 id="survey-title">Survey</h2>
      <p>Coordinates: <strong>${record.georeference.crs.startsWith("EPSG:") ? record.georeference.crs : "WKT (see the LAS)"}</strong>; model coordinates plus
        <code>${record.georeference.offset.map((v) => v.toFixed(3)).join(", ")}</code> are coordinates in it.</p>
      ${available.has("report") ? html`<p><a href="/dashboard/reconstructions/${record.id}/download/report" data-format="report">Quality report</a> (printable: control and checkpoint residuals, overlap, calibration)</p>` : ""}
      ${available.has("ortho")
        ? html`<figure id="ortho-preview" class="ortho-preview" data-ortho="${await download(c, record, "ortho")}"><canvas aria-label="Orthophoto, north up"></canvas>
          <figcaption role="status">Loading the orthophoto… (needs JavaScript)</figcaption></figure>`
        : ""}</section>`
    : "";
  const downloads = html`<section aria-labelledby="downloads-title"><h2 id="downloads-title">Downloads</h2>
    ${record.status === "completed"
      ? html`<ul class="downloads">${offeredFormats(record).map(({ format: f, file_size }) => html`<li><a href="/dashboard/reconstructions/${record.id}/download/${f}" data-format="${f}">${f.toUpperCase()}</a> (${fileSize(file_size)})</li>`)}</ul>`
      : html`<p>Files are ready once the reconstruction is completed.</p>`}</section>`;
  return c.html(
    page(
      { title: `Reconstruction ${record.id}`, user: c.get("user"), csrf: c.get("csrf"), current: "reconstructions", scripts: ["dashboard.js", ...(available.has("glb") ? ["viewer.js"] : []), ...(available.has("ortho") ? ["ortho-preview.js"] : [])] },
      html`${statusBlock(record, eta(record))}${viewer}${survey}${downloads}${reportSection(report)}`,
    ),
  );
});

reconstructionPages.get("/:id/download/:format", async function downloadRedirect(c) {
  const record = await owned(c, c.req.param("id"));
  const format = c.req.param("format");
  if (!record || !isFormat(format) || !record.formats?.some((f) => f.format === format)) return notFound(c);
  return c.redirect(await download(c, record, format), 302);
});
