/**
 * @module Test inputs generated on the fly: an analytic textured plane rendered through exact
 * homographies (so keypoints have ground truth), JPEG/PNG files with EXIF tags, and short MP4
 * videos encoded with the bundled ffmpeg. Nothing here reads files from outside the test.
 */
import { spawn } from "node:child_process";
import ffmpegInstaller from "@ffmpeg-installer/ffmpeg";
import sharp from "sharp";
import { createRng } from "../../compute/math/random.js";

/** A plane covered by coloured discs over a smooth background; discs are ideal blob features. */
export interface PlaneScene {
  width: number;
  height: number;
  /** Per disc: cx, cy, radius (plane units), r, g, b. */
  discs: Float64Array;
  discCount: number;
}

/** Deterministic generator (mulberry32) shared with the code under test. */
export const rng = createRng;

/** Views of a plane scene at 400×300: imageFromPlane homographies with rotation, scale and perspective, all overlapping. */
export const PLANE_VIEWS: number[][] = [
  [1, 0, -100, 0, 1, -75, 0, 0, 1],
  [0.92, -0.16, -60, 0.16, 0.92, -110, 0.00012, 0, 1],
  [1.05, 0.05, -150, -0.03, 0.98, -60, 0, 0.0002, 1],
  [0.97, 0.1, -120, -0.1, 0.97, -50, -0.0001, 0.0001, 1],
  [1.1, 0, -170, 0, 1.1, -100, 0.0001, -0.0001, 1],
];

export function makePlaneScene(seed: number, width: number, height: number, discCount: number): PlaneScene {
  const random = rng(seed);
  const discs = new Float64Array(discCount * 6);
  for (let i = 0; i < discCount; i++) {
    discs[6 * i] = random() * width;
    discs[6 * i + 1] = random() * height;
    discs[6 * i + 2] = 2 + 10 * random() ** 2;
    discs[6 * i + 3] = 255 * random();
    discs[6 * i + 4] = 255 * random();
    discs[6 * i + 5] = 255 * random();
  }
  return { width, height, discs, discCount };
}

/** Colour of the plane at (x, y): the last disc covering it, else a smooth gradient. */
function sceneColor(scene: PlaneScene, x: number, y: number, out: Float64Array): void {
  out[0] = 90 + 60 * Math.sin(x * 0.013);
  out[1] = 100 + 50 * Math.cos(y * 0.011);
  out[2] = 110 + 40 * Math.sin((x + y) * 0.007);
  const d = scene.discs;
  for (let i = scene.discCount - 1; i >= 0; i--) {
    const dx = x - d[6 * i];
    const dy = y - d[6 * i + 1];
    const r = d[6 * i + 2];
    if (dx * dx + dy * dy <= r * r) {
      out[0] = d[6 * i + 3];
      out[1] = d[6 * i + 4];
      out[2] = d[6 * i + 5];
      return;
    }
  }
}

/** Spatial hash of discs so rendering does not test every disc per sample. */
function bucketScene(scene: PlaneScene, cell: number): { cols: number; rows: number; lists: PlaneScene[] } {
  const cols = Math.ceil(scene.width / cell);
  const rows = Math.ceil(scene.height / cell);
  const members: number[][] = Array.from({ length: cols * rows }, () => []);
  for (let i = 0; i < scene.discCount; i++) {
    const [cx, cy, r] = [scene.discs[6 * i], scene.discs[6 * i + 1], scene.discs[6 * i + 2]];
    for (let gy = Math.max(0, Math.floor((cy - r) / cell)); gy <= Math.min(rows - 1, Math.floor((cy + r) / cell)); gy++)
      for (let gx = Math.max(0, Math.floor((cx - r) / cell)); gx <= Math.min(cols - 1, Math.floor((cx + r) / cell)); gx++) members[gy * cols + gx].push(i);
  }
  const lists = members.map((ids) => {
    const discs = new Float64Array(ids.length * 6);
    ids.forEach((id, k) => discs.set(scene.discs.subarray(6 * id, 6 * id + 6), 6 * k));
    return { width: scene.width, height: scene.height, discs, discCount: ids.length };
  });
  return { cols, rows, lists };
}

/**
 * Render the plane into a width×height RGB image, where `imageFromPlane` (row-major 3×3) maps
 * plane coordinates to pixel coordinates with pixel centres at +0.5 (compute/scene/camera.ts).
 */
