/**
 * @module The survey options of a creation (docs/API.md "Control points"): a gcp_list.txt (file
 * part `gcp`, or `gcp` text in the JSON body) or JSON `control_points`, the `checkpoints` names
 * and `output_crs`, turned into the job's `control_points` and `output_crs` once every file is
 * stored, or refused with `400 invalid_request` naming the line or the mark and the reason.
 *
 * The check runs after the upload because the marks name uploaded files and the file part may
 * come before the photos; the creation's clean-up then releases the credit and deletes the files,
 * as for any rejection. The only module of the edge that reads coordinate systems (shared/crs.ts
 * and its EPSG table), which it imports dynamically: the bundler then evaluates proj4 and
 * proj4-list's 0.8 MB table on the first request that names a coordinate system, not at every
 * start of the Worker.
 */
import { ApiError } from "../errors.js";
import { ControlPointsInput, checkAgainstImages, gcpPoints, jsonPoints, parseGcpList, type ControlPoints, type ControlProblem, type ImageFacts, type LocatedControlPoints } from "../../shared/control-points.js";
import type * as CrsModule from "../../shared/crs.js";
import type { InputKind } from "../../shared/jobs.js";
import { isVideo } from "./sniff.js";

/** What the checks need of a stored input (ingest.ts IngestedInput has it; not imported, as ingest.ts imports this module). */
export interface StoredInput {
  name: string;
  kind: InputKind;
  /** Size as displayed, when its header gave it. */
  width?: number;
  height?: number;
}

/** What the request said about the survey, before any check. */
export interface SurveyFields {
  /** The text of a gcp_list.txt. */
  gcp?: string;
  /** Names of the gcp file's points that are checkpoints. */
  checkpoints?: string[];
  /** The JSON form, as parsed from the body (checked here). */
  controlPoints?: unknown;
  outputCrs?: string;
}

export interface SurveyOptions {
  control_points?: ControlPoints;
  output_crs?: string;
}

/** A gcp_list.txt is text of about 60 bytes per mark: 1 MiB is some 15,000 marks. */
export const MAX_GCP_BYTES = 1024 * 1024;
/**
 * Marks of one job: the control points travel in the job message, which the object and the
 * waiting line store as one SQLite value (at most 2 MB in a Durable Object); 10,000 marks are
 * about 0.7 MB of JSON.
 */
export const MAX_MARKS = 10_000;
/** Problems listed in one message; the rest are counted. */
const LISTED_PROBLEMS = 5;
const EPSG_CODE = /^EPSG:(\d{1,6})$/i;

type Crs = typeof CrsModule;
let crsModule: Promise<Crs> | undefined;
function loadCrs(): Promise<Crs> {
  return (crsModule ??= import("../../shared/crs.js"));
}

/** Splits a form's `checkpoints` value: names separated by commas or white space. */
export function checkpointNames(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name !== "");
}

/** The job's survey options, or ApiError 400 naming what is wrong. */
export async function surveyOptions(fields: SurveyFields, inputs: StoredInput[]): Promise<SurveyOptions> {
  const options: SurveyOptions = {};
  if (fields.outputCrs === undefined && fields.gcp === undefined && fields.controlPoints === undefined && fields.checkpoints === undefined) return options;
  const crs = await loadCrs();
  if (fields.outputCrs !== undefined) options.output_crs = outputCrs(crs, fields.outputCrs);
  if (fields.gcp !== undefined && fields.controlPoints !== undefined) {
    throw invalid("The request has both a gcp file and control_points.", "Send the control points one way: the gcp_list.txt file or the JSON control_points.");
  }
  if (fields.checkpoints !== undefined && fields.gcp === undefined) {
    throw invalid("`checkpoints` names points of a gcp file, but the request has none.", 'Send the gcp file with it, or give checkpoints role "check" in control_points.');
  }
  const located = fields.gcp !== undefined ? fromGcp(crs, fields.gcp, fields.checkpoints ?? []) : fields.controlPoints !== undefined ? fromJson(crs, fields.controlPoints) : undefined;
  if (!located) return options;
  const marks = located.located.value.points.reduce((sum, point) => sum + point.marks.length, 0);
  if (marks > MAX_MARKS) throw invalid(`The control points have ${marks} marks, more than the limit of ${MAX_MARKS}.`, "Mark each point in fewer photos (a few well-spread photos per point are enough).");
  const problems = checkAgainstImages(located.located, inputs.map(factsOf));
  if (problems.length > 0) throw refusal(located.label, problems);
  options.control_points = located.located.value;
  return options;
}

