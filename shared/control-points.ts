/**
 * @module Ground control points and checkpoints (docs/API.md "Control points"): the one shape the
 * job carries from the edge to the pipeline, the JSON form a client may send, and pure parsers
 * and checks that say which line or mark is wrong.
 *
 * Two forms normalise to `ControlPoints`: OpenDroneMap's gcp_list.txt (a header line naming the
 * coordinate system, then `geo_x geo_y geo_z im_x im_y image_name [point_name]` per mark) and
 * the JSON `control_points` of a creation from uploads. Reading the coordinate system itself is
 * shared/crs.ts's job; this module does not import it, so the job schema (shared/jobs.ts) stays
 * free of proj4-list's EPSG table.
 */
import { z } from "zod";

/** Stated accuracy of a gcp_list.txt point, which has no column for it (typical of an RTK survey). */
export const DEFAULT_ACCURACY = { horizontal: 0.05, vertical: 0.1 } as const;

export const ControlRole = z.enum(["control", "check"]);
export type ControlRole = z.infer<typeof ControlRole>;

const Finite = z.number().finite();

export const ControlMark = z
  .object({
    image: z.string().min(1).max(255).meta({ description: "The uploaded file's name (as sent), a photo, not a video" }),
    x: Finite.meta({ description: "Pixel column in the photo as displayed (EXIF orientation applied); 0 is the left edge of the first pixel" }),
    y: Finite.meta({ description: "Pixel row in the photo as displayed; 0 is the top edge of the first pixel" }),
  })
  .strict();
export type ControlMark = z.infer<typeof ControlMark>;

export const Accuracy = z
  .object({
    horizontal: z.number().positive().finite().meta({ description: "Stated horizontal accuracy, metres" }),
    vertical: z.number().positive().finite().meta({ description: "Stated vertical accuracy, metres" }),
  })
  .strict();

const Coordinates = z.tuple([Finite, Finite, Finite]).meta({
  description: "x (easting or longitude), y (northing or latitude), height, in the coordinate system's units; heights are passed through as given (no geoid model is applied)",
});

/** One surveyed point as the job carries it. */
export const ControlPoint = z
  .object({
    name: z.string().min(1).max(255),
    role: ControlRole,
    coordinates: Coordinates,
    accuracy: Accuracy,
    marks: z.array(ControlMark).min(1),
  })
  .strict();
export type ControlPoint = z.infer<typeof ControlPoint>;

/** The job's `control_points`: one coordinate system (as the client gave it, already read by resolveCrs) for every point. */
export const ControlPoints = z
  .object({
    crs: z.string().min(1),
    points: z.array(ControlPoint).min(1),
  })
  .strict();
export type ControlPoints = z.infer<typeof ControlPoints>;

/** The JSON form of a creation body: the system once at the top, or on each point (the same for all). */
export const ControlPointsInput = z
  .object({
    crs: z.string().min(1).max(2000).optional().meta({ description: "EPSG:<code>, WGS84 UTM <zone><N|S> or a PROJ string; for every point", example: "EPSG:32632" }),
    points: z
      .array(
        z
          .object({
            name: z.string().min(1).max(255),
            crs: z.string().min(1).max(2000).optional().meta({ description: "This point's coordinate system; every point must use the same one" }),
            role: ControlRole.optional().meta({ description: "control (used to place the model; default) or check (only measured against)" }),
            coordinates: Coordinates,
            accuracy: Accuracy.optional().meta({ description: `Stated accuracy in metres; default ${DEFAULT_ACCURACY.horizontal} horizontal, ${DEFAULT_ACCURACY.vertical} vertical` }),
            marks: z.array(ControlMark).min(1).max(1000),
          })
          .strict(),
      )
      .min(1)
      .max(10_000),
  })
  .strict()
  .meta({ id: "ControlPointsInput", description: "Ground control points and checkpoints with their marks in the photos" });
export type ControlPointsInput = z.infer<typeof ControlPointsInput>;

/** Where a problem is: `line 4` (file form) or `points[2].marks[0]` (JSON form). */
export interface ControlProblem {
  where: string;
  reason: string;
}

/** ControlPoints with, for each mark, where the client wrote it. */
export interface LocatedControlPoints {
  value: ControlPoints;
  /** `marks[p][m]` locates `value.points[p].marks[m]`; `points[p]` the point itself. */
  places: { points: string[]; marks: string[][] };
}