export function renderPlane(scene: PlaneScene, width: number, height: number, imageFromPlane: ArrayLike<number>, supersample = 2): Buffer {
  const planeFromImage = invert3x3(imageFromPlane);
  const cell = 32;
  const grid = bucketScene(scene, cell);
  const out = Buffer.alloc(width * height * 3);
  const sample = new Float64Array(3);
  const sum = new Float64Array(3);
  const h = planeFromImage;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      sum.fill(0);
      for (let sy = 0; sy < supersample; sy++) {
        for (let sx = 0; sx < supersample; sx++) {
          const u = x + (sx + 0.5) / supersample;
          const v = y + (sy + 0.5) / supersample;
          const w = h[6] * u + h[7] * v + h[8];
          const px = (h[0] * u + h[1] * v + h[2]) / w;
          const py = (h[3] * u + h[4] * v + h[5]) / w;
          const gx = Math.min(grid.cols - 1, Math.max(0, Math.floor(px / cell)));
          const gy = Math.min(grid.rows - 1, Math.max(0, Math.floor(py / cell)));
          sceneColor(grid.lists[gy * grid.cols + gx], px, py, sample);
          sum[0] += sample[0];
          sum[1] += sample[1];
          sum[2] += sample[2];
        }
      }
      const n = supersample * supersample;
      const o = 3 * (y * width + x);
      out[o] = Math.round(sum[0] / n);
      out[o + 1] = Math.round(sum[1] / n);
      out[o + 2] = Math.round(sum[2] / n);
    }
  }
  return out;
}

export function invert3x3(m: ArrayLike<number>): Float64Array {
  const [a, b, c, d, e, f, g, h, i] = Array.from(m);
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return new Float64Array([A / det, -(b * i - c * h) / det, (b * f - c * e) / det, B / det, (a * i - c * g) / det, -(a * f - c * d) / det, C / det, -(a * h - b * g) / det, (a * e - b * d) / det]);
}

/** Similarity about a pixel centre: rotate by `angleRad`, scale by `scale`, then translate. */
export function similarity(angleRad: number, scale: number, cx: number, cy: number, tx = 0, ty = 0): Float64Array {
  const c = Math.cos(angleRad) * scale;
  const s = Math.sin(angleRad) * scale;
  return new Float64Array([c, -s, cx + tx - c * cx + s * cy, s, c, cy + ty - s * cx - c * cy, 0, 0, 1]);
}

export function applyH(H: ArrayLike<number>, x: number, y: number): [number, number] {
  const w = H[6] * x + H[7] * y + H[8];
  return [(H[0] * x + H[1] * y + H[2]) / w, (H[3] * x + H[4] * y + H[5]) / w];
}

export interface ExifFields {
  orientation?: number;
  make?: string;
  model?: string;
  focalLength35mm?: number;
  focalLengthMm?: number;
  /** A GPS fix (WGS 84 degrees, metres above sea level); horizontalErrorM is written as EXIF GPSHPositioningError. */
  gps?: { latitudeDeg: number; longitudeDeg: number; altitudeM: number; horizontalErrorM?: number };
  /** The RTK fix's state and standard deviations (metres), written as DJI's RTK drones write them: in XMP. */
  djiRtk?: DjiRtk;
}

export interface DjiRtk {
  /** 50 fixed, 34 float, 16 single point, 0 none. */
  flag: number;
  stdLatM: number;
  stdLonM: number;
  stdHgtM: number;
}

