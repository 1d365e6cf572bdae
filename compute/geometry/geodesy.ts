/**
 * @module WGS 84 positions (EXIF GPS) to a local east-north-up frame in metres: geodetic →
 * Earth-centred Earth-fixed → ENU about a reference (the standard conversions, e.g. the
 * NGA's "Department of Defense World Geodetic System 1984", TR8350.2, and any GNSS textbook).
 */

/** WGS 84 semi-major axis (m) and first eccentricity squared. */
const A = 6378137;
const E2 = 6.69437999014e-3;

export interface Geodetic {
  latitudeDeg: number;
  longitudeDeg: number;
  /** Height above the ellipsoid, metres (EXIF altitude is above sea level; within a capture the offset is constant). */
  heightM: number;
}

/** Earth-centred Earth-fixed coordinates, metres. */
export function geodeticToEcef(p: Geodetic): [number, number, number] {
  const lat = (p.latitudeDeg * Math.PI) / 180;
  const lon = (p.longitudeDeg * Math.PI) / 180;
  const sinLat = Math.sin(lat);
  const n = A / Math.sqrt(1 - E2 * sinLat * sinLat);
  const r = (n + p.heightM) * Math.cos(lat);
  return [r * Math.cos(lon), r * Math.sin(lon), (n * (1 - E2) + p.heightM) * sinLat];
}

/** East, north, up (metres) of `p` in the tangent frame at `reference`. */
export function geodeticToEnu(p: Geodetic, reference: Geodetic): [number, number, number] {
  const [x, y, z] = geodeticToEcef(p);
  const [x0, y0, z0] = geodeticToEcef(reference);
  const lat = (reference.latitudeDeg * Math.PI) / 180;
  const lon = (reference.longitudeDeg * Math.PI) / 180;
  const [dx, dy, dz] = [x - x0, y - y0, z - z0];
  const [sinLat, cosLat, sinLon, cosLon] = [Math.sin(lat), Math.cos(lat), Math.sin(lon), Math.cos(lon)];
  return [
    -sinLon * dx + cosLon * dy,
    -sinLat * cosLon * dx - sinLat * sinLon * dy + cosLat * dz,
    cosLat * cosLon * dx + cosLat * sinLon * dy + sinLat * dz,
  ];
}

/** WGS 84 latitude, longitude and height of an Earth-centred Earth-fixed point (Bowring's iteration, converged to well under a millimetre in three rounds). */
export function ecefToGeodetic(x: number, y: number, z: number): Geodetic {
  const longitude = Math.atan2(y, x);
  const p = Math.hypot(x, y);
  let latitude = Math.atan2(z, p * (1 - E2));
  let height = 0;
  for (let round = 0; round < 5; round++) {
    const sinLat = Math.sin(latitude);
    const n = A / Math.sqrt(1 - E2 * sinLat * sinLat);
    height = p / Math.cos(latitude) - n;
    latitude = Math.atan2(z, p * (1 - (E2 * n) / (n + height)));
  }
  return { latitudeDeg: (latitude * 180) / Math.PI, longitudeDeg: (longitude * 180) / Math.PI, heightM: height };
}

/** The geodetic position of `enu` (east, north, up metres) in the tangent frame at `reference`: geodeticToEnu's inverse. */
export function enuToGeodetic(enu: [number, number, number], reference: Geodetic): Geodetic {
  const [x0, y0, z0] = geodeticToEcef(reference);
  const lat = (reference.latitudeDeg * Math.PI) / 180;
  const lon = (reference.longitudeDeg * Math.PI) / 180;
  const [sinLat, cosLat, sinLon, cosLon] = [Math.sin(lat), Math.cos(lat), Math.sin(lon), Math.cos(lon)];
  const [e, n, u] = enu;
  return ecefToGeodetic(
    x0 - sinLon * e - sinLat * cosLon * n + cosLat * cosLon * u,
    y0 + cosLon * e - sinLat * sinLon * n + cosLat * sinLon * u,
    z0 + cosLat * n + sinLat * u,
  );
}
