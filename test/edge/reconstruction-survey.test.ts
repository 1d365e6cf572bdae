/**
 * Control points and output_crs through the real creation route (docs/API.md "Control points"):
 * accepted forms reach the job message in the waiting line unchanged in shape; each refusal is
 * a 400 in the envelope naming the line or mark and the reason, with no credit taken and no
 * file left; a reported georeference reaches the status record.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { JobMessage } from "../../shared/jobs.js";
import type { CreationRecord } from "../../shared/records.js";
import { schedulerStub } from "../../edge/scheduling/scheduler-object.js";
import { readRow } from "../../edge/objects/reconstruction-state.js";
import { accountStub, createAccount, env, keyHeaders, request } from "./helpers.js";
import { fileParts, jpeg, jpegWithOrientation, mp4, multipartInit, png, type FormPart } from "./upload-fixtures.js";
import { createUpload, patchAll, uploadIdOf } from "./tus-support.js";
import { reconstructionStub } from "./reconstruction-support.js";

/** Three photos of 400 × 300 pixels (b is a PNG) and a video. */
const PHOTOS = [
  { fileName: "a.jpg", data: jpeg(400, 300) },
  { fileName: "b.png", data: png(400, 300) },
  { fileName: "c.jpg", data: jpeg(400, 300) },
  { fileName: "walk.mp4", data: mp4() },
];

/** Points p1–p3 in a.jpg and b.png, p4 in b.png and c.jpg: four usable control points. */
const GOOD_GCP = [
  "# site survey, heights ellipsoidal",
  "WGS84 UTM 32N",
  "500000.0 5000000.0 300.0 100 100 a.jpg p1",
  "500000.0 5000000.0 300.0 110 100 b.png p1",
  "500050.0 5000000.0 301.0 200 100 a.jpg p2",
  "500050.0 5000000.0 301.0 210 100 b.png p2",
  "",
  "500000.0 5000050.0 302.0 100 200 a.jpg p3",
  "500000.0 5000050.0 302.0 110 200 b.png p3",
  "500050.0 5000050.0 303.0 300 250 b.png p4",
  "500050.0 5000050.0 303.0 310 250 c.jpg p4",
].join("\n");

function gcpForm(gcp: string, extra: FormPart[] = [], photos = PHOTOS): FormPart[] {
  return [...fileParts(photos), { name: "gcp", fileName: "gcp_list.txt", contentType: "text/plain", data: gcp }, ...extra];
}

/** The job the waiting line holds for a reconstruction (what compute will be sent). */
async function waitingJob(id: string): Promise<JobMessage> {
  const rows = await runInDurableObject(schedulerStub(env), (_instance, state) =>
    state.storage.sql.exec<{ job: string }>(`SELECT job FROM waiting WHERE reconstruction_id = ?`, id).toArray(),
  );
  expect(rows).toHaveLength(1);
  return JobMessage.parse(JSON.parse(rows[0]!.job));
}

async function inputKeys(): Promise<string[]> {
  return (await env.BUCKET.list({ prefix: "inputs/", limit: 1000 })).objects.map((o) => o.key).sort();
}

/** A refusal: 400 invalid_request, no new debit, the balance as before, no input added since `keysBefore`; answers the message. */
async function refusedWith(res: Response, accountId: string, balanceBefore: number, keysBefore: string[], debitsBefore = 0): Promise<string> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body).toMatchObject({ error: { code: "invalid_request" } });
  const ledger = await accountStub(accountId).ledger();
  expect(ledger.filter((row) => row.kind === "debit")).toHaveLength(debitsBefore);
  expect(await accountStub(accountId).balance()).toBe(balanceBefore);
  expect(await inputKeys()).toEqual(keysBefore);
  return body.error.message;
}

async function finishedUpload(apiKey: string, data: Uint8Array, name: string): Promise<string> {
  const path = await createUpload(apiKey, data.length, name);
  await patchAll(apiKey, path, data, [data.length]);
  return uploadIdOf(path);
}

function createFrom(apiKey: string, body: unknown): Promise<Response> {
  return request("/v1/reconstruction", { method: "POST", headers: keyHeaders(apiKey, { "Content-Type": "application/json" }), body: JSON.stringify(body) });
}