/** One data line of a gcp_list.txt. */
export interface GcpLine {
  line: number;
  coordinates: [number, number, number];
  x: number;
  y: number;
  image: string;
  name?: string;
}

export interface ParsedGcpList {
  /** The header (coordinate system) and its line number; undefined when the file has no line at all. */
  header?: { text: string; line: number };
  lines: GcpLine[];
  problems: ControlProblem[];
}

/** Splits a gcp_list.txt into its header and mark lines; every line that does not parse is a problem naming it. */
export function parseGcpList(text: string): ParsedGcpList {
  const parsed: ParsedGcpList = { lines: [], problems: [] };
  const rows = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  for (const [index, raw] of rows.entries()) {
    const line = index + 1;
    const content = raw.trim();
    if (content === "" || content.startsWith("#")) continue;
    if (!parsed.header) {
      parsed.header = { text: content, line };
      continue;
    }
    const fields = content.split(/\s+/);
    if (fields.length < 6) {
      parsed.problems.push({ where: `line ${line}`, reason: `expected geo_x geo_y geo_z im_x im_y image_name [point_name], found ${fields.length} field${fields.length === 1 ? "" : "s"}` });
      continue;
    }
    const numbers = fields.slice(0, 5).map(Number);
    const bad = numbers.findIndex((n) => !Number.isFinite(n));
    if (bad >= 0) {
      const column = ["geo_x", "geo_y", "geo_z", "im_x", "im_y"][bad]!;
      parsed.problems.push({ where: `line ${line}`, reason: `${column} "${fields[bad]}" is not a number` });
      continue;
    }
    // Fields after the point name (ODM allows extra columns) are ignored.
    const entry: GcpLine = { line, coordinates: [numbers[0]!, numbers[1]!, numbers[2]!], x: numbers[3]!, y: numbers[4]!, image: fields[5]! };
    if (fields[6] !== undefined) entry.name = fields[6];
    parsed.lines.push(entry);
  }
  return parsed;
}

/**
 * Groups the mark lines into points: by name where a line names its point, otherwise by equal
 * coordinates (as OpenDroneMap does), named gcp1, gcp2, … in order. `checkpoints` names the
 * points whose role is `check`.
 */
export function gcpPoints(crs: string, lines: GcpLine[], checkpoints: string[]): { located?: LocatedControlPoints; problems: ControlProblem[] } {
  const problems: ControlProblem[] = [];
  const byKey = new Map<string, number>();
  const value: ControlPoints = { crs, points: [] };
  const places: LocatedControlPoints["places"] = { points: [], marks: [] };
  // Unnamed points get gcp1, gcp2, … skipping names the file gives to other points.
  const named = new Set(lines.flatMap((entry) => (entry.name === undefined ? [] : [entry.name])));
  let unnamed = 0;
  const nextName = (): string => {
    do unnamed += 1;
    while (named.has(`gcp${unnamed}`));
    return `gcp${unnamed}`;
  };
  for (const entry of lines) {
    const key = entry.name !== undefined ? `name:${entry.name}` : `at:${entry.coordinates.join(" ")}`;
    let index = byKey.get(key);
    if (index === undefined) {
      index = value.points.length;
      byKey.set(key, index);
      value.points.push({
        name: entry.name ?? nextName(),
        role: "control",
        coordinates: entry.coordinates,
        accuracy: { ...DEFAULT_ACCURACY },
        marks: [],
      });
      places.points.push(`line ${entry.line}`);
      places.marks.push([]);
    }
    const point = value.points[index]!;
    if (point.coordinates.some((c, axis) => c !== entry.coordinates[axis])) {
      problems.push({ where: `line ${entry.line}`, reason: `point "${point.name}" has other coordinates here than at ${places.points[index]}` });
      continue;
    }
    point.marks.push({ image: entry.image, x: entry.x, y: entry.y });
    places.marks[index]!.push(`line ${entry.line}`);
  }
  for (const name of checkpoints) {
    const point = value.points.find((p) => p.name === name);
    if (point) point.role = "check";
    else problems.push({ where: "checkpoints", reason: `"${name}" is not the name of a point in the file` });
  }
  if (value.points.length === 0) problems.push({ where: "gcp", reason: "the file has no mark line after the coordinate system" });
  return problems.length > 0 ? { problems } : { located: { value, places }, problems };
}

