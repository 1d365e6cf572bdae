/**
 * @module Coordinate systems as clients name them (OpenDroneMap's gcp_list.txt header, the JSON
 * form's `crs`, `output_crs`), read with proj4 and proj4-list's EPSG table. Pure: runs in workerd
 * and Node alike.
 *
 * proj4-list is about 0.8 MB of PROJ strings (5,400 EPSG codes), so only the modules that must
 * read a coordinate system import this one (the edge's control-point checks, compute's
 * georeferencing); shared/control-points.ts, which the job schema imports, does not.
 */
import proj4 from "proj4";
import proj4list from "proj4-list";

export interface Crs {
  /** As the client wrote it, trimmed. */
  input: string;
  /** The PROJ string proj4 reads. */
  proj4: string;
  /** The EPSG code when the input named one (directly or as `WGS84 UTM <zone><N|S>`). */
  epsg?: number;
  /** Longitude/latitude in degrees, not a projection. */
  geographic: boolean;
  /** `degrees` for a geographic system, otherwise the projection's unit as PROJ spells it (`m`, `us-ft`, …). */
  units: string;
}

export type CrsResult = { ok: true; crs: Crs } | { ok: false; reason: string };

const EPSG = /^EPSG:(\d{1,6})$/i;
// ODM's shorthand: the WGS84 datum and a UTM zone 1–60 with its hemisphere.
const WGS84_UTM = /^WGS84\s+UTM\s+(\d{1,2})\s*([NS])$/i;

/** Reads `EPSG:<code>`, `WGS84 UTM <zone><N|S>` or a PROJ string (`+proj=…`). */
export function resolveCrs(text: string): CrsResult {
  const input = text.trim();
  if (input === "") return { ok: false, reason: "the coordinate system is empty" };
  const utm = WGS84_UTM.exec(input);
  if (utm) {
    const zone = Number(utm[1]);
    if (zone < 1 || zone > 60) return { ok: false, reason: `UTM zone ${zone} does not exist (zones are 1 to 60)` };
    return fromEpsg(input, (utm[2]!.toUpperCase() === "N" ? 32600 : 32700) + zone);
  }
  const epsg = EPSG.exec(input);
  if (epsg) return fromEpsg(input, Number(epsg[1]));
  if (input.startsWith("+")) return fromProj4(input, input);
  return { ok: false, reason: `"${shorten(input)}" is not EPSG:<code>, WGS84 UTM <zone><N|S> or a PROJ string (+proj=…)` };
}

/** A projected system in metres, as an output coordinate system must be (the models and rasters are written in metres). */
export function resolveProjectedMetres(text: string): CrsResult {
  const result = resolveCrs(text);
  if (!result.ok) return result;
  if (result.crs.geographic) return { ok: false, reason: `${result.crs.input} is geographic (degrees), not a projected system in metres` };
  if (result.crs.units !== "m") return { ok: false, reason: `${result.crs.input} is in ${result.crs.units}, not metres` };
  return result;
}

function fromEpsg(input: string, code: number): CrsResult {
  const entry = (proj4list as Record<string, [string, string] | undefined>)[`EPSG:${code}`];
  if (!entry) return { ok: false, reason: `EPSG:${code} is not a coordinate system this service knows` };
  const result = fromProj4(input, entry[1].trim());
  if (result.ok) result.crs.epsg = code;
  return result;
}

function fromProj4(input: string, definition: string): CrsResult {
  let projection: { projName?: string; units?: string; to_meter?: number };
  try {
    projection = proj4.Proj(definition) as unknown as typeof projection;
  } catch {
    return { ok: false, reason: `proj4 cannot read "${shorten(input)}"` };
  }
  // proj4 answers some unreadable strings with an object without a projection rather than a throw.
  if (!projection || typeof projection.projName !== "string") return { ok: false, reason: `proj4 cannot read "${shorten(input)}"` };
  if (projection.projName === "geocent") return { ok: false, reason: `${input} is an Earth-centred (geocentric) system, not a map projection or longitude/latitude` };
  const geographic = projection.projName === "longlat";
  const units = geographic ? "degrees" : unitsOf(projection);
  return { ok: true, crs: { input, proj4: definition, geographic, units } };
}

/** PROJ's unit name; a `+to_meter` of 1 is metres whatever the name says. */
function unitsOf(projection: { units?: string; to_meter?: number }): string {
  if (projection.to_meter !== undefined) return projection.to_meter === 1 ? "m" : projection.units ?? `${projection.to_meter} m`;
  return projection.units ?? "m";
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
