import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { readCameraExif } from "../../../compute/stages/ingest/exif.js";

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

  it("ignores a position without a fix (0, 0) and photos without GPS", async () => {
    expect(readCameraExif(await jpegWithGps({ GPSLatitudeRef: "N", GPSLatitude: "0/1 0/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "0/1 0/1 0/1" })).gps).toBeUndefined();
    const plain = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#808080" } }).jpeg().toBuffer();
    expect(readCameraExif(plain).gps).toBeUndefined();
  });
});
