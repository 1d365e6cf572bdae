/**
 * @module Coordinate systems on compute: the EPSG entries (WKT and PROJ definition, from the
 * epsg-index package, read one file per code as needed) and transforms between systems through
 * proj4. The edge reads a client's system with shared/crs.ts; compute picks the output system
 * and writes its WKT into the LAS, the GeoTIFFs and the OBJ's model.prj.
 *
 * Heights pass through unchanged: proj4 applies no geoid, so a height is ellipsoidal or
 * orthometric as the control points (or the photos' GPS) gave it (docs/API.md "Coordinate systems").
 */
import { createRequire } from "node:module";
import proj4 from "proj4";

const require = createRequire(import.meta.url);

export interface EpsgEntry {
  code: number;
  name: string;
  /** "CRS-PROJCRS", "CRS-GEOGCRS", … as epsg-index names them. */
  kind: string;
  wkt: string;
  proj4: string;
  unit: string;
}

const entries = new Map<number, EpsgEntry | null>();

/** The EPSG entry of a code, or null where the set has none (or no PROJ definition for it). */
export function epsgEntry(code: number): EpsgEntry | null {
  if (entries.has(code)) return entries.get(code)!;
  let entry: EpsgEntry | null = null;
  try {
    const raw = require(`epsg-index/s/${code}.json`) as { code: string; name: string; kind: string; wkt: string | null; proj4: string | null; unit: string | null };
    if (raw.wkt && raw.proj4) entry = { code, name: raw.name, kind: raw.kind, wkt: raw.wkt, proj4: raw.proj4, unit: raw.unit ?? "" };
  } catch {
    entry = null;
  }
  entries.set(code, entry);
  return entry;
}

/** A projected system in metres: one the deliverables can be written in. */
export function isProjectedMetres(entry: EpsgEntry): boolean {
  return entry.kind === "CRS-PROJCRS" && /^met(re|er)$/i.test(entry.unit);
}

export const WGS84_GEOGRAPHIC = "+proj=longlat +datum=WGS84 +no_defs";

/**
 * The WGS 84 / UTM zone holding a longitude and latitude (EPSG 326zz north, 327zz south), with
 * the two exceptions of the grid: south-west Norway (32V) and Svalbard (31X–37X).
 */
export function utmEpsg(longitudeDeg: number, latitudeDeg: number): number {
  let zone = Math.floor((((longitudeDeg + 180) % 360) + 360) % 360 / 6) + 1;
  if (latitudeDeg >= 56 && latitudeDeg < 64 && longitudeDeg >= 3 && longitudeDeg < 12) zone = 32;
  if (latitudeDeg >= 72 && latitudeDeg < 84 && longitudeDeg >= 0 && longitudeDeg < 42) zone = longitudeDeg < 9 ? 31 : longitudeDeg < 21 ? 33 : longitudeDeg < 33 ? 35 : 37;
  return (latitudeDeg >= 0 ? 32600 : 32700) + zone;
}

export type Transform3 = (xyz: [number, number, number]) => [number, number, number];

/** x, y, z from one system to another; the height is carried (proj4 changes it only for a datum shift). */
export function transformBetween(fromProj4: string, toProj4: string): Transform3 {
  const converter = proj4(fromProj4, toProj4);
  return ([x, y, z]) => {
    const out = converter.forward({ x, y, z }) as { x: number; y: number; z?: number };
    return [out.x, out.y, out.z ?? z];
  };
}
