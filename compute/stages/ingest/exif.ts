/**
 * @module The few EXIF fields ingest needs, read with exifreader for every kind (JPEG, PNG,
 * HEIC): one reader for all three, and the project's only EXIF library (README "Dependencies").
 * Also the accuracy an RTK drone states in its XMP (exifreader parses XMP with @xmldom/xmldom).
 */
import ExifReader from "exifreader";
import type { GpsPosition } from "../../scene/images.js";

export interface CameraExif {
  make?: string;
  model?: string;
  /** EXIF Orientation 1..8 (1 = upright). */
  orientation?: number;
  focalMm?: number;
  focal35mm?: number;
  /** FocalPlaneXResolution in pixels per `focalPlaneUnitMm` millimetres. */
  focalPlaneXResolution?: number;
  focalPlaneUnitMm?: number;
  /** PixelX/YDimension: the size the focal-plane resolution refers to. */
  pixelWidth?: number;
  pixelHeight?: number;
  /** Where the photo was taken (drones and phones write it). */
  gps?: GpsPosition;
  /** The gimbal's pitch, degrees above the horizon (−90: looking straight down), from DJI's XMP (drone-dji:GimbalPitchDegree). */
  gimbalPitchDeg?: number;
}

type Tags = Record<string, { value?: unknown; description?: unknown } | undefined>;

/** EXIF FocalPlaneResolutionUnit: 2 inch, 3 cm, 4 mm, 5 µm (EXIF 2.3 and DNG). */
const UNIT_MM: Record<number, number> = { 2: 25.4, 3: 10, 4: 1, 5: 0.001 };

export function readCameraExif(bytes: Uint8Array): CameraExif {
  let tags: Tags;
  try {
    tags = ExifReader.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as unknown as Tags;
  } catch {
    return {}; // No EXIF at all is normal (PNG, screenshots, stripped uploads).
  }
  const unit = numberOf(tags.FocalPlaneResolutionUnit);
  return {
    make: stringOf(tags.Make),
    model: stringOf(tags.Model),
    orientation: numberOf(tags.Orientation),
    focalMm: numberOf(tags.FocalLength),
    focal35mm: numberOf(tags.FocalLengthIn35mmFilm),
    focalPlaneXResolution: numberOf(tags.FocalPlaneXResolution),
    focalPlaneUnitMm: unit === undefined ? undefined : UNIT_MM[unit],
    pixelWidth: numberOf(tags.PixelXDimension) ?? numberOf(tags.ImageWidth),
    pixelHeight: numberOf(tags.PixelYDimension) ?? numberOf(tags.ImageLength),
    gps: gpsOf(tags),
    ...gimbalPitchOf(tags),
  };
}

/** DJI's gimbal pitch (XMP), kept where it is a pitch a gimbal can have. */
function gimbalPitchOf(tags: Tags): { gimbalPitchDeg?: number } {
  const pitch = xmpNumberOf(tags.GimbalPitchDegree);
  return pitch !== undefined && Math.abs(pitch) <= 90 ? { gimbalPitchDeg: pitch } : {};
}

/** GPS position from the GPS IFD (exifreader gives latitude and longitude as unsigned decimal degrees). */
function gpsOf(tags: Tags): GpsPosition | undefined {
  const latitude = Number(tags.GPSLatitude?.description);
  const longitude = Number(tags.GPSLongitude?.description);
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined;
  // A camera without a fix writes 0/0; no photo is taken at exactly that point.
  if (latitude === 0 && longitude === 0) return undefined;
  const south = String((tags.GPSLatitudeRef?.value as unknown[] | undefined)?.[0] ?? "").toUpperCase() === "S";
  const west = String((tags.GPSLongitudeRef?.value as unknown[] | undefined)?.[0] ?? "").toUpperCase() === "W";
  const altitude = numberOf(tags.GPSAltitude);
  const below = Number(tags.GPSAltitudeRef?.value) === 1;
  // The first source that states a horizontal accuracy, with its vertical one where it has it:
  // the RTK engine's own deviations, EXIF 2.31's GPSHPositioningError (horizontal only), Pix4D's XMP.
  const stated = [rtkAccuracyOf(tags), { horizontalErrorM: numberOf(tags.GPSHPositioningError) }, pix4dAccuracyOf(tags)].find((a) => a.horizontalErrorM !== undefined);
  return {
    latitudeDeg: south ? -Math.abs(latitude) : Math.abs(latitude),
    longitudeDeg: west ? -Math.abs(longitude) : Math.abs(longitude),
    ...(altitude !== undefined ? { altitudeM: below ? -altitude : altitude } : {}),
    ...(stated?.horizontalErrorM !== undefined ? { horizontalErrorM: stated.horizontalErrorM } : {}),
    ...(stated?.verticalErrorM !== undefined && altitude !== undefined ? { verticalErrorM: stated.verticalErrorM } : {}),
  };
}