describe("control points accepted", () => {
  it("takes a gcp_list.txt file part with checkpoints and output_crs into the job message", async () => {
    const account = await createAccount(2);
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, gcpForm(GOOD_GCP, [{ name: "checkpoints", data: "p4" }, { name: "output_crs", data: "EPSG:32632" }])));
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as CreationRecord;
    const job = await waitingJob(id);
    expect(job.output_crs).toBe("EPSG:32632");
    expect(job.control_points!.crs).toBe("WGS84 UTM 32N");
    expect(job.control_points!.points.map((p) => [p.name, p.role, p.marks.map((m) => m.image)])).toEqual([
      ["p1", "control", ["a.jpg", "b.png"]],
      ["p2", "control", ["a.jpg", "b.png"]],
      ["p3", "control", ["a.jpg", "b.png"]],
      ["p4", "check", ["b.png", "c.jpg"]],
    ]);
    expect(job.control_points!.points[3]).toMatchObject({ coordinates: [500050, 5000050, 303], accuracy: { horizontal: 0.05, vertical: 0.1 }, marks: [{ image: "b.png", x: 300, y: 250 }, { image: "c.jpg", x: 310, y: 250 }] });
    // Not a file: the gcp part is not stored among the inputs.
    expect((await env.BUCKET.list({ prefix: `inputs/${id}/` })).objects).toHaveLength(4);
    expect(await accountStub(account.accountId).balance()).toBe(1);
  });

  it("takes the JSON form as a form field, and output_crs alone", async () => {
    const account = await createAccount(2);
    const point = (name: string) => ({ name, coordinates: [8.5, 47.3, 400], marks: [{ image: "a.jpg", x: 1, y: 1 }, { image: "c.jpg", x: 399, y: 299 }] });
    const controlPoints = { crs: "+proj=longlat +datum=WGS84 +no_defs", points: [point("a"), point("b"), point("c")] };
    let res = await request("/v1/reconstruction", multipartInit(account.apiKey, [...fileParts(PHOTOS), { name: "control_points", data: JSON.stringify(controlPoints) }]));
    expect(res.status).toBe(202);
    let job = await waitingJob(((await res.json()) as CreationRecord).id);
    expect(job.control_points).toMatchObject({ crs: controlPoints.crs, points: [{ name: "a", role: "control" }, { name: "b" }, { name: "c" }] });
    expect(job.output_crs).toBeUndefined();
    res = await request("/v1/reconstruction", multipartInit(account.apiKey, [{ name: "output_crs", data: "EPSG:2056" }, ...fileParts(PHOTOS)]));
    expect(res.status).toBe(202);
    job = await waitingJob(((await res.json()) as CreationRecord).id);
    expect(job.output_crs).toBe("EPSG:2056");
    expect(job.control_points).toBeUndefined();
  });

  it("leaves an ordinary job without survey fields", async () => {
    const account = await createAccount(1);
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, fileParts(PHOTOS)));
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as CreationRecord;
    const job = await waitingJob(id);
    expect("control_points" in job || "output_crs" in job).toBe(false);
  });

  it("takes JSON control_points with tus uploads, and checks marks against the EXIF-rotated size read from the stored copy", async () => {
    const account = await createAccount(3);
    // Stored 400 × 300 with orientation 6: displayed 300 wide and 400 high.
    const ids = [
      await finishedUpload(account.apiKey, jpegWithOrientation(400, 300, 6), "r1.jpg"),
      await finishedUpload(account.apiKey, jpeg(400, 300), "r2.jpg"),
    ];
    const point = (name: string, y: number) => ({ name, coordinates: [8.5, 47.3, 400 + y], marks: [{ image: "r1.jpg", x: 250, y }, { image: "r2.jpg", x: 250, y: 100 }] });
    const points = [point("a", 350), point("b", 360), { ...point("c", 370), crs: "EPSG:4326", role: "check", accuracy: { horizontal: 0.02, vertical: 0.03 } }, point("d", 380)];
    const res = await createFrom(account.apiKey, { uploads: ids, control_points: { crs: "EPSG:4326", points }, output_crs: "epsg:32632" });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as CreationRecord;
    const job = await waitingJob(id);
    expect(job.output_crs).toBe("EPSG:32632");
    expect(job.control_points).toEqual({
      crs: "EPSG:4326",
      points: points.map((p) => ({ name: p.name, role: "role" in p ? "check" : "control", coordinates: p.coordinates, accuracy: "accuracy" in p ? p.accuracy : { horizontal: 0.05, vertical: 0.1 }, marks: p.marks })),
    });

    // The same marks on the unrotated photo would be outside it (y 350 > 300): the stored copy's EXIF decides.
    const others = [await finishedUpload(account.apiKey, jpeg(400, 300), "r1.jpg"), await finishedUpload(account.apiKey, jpeg(400, 300), "r2.jpg")];
    const before = await inputKeys();
    const refused = await createFrom(account.apiKey, { uploads: others, control_points: { crs: "EPSG:4326", points } });
    const message = await refusedWith(refused, account.accountId, 2, before, 1);
    expect(message).toContain('points[0].marks[0]: the mark (250, 350) is outside "r1.jpg" (400 × 300 pixels as displayed)');
  });

  it("takes a gcp_list.txt as text in the from-uploads body", async () => {
    const account = await createAccount(1);
    const ids = [await finishedUpload(account.apiKey, jpeg(400, 300), "a.jpg"), await finishedUpload(account.apiKey, png(400, 300), "b.png"), await finishedUpload(account.apiKey, jpeg(400, 300), "c.jpg")];
    const res = await createFrom(account.apiKey, { uploads: ids, gcp: GOOD_GCP, checkpoints: ["p1"] });
    expect(res.status).toBe(202);
    const job = await waitingJob(((await res.json()) as CreationRecord).id);
    expect(job.control_points!.points.map((p) => p.role)).toEqual(["check", "control", "control", "control"]);
  });

  it("carries compute's georeference in the status record once completed, and not before", async () => {
    const account = await createAccount(1);
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, gcpForm(GOOD_GCP)));
    const { id } = (await res.json()) as CreationRecord;
    const status = async () => (await request(`/v1/reconstruction/${id}/status`, { headers: keyHeaders(account.apiKey) })).json() as Promise<Record<string, unknown>>;
    expect("georeference" in (await status())).toBe(false);
    const stub = reconstructionStub(id);
    await stub.start(1);
    const georeference = { crs: "EPSG:32632", offset: [500000, 5000000, 300] };
    expect(await stub.complete({ attempt: 1, formats: [{ format: "glb", file_size: 10 }, { format: "ortho", file_size: 20 }, { format: "report", file_size: 5 }], georeference })).toMatchObject({ accepted: true });
    expect(await status()).toMatchObject({ status: "completed", georeference, formats: [{ format: "glb" }, { format: "ortho" }, { format: "report" }] });
  });
});

