/**
 * @module The dashboard's small client script (bundled by scripts/build-dashboard.mjs): the copy
 * button of a new key, the upload page's per-file checks, drag and drop and progress bar, and
 * the live status of reconstructions still running. Every page works without it.
 */
import { checkFiles, type CheckedFile, type Limits } from "./file-checks.js";
import { waitingText, type QueuePlaceLike } from "../shared/waiting-text.js";

function setupCopyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-copy-target]")) {
    const input = document.getElementById(button.dataset.copyTarget!) as HTMLInputElement | null;
    if (!input) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        document.execCommand("copy"); // older browsers, or no clipboard permission
      }
      button.textContent = "Copied";
    });
  }
}

function formatBytes(bytes: number): string {
  return bytes < 1048576 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`;
}

function setupUpload(): void {
  const form = document.getElementById("upload-form") as HTMLFormElement | null;
  if (!form) return;
  const input = form.querySelector<HTMLInputElement>("#files")!;
  const dropzone = form.querySelector<HTMLElement>("#dropzone")!;
  const list = form.querySelector<HTMLUListElement>("#file-list")!;
  const message = form.querySelector<HTMLElement>("#upload-message")!;
  const progress = form.querySelector<HTMLProgressElement>("#upload-progress")!;
  const button = form.querySelector<HTMLButtonElement>("#upload-button")!;
  const limits: Limits = {
    maxImage: Number(form.dataset.maxImage),
    maxVideo: Number(form.dataset.maxVideo),
    maxRequest: Number(form.dataset.maxRequest),
    maxFiles: Number(form.dataset.maxFiles),
  };
  let selected: File[] = [];
  let checked: CheckedFile[] = [];

  async function refresh(): Promise<void> {
    checked = await checkFiles(selected, limits);
    list.replaceChildren(
      ...checked.map((c) => {
        const item = document.createElement("li");
        item.className = c.problem ? "bad" : "ok";
        item.textContent = `${c.file.name} — ${c.kind ?? "unknown"}, ${formatBytes(c.file.size)}${c.problem ? `: ${c.problem}` : ""}`;
        return item;
      }),
    );
    const problems = checked.filter((c) => c.problem).length;
    message.textContent = selected.length === 0 ? "" : problems ? `${problems} file(s) cannot be uploaded; remove them or choose others.` : `${selected.length} file(s) ready.`;
  }

  input.addEventListener("change", () => {
    selected = [...(input.files ?? [])];
    void refresh();
  });
  dropzone.addEventListener("dragover", (event) => {
    event.preventDefault();
    dropzone.classList.add("over");
  });
  dropzone.addEventListener("dragleave", () => dropzone.classList.remove("over"));
  dropzone.addEventListener("drop", (event) => {
    event.preventDefault();
    dropzone.classList.remove("over");
    selected = [...selected, ...(event.dataTransfer?.files ?? [])];
    input.required = false; // files came by drag and drop, not through the input
    void refresh();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await refresh();
    if (selected.length === 0) return void (message.textContent = "Choose or drop at least one photo or video.");
    if (checked.some((c) => c.problem)) return;
    const body = new FormData();
    body.append("quality", (form.querySelector("#quality") as HTMLSelectElement).value);
    appendSurveyFields(form, body);
    for (const file of selected) body.append("files", file, file.name);
    button.disabled = true;
    message.textContent = "Uploading…";
    const request = new XMLHttpRequest();
    request.open("POST", "/dashboard/api/reconstructions");
    request.setRequestHeader("X-CSRF-Token", form.dataset.csrf!);
    request.setRequestHeader("Accept", "application/json");
    request.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) progress.value = Math.round((100 * e.loaded) / e.total);
    });
    request.addEventListener("load", () => {
      const answer = JSON.parse(request.responseText || "{}") as { id?: string; error?: { message: string; suggestion: string } };
      if (request.status === 202 && answer.id) {
        progress.value = 100;
        location.assign(`/dashboard/reconstructions/${answer.id}`);
        return;
      }
      button.disabled = false;
      message.textContent = answer.error ? `${answer.error.message} ${answer.error.suggestion}` : `Upload failed (${request.status}).`;
    });
    request.addEventListener("error", () => {
      button.disabled = false;
      message.textContent = "The upload was interrupted; check the connection and try again.";
    });
    request.send(body);
  });
}

/** The optional control-point file, checkpoint names and output system, only when given (docs/API.md "Ground control"). */
function appendSurveyFields(form: HTMLFormElement, body: FormData): void {
  const gcp = form.querySelector<HTMLInputElement>("#gcp")?.files?.[0];
  if (gcp) body.append("gcp", gcp, gcp.name);
  const checkpoints = form.querySelector<HTMLInputElement>("#checkpoints")?.value.trim();
  if (checkpoints) body.append("checkpoints", checkpoints);
  const outputCrs = form.querySelector<HTMLInputElement>("#output-crs")?.value.trim();
  if (outputCrs) body.append("output_crs", outputCrs);
}

interface LiveStatus {
  status: string;
  progress: number;
  stage: string | null;
  estimated_completion: string;
  queue?: QueuePlaceLike;
}

function etaText(record: LiveStatus): string {
  if (record.status === "completed" || record.status === "failed") return "";
  const seconds = Math.max(0, (Date.parse(record.estimated_completion) - Date.now()) / 1000);
  return seconds < 60 ? `about ${Math.round(seconds)} s left` : `about ${Math.round(seconds / 60)} min left`;
}

function setupLiveStatus(): void {
  const live = [...document.querySelectorAll<HTMLElement>("[data-live-id]")].filter((el) => el.dataset.status === "pending" || el.dataset.status === "processing");
  if (live.length === 0) return;
  const poll = async () => {
    await Promise.all(
      live.map(async (el) => {
        if (el.dataset.status === "completed" || el.dataset.status === "failed") return;
        const res = await fetch(`/dashboard/api/reconstructions/${el.dataset.liveId}`, { headers: { Accept: "application/json" } });
        if (!res.ok) return;
        const record = (await res.json()) as LiveStatus;
        const field = (name: string) => el.querySelector<HTMLElement>(`[data-field="${name}"]`);
        field("status")!.textContent = record.status;
        (field("progress") as HTMLProgressElement).value = record.progress;
        field("percent")!.textContent = `${record.progress}%`;
        field("stage")!.textContent = record.stage ?? (record.status === "pending" ? waitingText(record.queue) : "");
        field("eta")!.textContent = etaText(record);
        el.dataset.status = record.status;
        if ((record.status === "completed" || record.status === "failed") && el.hasAttribute("data-reload-when-done")) location.reload();
      }),
    ).catch(() => undefined); // a missed poll is retried on the next tick
    if (live.some((el) => el.dataset.status === "pending" || el.dataset.status === "processing")) setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
}

setupCopyButtons();
setupUpload();
setupLiveStatus();
