import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { readCameraExif } from "../../../compute/stages/ingest/exif.js";
import { djiXmp, withXmp } from "../../support/fixtures.js";

async function jpegWithGps(gps: Record<string, string>): Promise<Uint8Array> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: "#808080" } }).jpeg().withExif({ IFD0: { Make: "DJI" }, IFD3: gps }).toBuffer();
}

describe("stages/ingest EXIF GPS", () => {
  it("reads a drone's position with the signs of its hemisphere references", async () => {
    const exif = readCameraExif(await jpegWithGps({ GPSLatitudeRef: "S", GPSLatitude: "33/1 51/1 3540/100", GPSLongitudeRef: "W", GPSLongitude: "70/1 39/1 3600/100", GPSAltitudeRef: "0", GPSAltitude: "56789/100" }));
    expect(exif.make).toBe("DJI");
    expect(exif.gps?.latitudeDeg).toBeCloseTo(-(33 + 51 / 60 + 35.4 / 3600), 9);
    expect(exif.gps?.longitudeDeg).toBeCloseTo(-(70 + 39 / 60 + 36 / 3600), 9);
    expect(exif.gps?.altitudeM).toBeCloseTo(567.89, 6);
    const north = readCameraExif(await jpegWithGps({ GPSLatitudeRef: "N", GPSLatitude: "47/1 22/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "8/1 33/1 0/1", GPSAltitude: "12/1" }));
    expect(north.gps?.latitudeDeg).toBeCloseTo(47 + 22 / 60, 9);
    expect(north.gps?.longitudeDeg).toBeCloseTo(8 + 33 / 60, 9);
    expect(north.gps?.altitudeM).toBe(12);
    expect(north.gps?.horizontalErrorM).toBeUndefined();
    const rtk = readCameraExif(await jpegWithGps({ GPSLatitudeRef: "N", GPSLatitude: "47/1 22/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "8/1 33/1 0/1", GPSHPositioningError: "2/100" }));
    expect(rtk.gps?.horizontalErrorM).toBeCloseTo(0.02, 9);
  });

  it("reads the accuracy an RTK drone states in its XMP (DJI drone-dji: RtkFlag, RtkStdLat/Lon/Hgt)", async () => {
    const fix = { GPSLatitudeRef: "N", GPSLatitude: "47/1 22/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "8/1 33/1 0/1", GPSAltitudeRef: "0", GPSAltitude: "41234/100" };
    const fixed = readCameraExif(withXmp(await jpegWithGps(fix), djiXmp({ RtkFlag: "50", RtkStdLat: "0.012", RtkStdLon: "0.016", RtkStdHgt: "0.031" })));
    expect(fixed.gps?.latitudeDeg).toBeCloseTo(47 + 22 / 60, 9);
    // Per axis: the RMS of the latitude and longitude deviations.
    expect(fixed.gps?.horizontalErrorM).toBeCloseTo(Math.sqrt((0.012 ** 2 + 0.016 ** 2) / 2), 9);
    expect(fixed.gps?.verticalErrorM).toBeCloseTo(0.031, 9);
    // A float solution states its (larger) deviations too; the RTK engine's replace EXIF's own.
    const float = readCameraExif(withXmp(await jpegWithGps({ ...fix, GPSHPositioningError: "5/1" }), djiXmp({ RtkFlag: "34", RtkStdLat: "0.25", RtkStdLon: "0.25", RtkStdHgt: "0.4" })));
    expect(float.gps?.horizontalErrorM).toBeCloseTo(0.25, 9);
    expect(float.gps?.verticalErrorM).toBeCloseTo(0.4, 9);
    // Without an RTK solution (16: single point) the deviations are not the fix's; EXIF's stated one still is.
    const single = readCameraExif(withXmp(await jpegWithGps({ ...fix, GPSHPositioningError: "3/1" }), djiXmp({ RtkFlag: "16", RtkStdLat: "0.01", RtkStdLon: "0.01", RtkStdHgt: "0.02" })));
    expect(single.gps?.horizontalErrorM).toBe(3);
    expect(single.gps?.verticalErrorM).toBeUndefined();
    // Deviations without a GPS fix state nothing; zero deviations are not an accuracy.
    expect(readCameraExif(withXmp(await jpegWithGps({}), djiXmp({ RtkFlag: "50", RtkStdLat: "0.01", RtkStdLon: "0.01" }))).gps).toBeUndefined();
    const zero = readCameraExif(withXmp(await jpegWithGps(fix), djiXmp({ RtkFlag: "50", RtkStdLat: "0", RtkStdLon: "0", RtkStdHgt: "0" })));
    expect(zero.gps?.horizontalErrorM).toBeUndefined();
    expect(zero.gps?.verticalErrorM).toBeUndefined();
  });

  it("reads the accuracy in Pix4D's XMP camera namespace (MicaSense, Parrot, senseFly), 0 meaning unknown", async () => {
    const fix = { GPSLatitudeRef: "N", GPSLatitude: "47/1 22/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "8/1 33/1 0/1", GPSAltitudeRef: "0", GPSAltitude: "41234/100" };
    const pix4d = (xy: string, z: string) =>
      `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:Camera="http://pix4d.com/camera/1.0/"><Camera:GPSXYAccuracy>${xy}</Camera:GPSXYAccuracy><Camera:GPSZAccuracy>${z}</Camera:GPSZAccuracy></rdf:Description></rdf:RDF></x:xmpmeta>`;
    const stated = readCameraExif(withXmp(await jpegWithGps(fix), pix4d("0.05", "0.08")));
    expect(stated.gps?.horizontalErrorM).toBeCloseTo(0.05, 9);
    expect(stated.gps?.verticalErrorM).toBeCloseTo(0.08, 9);
    const unknown = readCameraExif(withXmp(await jpegWithGps(fix), pix4d("0", "0")));
    expect(unknown.gps?.horizontalErrorM).toBeUndefined();
    expect(unknown.gps?.verticalErrorM).toBeUndefined();
    // EXIF's own stated accuracy comes first, and states no vertical one.
    const both = readCameraExif(withXmp(await jpegWithGps({ ...fix, GPSHPositioningError: "2/1" }), pix4d("0.05", "0.08")));
    expect(both.gps?.horizontalErrorM).toBe(2);
    expect(both.gps?.verticalErrorM).toBeUndefined();
  });

  it("reads a DJI drone's gimbal pitch from its XMP, and leaves out a pitch no gimbal has", async () => {
    const plain = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#808080" } }).jpeg().toBuffer();
    expect(readCameraExif(withXmp(plain, djiXmp({ GimbalPitchDegree: "-90.00", GimbalRollDegree: "+0.00" }))).gimbalPitchDeg).toBe(-90);
    expect(readCameraExif(withXmp(plain, djiXmp({ GimbalPitchDegree: "+15.20" }))).gimbalPitchDeg).toBeCloseTo(15.2, 9);
    expect(readCameraExif(withXmp(plain, djiXmp({ GimbalPitchDegree: "-120" }))).gimbalPitchDeg).toBeUndefined();
    expect(readCameraExif(plain).gimbalPitchDeg).toBeUndefined();
  });

  it("ignores a position without a fix (0, 0) and photos without GPS", async () => {
    expect(readCameraExif(await jpegWithGps({ GPSLatitudeRef: "N", GPSLatitude: "0/1 0/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "0/1 0/1 0/1" })).gps).toBeUndefined();
    const plain = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#808080" } }).jpeg().toBuffer();
    expect(readCameraExif(plain).gps).toBeUndefined();
  });
});