/** An XMP packet with DJI's drone-dji attributes, as DJI's drones write it. */
export function djiXmp(attributes: Record<string, string>): string {
  const attrs = Object.entries(attributes).map(([k, v]) => ` drone-dji:${k}="${v}"`).join("");
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="DJI Meta Data" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/" tiff:Make="DJI"${attrs}/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}

/** The JPEG with an XMP APP1 segment right after its SOI marker. */
export function withXmp(jpeg: Uint8Array, xmp: string): Buffer {
  const payload = Buffer.concat([Buffer.from("http://ns.adobe.com/xap/1.0/\0", "latin1"), Buffer.from(xmp, "utf8")]);
  const header = Buffer.from([0xff, 0xe1, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, payload, jpeg.subarray(2)]);
}

/** EXIF's degrees, minutes, seconds as rationals (seconds to 1/10,000). */
function dms(degrees: number): string {
  const d = Math.floor(degrees);
  const m = Math.floor((degrees - d) * 60);
  const seconds = Math.round(((degrees - d) * 60 - m) * 60 * 10_000);
  return `${d}/1 ${m}/1 ${seconds}/10000`;
}

/** The GPS IFD of a fix. */
function gpsIfd(gps: NonNullable<ExifFields["gps"]>): Record<string, string> {
  return {
    GPSLatitudeRef: gps.latitudeDeg >= 0 ? "N" : "S",
    GPSLatitude: dms(Math.abs(gps.latitudeDeg)),
    GPSLongitudeRef: gps.longitudeDeg >= 0 ? "E" : "W",
    GPSLongitude: dms(Math.abs(gps.longitudeDeg)),
    GPSAltitudeRef: gps.altitudeM >= 0 ? "0" : "1",
    GPSAltitude: `${Math.round(Math.abs(gps.altitudeM) * 1000)}/1000`,
    ...(gps.horizontalErrorM !== undefined ? { GPSHPositioningError: `${Math.round(gps.horizontalErrorM * 1000)}/1000` } : {}),
  };
}

/** Encode raw RGB as JPEG with the given EXIF tags (orientation written as the EXIF tag, pixels untouched). */
export async function encodeJpeg(rgb: Buffer, width: number, height: number, exif: ExifFields = {}, quality = 95): Promise<Buffer> {
  const ifd0: Record<string, string> = {};
  const ifd2: Record<string, string> = {};
  if (exif.make) ifd0.Make = exif.make;
  if (exif.model) ifd0.Model = exif.model;
  if (exif.focalLength35mm) ifd2.FocalLengthIn35mmFilm = String(exif.focalLength35mm);
  if (exif.focalLengthMm) ifd2.FocalLength = `${Math.round(exif.focalLengthMm * 100)}/100`;
  let image = sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality, chromaSubsampling: "4:4:4" });
  const ifd3 = exif.gps ? gpsIfd(exif.gps) : {};
  if (Object.keys(ifd0).length + Object.keys(ifd2).length + Object.keys(ifd3).length > 0) image = image.withExif({ IFD0: ifd0, IFD2: ifd2, ...(exif.gps ? { IFD3: ifd3 } : {}) });
  if (exif.orientation) image = image.withMetadata({ orientation: exif.orientation });
  const jpeg = await image.toBuffer();
  if (!exif.djiRtk) return jpeg;
  const { flag, stdLatM, stdLonM, stdHgtM } = exif.djiRtk;
  return withXmp(jpeg, djiXmp({ RtkFlag: String(flag), RtkStdLon: stdLonM.toFixed(5), RtkStdLat: stdLatM.toFixed(5), RtkStdHgt: stdHgtM.toFixed(5) }));
}

export async function encodePng(rgb: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(rgb, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** Solid-colour image with a distinct colour in each quadrant, to check orientation handling. */
export function quadrantImage(width: number, height: number, colors: [number, number, number][]): Buffer {
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const q = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1);
      out.set(colors[q], 3 * (y * width + x));
    }
  return out;
}

/** Encode raw RGB frames as an H.264 MP4 (yuv420p, every frame a keyframe so blur stays per frame). */
export async function encodeMp4(frames: Buffer[], width: number, height: number, fps: number, outPath: string): Promise<void> {
  const args = ["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", `${width}x${height}`, "-r", String(fps), "-i", "-", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-g", "1", "-pix_fmt", "yuv420p", outPath];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(ffmpegInstaller.path, args, { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
    for (const frame of frames) child.stdin.write(frame);
    child.stdin.end();
  });
}

/** Gaussian blur of a raw RGB frame (sigma in pixels), for "blurry frame" fixtures. */
export async function blurRgb(rgb: Buffer, width: number, height: number, sigma: number): Promise<Buffer> {
  return sharp(rgb, { raw: { width, height, channels: 3 } }).blur(sigma).raw().toBuffer();
}

/**
 * A real HEIC still: one frame encoded with the bundled ffmpeg's libx265, wrapped in a minimal
 * HEIF container (ISO/IEC 23008-12: ftyp, meta{hdlr, pitm, iinf{infe hvc1}, iloc, iprp{ipco
 * {hvcC, ispe}, ipma}}, mdat) — sharp cannot encode HEVC, and no HEIC sample ships with the
 * packages. Dimensions should be multiples of 8. `quarterTurns` (1..3) adds an `irot` property:
 * the stored image is to be displayed rotated 90°·quarterTurns anticlockwise. `exif` adds an
 * `Exif` item carrying those tags.
 */