/** `EPSG:<code>` of a projected system in metres, spelled `EPSG:` in capitals. */
function outputCrs({ resolveProjectedMetres }: Crs, text: string): string {
  const match = EPSG_CODE.exec(text.trim());
  if (!match) throw invalid(`output_crs "${text.slice(0, 80)}" is not an EPSG code.`, "Give output_crs as EPSG:<code> of a projected system in metres, for example EPSG:32632.");
  const resolved = resolveProjectedMetres(`EPSG:${match[1]}`);
  if (!resolved.ok) throw invalid(`output_crs: ${resolved.reason}.`, "Give output_crs as EPSG:<code> of a projected system in metres, for example EPSG:32632 (WGS 84 / UTM zone 32N).");
  return `EPSG:${match[1]}`;
}

interface Located {
  located: LocatedControlPoints;
  /** How the message names the source: "gcp file" or "control_points". */
  label: string;
}

function fromGcp({ resolveCrs }: Crs, text: string, checkpoints: string[]): Located {
  const label = "gcp file";
  const parsed = parseGcpList(text);
  if (!parsed.header) throw refusal(label, [{ where: "line 1", reason: "the file is empty; its first line must be the coordinate system" }]);
  const crs = resolveCrs(parsed.header.text);
  const problems: ControlProblem[] = [];
  if (!crs.ok) problems.push({ where: `line ${parsed.header.line}`, reason: `the coordinate system cannot be read: ${crs.reason}` });
  problems.push(...parsed.problems);
  if (problems.length > 0) throw refusal(label, problems);
  const grouped = gcpPoints(parsed.header.text, parsed.lines, checkpoints);
  if (!grouped.located) throw refusal(label, grouped.problems);
  return { located: grouped.located, label };
}

function fromJson({ resolveCrs }: Crs, raw: unknown): Located {
  const label = "control_points";
  const input = ControlPointsInput.safeParse(raw);
  if (!input.success) {
    throw refusal(label, input.error.issues.slice(0, LISTED_PROBLEMS).map((issue) => ({ where: issue.path.map(pathPart).join("").replace(/^\./, "") || "(root)", reason: issue.message })));
  }
  const problems: ControlProblem[] = [];
  const spellings = [{ where: "crs", text: input.data.crs }, ...input.data.points.map((p, i) => ({ where: `points[${i}].crs`, text: p.crs }))];
  const read = new Map<string, string>();
  for (const { where, text } of spellings) {
    if (text === undefined || read.has(text)) continue;
    const crs = resolveCrs(text);
    if (crs.ok) read.set(text, crs.crs.proj4);
    else problems.push({ where, reason: `the coordinate system cannot be read: ${crs.reason}` });
  }
  if (problems.length > 0) throw refusal(label, problems);
  // Two spellings are one system when proj4 reads them to the same definition (EPSG:32632 and WGS84 UTM 32N).
  const normalised = jsonPoints(input.data, (a, b) => read.get(a) === read.get(b));
  if (!normalised.located) throw refusal(label, normalised.problems);
  return { located: normalised.located, label };
}

function factsOf(input: StoredInput): ImageFacts {
  const facts: ImageFacts = { name: input.name, video: isVideo(input.kind) };
  if (input.width && input.height) Object.assign(facts, { width: input.width, height: input.height });
  return facts;
}

function pathPart(part: PropertyKey): string {
  return typeof part === "number" ? `[${part}]` : `.${String(part)}`;
}

function refusal(label: string, problems: ControlProblem[]): ApiError {
  const listed = problems.slice(0, LISTED_PROBLEMS).map((p) => `${p.where}: ${p.reason}`);
  const more = problems.length > LISTED_PROBLEMS ? ` (and ${problems.length - LISTED_PROBLEMS} more)` : "";
  return invalid(`Control points refused, ${label}: ${listed.join("; ")}${more}.`, "Fix the control points (docs/API.md \"Control points\") and send the request again.");
}

function invalid(message: string, suggestion: string): ApiError {
  return new ApiError("invalid_request", message, suggestion);
}
