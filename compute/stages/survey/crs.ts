/**
 * @module What the GeoKeys need to know of an EPSG code: whether the CRS is projected or
 * geographic (ProjectedCSTypeGeoKey or GeographicTypeGeoKey, OGC 19-008r4 7.2) and its name
 * (GTCitationGeoKey). Read from epsg-index's one small JSON file per code, so only the code
 * asked for is loaded.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export interface CrsInfo {
  epsg: number;
  modelType: "projected" | "geographic";
  name: string;
}

const require = createRequire(import.meta.url);

/** The CRS of `epsg`; throws for a code epsg-index does not know or that is neither projected nor geographic 2D. */
export function crsInfo(epsg: number): CrsInfo {
  if (!Number.isInteger(epsg) || epsg <= 0) throw new Error(`survey: EPSG code ${epsg}`);
  let record: { kind?: string; name?: string };
  try {
    record = JSON.parse(readFileSync(require.resolve(`epsg-index/s/${epsg}.json`), "utf8")) as typeof record;
  } catch {
    throw new Error(`survey: EPSG:${epsg} is not a known coordinate reference system`);
  }
  const modelType = record.kind === "CRS-PROJCRS" ? "projected" : record.kind === "CRS-GEOGCRS" ? "geographic" : null;
  if (!modelType) throw new Error(`survey: EPSG:${epsg} is a ${record.kind}, not a projected or geographic CRS`);
  return { epsg, modelType, name: record.name ?? `EPSG:${epsg}` };
}
