/** @module Pieces of the reconstruction detail page: the live status block and the report tables. */
import { html } from "hono/html";
import type { ReportRecord } from "../../shared/listing.js";
import type { StatusRecord } from "../../shared/records.js";
import { waitingText } from "../../shared/waiting-text.js";

export function statusBlock(record: StatusRecord, eta: string) {
  const failure = record.error
    ? html`<div class="notice error" role="alert"><p><strong>Failed: ${record.error.code}</strong>. ${record.error.message}</p><p>${record.error.suggestion}</p>
        <p>${record.credit_refunded ? "Your credit was refunded." : "The credit refund is on its way."}</p></div>`
    : "";
  return html`<section class="card" data-live-id="${record.id}" data-status="${record.status}" data-reload-when-done aria-labelledby="status-title">
    <h2 id="status-title">Status: <span data-field="status">${record.status}</span></h2>
    ${record.completed_at
      ? html`<p>Finished <time datetime="${record.completed_at}">${record.completed_at.slice(0, 16).replace("T", " ")} UTC</time></p>`
      : html`<p><progress max="100" value="${record.progress}" data-field="progress" aria-label="Progress">${record.progress}%</progress> <span data-field="percent">${record.progress}%</span>
      · stage <span data-field="stage">${record.stage ?? waitingText(record.queue)}</span> · <span data-field="eta">${eta}</span></p>`}
    <p>${record.total_files} files · created <time datetime="${record.created_at}">${record.created_at.slice(0, 16).replace("T", " ")} UTC</time></p>
    ${failure}</section>`;
}

export function reportSection(report: ReportRecord | null) {
  if (!report) return "";
  const inputs = report.inputs.map(
    (i) => html`<tr><td data-label="File">${i.file}</td><td data-label="Kind">${i.kind ?? "–"}</td><td data-label="Registered">${i.registered ? "yes" : "no"}</td><td data-label="Why not">${i.reason ?? ""}</td></tr>`,
  );
  const stages = report.stages.map((s) => html`<tr><td>${s.stage}</td><td class="num">${s.wall_seconds.toFixed(1)} s</td></tr>`);
  return html`<section aria-labelledby="report-title"><h2 id="report-title">Report</h2>
    <p>${report.registered} of ${report.images} images registered · ${report.wall_seconds.toFixed(0)} s in all · quality ${report.quality}</p>
    <div class="table-wrap"><table class="stack-on-phone"><caption>Per image</caption><thead><tr><th scope="col">File</th><th scope="col">Kind</th><th scope="col">Registered</th><th scope="col">Why not</th></tr></thead><tbody>${inputs}</tbody></table></div>
    <div class="table-wrap"><table><caption>Per stage</caption><thead><tr><th scope="col">Stage</th><th scope="col" class="num">Wall time</th></tr></thead><tbody>${stages}</tbody></table></div>
  </section>`;
}