export async function encodeHeic(rgb: Buffer, width: number, height: number, quarterTurns = 0, exif?: ExifFields): Promise<Buffer> {
  const annexB = await runFfmpeg(["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", `${width}x${height}`, "-i", "-", "-frames:v", "1", "-c:v", "libx265", "-x265-params", "log-level=error:keyint=1", "-pix_fmt", "yuv420p", "-f", "hevc", "-"], rgb);
  const nals = splitAnnexB(annexB);
  const ofType = (type: number) => nals.filter((n) => ((n[0] >> 1) & 0x3f) === type);
  const [vps, sps, pps] = [ofType(32)[0], ofType(33)[0], ofType(34)[0]];
  if (!vps || !sps || !pps) throw new Error("encodeHeic: missing parameter sets");
  const slices = nals.filter((n) => ((n[0] >> 1) & 0x3f) < 32);
  const hvcC = box("hvcC", Buffer.concat([
    Buffer.from([1, sps[3]]), sps.subarray(4, 14), Buffer.from([sps[14]]), // profile_tier_level copied from the SPS
    u16(0xf000), Buffer.from([0xfc, 0xfd, 0xf8, 0xf8]), u16(0), Buffer.from([0x0f, 3]),
    ...[vps, sps, pps].map((nal) => Buffer.concat([Buffer.from([0x80 | ((nal[0] >> 1) & 0x3f)]), u16(1), u16(nal.length), nal])),
  ]));
  const image = Buffer.concat(slices.map((nal) => Buffer.concat([u32(nal.length), nal])));
  // Exif item payload: a 4-byte offset to the TIFF header, then the TIFF block (ISO/IEC 23008-12 Annex A).
  const exifItem = exif ? Buffer.concat([u32(0), await tiffExif(exif)]) : Buffer.alloc(0);
  const payload = Buffer.concat([image, exifItem]);
  const items = exif ? 2 : 1;
  const ftyp = box("ftyp", Buffer.concat([Buffer.from("heic"), u32(0), Buffer.from("mif1heic")]));
  const meta = (offset: number) =>
    fullBox("meta", 0, Buffer.concat([
      fullBox("hdlr", 0, Buffer.concat([u32(0), Buffer.from("pict"), Buffer.alloc(12), Buffer.from([0])])),
      fullBox("pitm", 0, u16(1)),
      fullBox("iinf", 0, Buffer.concat([u16(items), fullBox("infe", 2, Buffer.concat([u16(1), u16(0), Buffer.from("hvc1"), Buffer.from([0])])), ...(exif ? [fullBox("infe", 2, Buffer.concat([u16(2), u16(0), Buffer.from("Exif"), Buffer.from([0])]))] : [])])),
      fullBox("iloc", 0, Buffer.concat([Buffer.from([0x44, 0x00]), u16(items), u16(1), u16(0), u16(1), u32(offset), u32(image.length), ...(exif ? [u16(2), u16(0), u16(1), u32(offset + image.length), u32(exifItem.length)] : [])])),
      box("iprp", Buffer.concat([
        box("ipco", Buffer.concat([hvcC, fullBox("ispe", 0, Buffer.concat([u32(width), u32(height)])), ...(quarterTurns ? [box("irot", Buffer.from([quarterTurns & 3]))] : [])])),
        fullBox("ipma", 0, Buffer.concat([u32(1), u16(1), Buffer.from(quarterTurns ? [3, 0x81, 0x02, 0x83] : [2, 0x81, 0x02])])),
      ])),
    ]));
  const mdatOffset = ftyp.length + meta(0).length + 8;
  return Buffer.concat([ftyp, meta(mdatOffset), box("mdat", payload)]);
}

/** The TIFF block of EXIF tags, cut from the APP1 segment of a sharp-written JPEG. */
async function tiffExif(exif: ExifFields): Promise<Buffer> {
  const jpeg = await encodeJpeg(Buffer.alloc(8 * 8 * 3, 128), 8, 8, exif);
  const marker = jpeg.indexOf(Buffer.from("Exif\0\0", "latin1"));
  if (marker < 0) throw new Error("tiffExif: no EXIF segment");
  const segmentLength = jpeg.readUInt16BE(marker - 2);
  return jpeg.subarray(marker + 6, marker - 2 + segmentLength);
}

function u16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
}

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v);
  return b;
}

function box(type: string, body: Buffer): Buffer {
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, "latin1"), body]);
}

function fullBox(type: string, version: number, body: Buffer): Buffer {
  return box(type, Buffer.concat([Buffer.from([version, 0, 0, 0]), body]));
}

/** NAL units of an Annex B byte stream (start codes 00 00 01 / 00 00 00 01 removed). */
function splitAnnexB(stream: Buffer): Buffer[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < stream.length; i++) if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) starts.push(i + 3);
  return starts.map((start, k) => {
    let end = k + 1 < starts.length ? starts[k + 1] - 3 : stream.length;
    while (end > start && stream[end - 1] === 0) end--; // the leading zero of a 4-byte start code
    return stream.subarray(start, end);
  });
}

async function runFfmpeg(args: string[], input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegInstaller.path, ["-hide_banner", "-loglevel", "error", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
    child.stdin.end(input);
  });
}