/**
 * The JSON form as the job carries it: defaults filled in and one coordinate system. `sameCrs`
 * tells whether two spellings name one system (the caller reads them; "EPSG:32632" and
 * "WGS84 UTM 32N" are the same).
 */
export function jsonPoints(input: ControlPointsInput, sameCrs: (a: string, b: string) => boolean): { located?: LocatedControlPoints; problems: ControlProblem[] } {
  const problems: ControlProblem[] = [];
  let crs = input.crs;
  let crsWhere = "crs";
  const places: LocatedControlPoints["places"] = { points: [], marks: [] };
  const names = new Map<string, number>();
  for (const [p, point] of input.points.entries()) {
    const where = `points[${p}]`;
    if (point.crs !== undefined) {
      if (crs === undefined) [crs, crsWhere] = [point.crs, `${where}.crs`];
      else if (!sameCrs(crs, point.crs)) problems.push({ where: `${where}.crs`, reason: `"${point.crs}" is not the coordinate system of ${crsWhere} ("${crs}"); all points must share one` });
    }
    const first = names.get(point.name);
    if (first !== undefined) problems.push({ where: `${where}.name`, reason: `"${point.name}" is also the name of points[${first}]` });
    else names.set(point.name, p);
    places.points.push(where);
    places.marks.push(point.marks.map((_, m) => `${where}.marks[${m}]`));
  }
  if (crs === undefined) problems.push({ where: "crs", reason: "no coordinate system: give crs at the top or on the points" });
  if (problems.length > 0) return { problems };
  const value: ControlPoints = {
    crs: crs!,
    points: input.points.map((point) => ({
      name: point.name,
      role: point.role ?? "control",
      coordinates: point.coordinates,
      accuracy: point.accuracy ?? { ...DEFAULT_ACCURACY },
      marks: point.marks,
    })),
  };
  return { located: { value, places }, problems };
}

/** What the edge knows of an uploaded file when the control points are checked. */
export interface ImageFacts {
  name: string;
  video: boolean;
  /** Displayed size (EXIF orientation applied) when the header gave it; unknown sizes are not checked here (compute checks again). */
  width?: number;
  height?: number;
}

/** Least number of control points, each marked in two photos, to fix a similarity (7 unknowns) with some redundancy. */
export const MIN_CONTROL_POINTS = 3;

/** Checks the marks against the upload: names, kinds and sizes; then that enough control points can be used. */
export function checkAgainstImages(located: LocatedControlPoints, images: ImageFacts[]): ControlProblem[] {
  const problems: ControlProblem[] = [];
  const byName = new Map<string, ImageFacts | "ambiguous">();
  for (const image of images) byName.set(image.name, byName.has(image.name) ? "ambiguous" : image);
  let usable = 0;
  for (const [p, point] of located.value.points.entries()) {
    const photos = new Set<string>();
    for (const [m, mark] of point.marks.entries()) {
      const where = located.places.marks[p]![m]!;
      const image = byName.get(mark.image);
      if (image === undefined) problems.push({ where, reason: `image "${mark.image}" is not in the upload` });
      else if (image === "ambiguous") problems.push({ where, reason: `image "${mark.image}" names more than one uploaded file` });
      else if (image.video) problems.push({ where, reason: `"${mark.image}" is a video; marks go on photos` });
      else if (image.width !== undefined && image.height !== undefined && (mark.x < 0 || mark.y < 0 || mark.x > image.width || mark.y > image.height)) {
        problems.push({ where, reason: `the mark (${mark.x}, ${mark.y}) is outside "${mark.image}" (${image.width} × ${image.height} pixels as displayed)` });
      } else photos.add(mark.image);
    }
    if (point.role === "control" && photos.size >= 2) usable += 1;
  }
  if (problems.length === 0 && usable < MIN_CONTROL_POINTS) {
    problems.push({ where: "control points", reason: `${usable} control point${usable === 1 ? " is" : "s are"} marked in two or more photos; at least ${MIN_CONTROL_POINTS} are needed (checkpoints do not count)` });
  }
  return problems;
}