describe("control points refused (400 invalid_request naming the line or mark; no credit taken)", () => {
  const replace = (line: number, text: string) => GOOD_GCP.split("\n").map((l, i) => (i + 1 === line ? text : l)).join("\n");
  it.each([
    ["an unreadable coordinate system", replace(2, "UTM zone 32"), [], "line 2: the coordinate system cannot be read"],
    ["an unknown EPSG code", replace(2, "EPSG:999999"), [], "line 2: the coordinate system cannot be read: EPSG:999999"],
    ["a line that does not parse", replace(4, "500000.0 5000000.0 abc 110 100 b.png p1"), [], 'line 4: geo_z "abc" is not a number'],
    ["a short line", replace(5, "500050.0 5000000.0 301.0 200 100"), [], "line 5: expected geo_x"],
    ["an image not in the upload", replace(8, "500000.0 5000050.0 302.0 100 200 zz.jpg p3"), [], 'line 8: image "zz.jpg" is not in the upload'],
    ["a mark on a video", replace(8, "500000.0 5000050.0 302.0 100 200 walk.mp4 p3"), [], 'line 8: "walk.mp4" is a video'],
    ["a mark outside its photo", replace(10, "500050.0 5000050.0 303.0 300 301 b.png p4"), [], 'line 10: the mark (300, 301) is outside "b.png" (400 × 300'],
    ["too few control points once checkpoints are set apart", GOOD_GCP, [{ name: "checkpoints", data: "p1,p2" }], "2 control points are marked in two or more photos; at least 3"],
    ["an unknown checkpoint", GOOD_GCP, [{ name: "checkpoints", data: "p9" }], 'checkpoints: "p9" is not the name of a point'],
    ["a geographic output_crs", GOOD_GCP, [{ name: "output_crs", data: "EPSG:4326" }], "output_crs: EPSG:4326 is geographic"],
    ["an output_crs in US feet", GOOD_GCP, [{ name: "output_crs", data: "EPSG:2263" }], "output_crs: EPSG:2263 is in us-ft"],
    ["an output_crs that is no EPSG code", GOOD_GCP, [{ name: "output_crs", data: "+proj=utm +zone=32" }], "is not an EPSG code"],
  ] as Array<[string, string, FormPart[], string]>)("%s", async (_what, gcp, extra, expected) => {
    const account = await createAccount(1);
    const before = await inputKeys();
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, gcpForm(gcp, extra)));
    expect(await refusedWith(res, account.accountId, 1, before)).toContain(expected);
  });

  it("refuses more than 10,000 marks in all", async () => {
    const account = await createAccount(1);
    const lines = Array.from({ length: 10_001 }, (_, i) => `${500000 + (i % 3)} 5000000 300 ${i % 400} 10 ${i % 2 ? "a.jpg" : "b.png"} p${i % 3}`);
    const before = await inputKeys();
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, gcpForm(["EPSG:32632", ...lines].join("\n"))));
    expect(await refusedWith(res, account.accountId, 1, before)).toContain("10001 marks, more than the limit of 10000");
  });

  it("names the mark index in the JSON form, and refuses mixed coordinate systems", async () => {
    const account = await createAccount(1);
    const ids = [await finishedUpload(account.apiKey, jpeg(400, 300), "a.jpg"), await finishedUpload(account.apiKey, jpeg(400, 300), "b.jpg")];
    const point = (name: string) => ({ name, coordinates: [500000, 5000000, 300], marks: [{ image: "a.jpg", x: 1, y: 1 }, { image: "b.jpg", x: 2, y: 2 }] });
    const missing = { ...point("c"), marks: [{ image: "a.jpg", x: 1, y: 1 }, { image: "nope.jpg", x: 2, y: 2 }] };
    const before = await inputKeys();
    let res = await createFrom(account.apiKey, { uploads: ids, control_points: { crs: "EPSG:32632", points: [point("a"), point("b"), missing] } });
    expect(await refusedWith(res, account.accountId, 1, before)).toContain('control_points: points[2].marks[1]: image "nope.jpg" is not in the upload');
    res = await createFrom(account.apiKey, { uploads: ids, control_points: { points: [{ ...point("a"), crs: "EPSG:32632" }, { ...point("b"), crs: "WGS84 UTM 32N" }, { ...point("c"), crs: "EPSG:32633" }] } });
    expect(await refusedWith(res, account.accountId, 1, before)).toContain('points[2].crs: "EPSG:32633" is not the coordinate system of points[0].crs');
    res = await createFrom(account.apiKey, { uploads: ids, gcp: GOOD_GCP, control_points: { crs: "EPSG:32632", points: [point("a")] } });
    expect(await refusedWith(res, account.accountId, 1, before)).toContain("both a gcp file and control_points");
    // The uploads were released each time: a correct request still takes them.
    res = await createFrom(account.apiKey, { uploads: ids, control_points: { crs: "EPSG:32632", points: [point("a"), point("b"), point("c")] } });
    expect(res.status).toBe(202);
  });

  it("answers no_files first for a form with a gcp file and no photo", async () => {
    const account = await createAccount(1);
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, [{ name: "gcp", fileName: "gcp_list.txt", data: GOOD_GCP }]));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "no_files" } });
    expect(await accountStub(account.accountId).balance()).toBe(1);
  });
});

describe("objects created before the survey columns", () => {
  it("get the survey and georeference columns on first read, rows kept, both NULL", async () => {
    const account = await createAccount(1);
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, fileParts(PHOTOS)));
    const { id } = (await res.json()) as CreationRecord;
    const row = await runInDurableObject(reconstructionStub(id), (_instance, state) => {
      const sql = state.storage.sql;
      // The table as an older version created it.
      sql.exec("ALTER TABLE reconstruction DROP COLUMN survey");
      sql.exec("ALTER TABLE reconstruction DROP COLUMN georeference");
      expect(readRow(sql, false)).not.toHaveProperty("survey");
      return readRow(sql, true);
    });
    expect(row).toMatchObject({ id, status: "pending", total_files: 4, survey: null, georeference: null });
  });
});