type Accuracy = { horizontalErrorM?: number; verticalErrorM?: number };

/** DJI's RtkFlag values of an RTK solution: 50 fixed, 34 float (16 is a single-point fix, 0 none). */
const RTK_SOLUTIONS = new Set([50, 34]);

/**
 * The accuracy of an RTK drone's fix, metres. DJI's RTK drones (Phantom 4 RTK, Mavic 3
 * Enterprise, Matrice with P1) write no GPSHPositioningError: their XMP (namespace
 * http://www.dji.com/drone-dji/1.0/) carries RtkFlag and the fix's standard deviations along
 * latitude, longitude and height (RtkStdLat, RtkStdLon, RtkStdHgt). Without them a 2-cm fix is
 * taken for a consumer's 2-m one: the rendered 800-photo survey's cameras end 0.115° off in the
 * median, against 0.022° with them (`npm run bench -- scale --sizes=800 --sparse-only --gps=rtk`).
 * Horizontal is the RMS of the two axes, the per-axis σ the priors use. A photo whose flag says
 * the receiver had no RTK solution states nothing here.
 */
function rtkAccuracyOf(tags: Tags): Accuracy {
  const flag = xmpNumberOf(tags.RtkFlag);
  if (flag !== undefined && !RTK_SOLUTIONS.has(flag)) return {};
  const lat = positiveOrUndefined(xmpNumberOf(tags.RtkStdLat));
  const lon = positiveOrUndefined(xmpNumberOf(tags.RtkStdLon));
  const height = positiveOrUndefined(xmpNumberOf(tags.RtkStdHgt));
  return {
    ...(lat !== undefined && lon !== undefined ? { horizontalErrorM: Math.sqrt((lat * lat + lon * lon) / 2) } : {}),
    ...(height !== undefined ? { verticalErrorM: height } : {}),
  };
}

/**
 * The accuracy in Pix4D's XMP camera namespace (http://pix4d.com/camera/1.0/), metres:
 * Camera:GPSXYAccuracy and Camera:GPSZAccuracy, which MicaSense, Parrot and senseFly cameras
 * write and Pix4D, Metashape and OpenDroneMap read. 0 means unknown.
 */
function pix4dAccuracyOf(tags: Tags): Accuracy {
  const horizontal = positiveOrUndefined(xmpNumberOf(tags.GPSXYAccuracy));
  const vertical = positiveOrUndefined(xmpNumberOf(tags.GPSZAccuracy));
  return { ...(horizontal !== undefined ? { horizontalErrorM: horizontal } : {}), ...(vertical !== undefined ? { verticalErrorM: vertical } : {}) };
}

/** An XMP attribute's number (exifreader gives XMP values as strings). */
function xmpNumberOf(tag: { value?: unknown } | undefined): number | undefined {
  const value = typeof tag?.value === "string" ? Number(tag.value.trim()) : tag?.value;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function positiveOrUndefined(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/** exifreader gives numbers, [num, den] rationals, or arrays of either. */
function numberOf(tag: { value?: unknown } | undefined): number | undefined {
  let value = tag?.value;
  if (Array.isArray(value) && value.length === 1) value = value[0];
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number") {
    value = value[1] === 0 ? undefined : value[0] / value[1];
  }
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

function stringOf(tag: { value?: unknown; description?: unknown } | undefined): string | undefined {
  const value = Array.isArray(tag?.value) ? tag.value.join(" ") : tag?.description;
  return typeof value === "string" && value.trim() !== "" ? value.replace(/\0/g, "").trim() : undefined;
}
