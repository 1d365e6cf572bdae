import { describe, expect, it } from "vitest";
import { focalPrior } from "../../../compute/stages/ingest/focal.js";
import { sniffBytes } from "../../../compute/stages/ingest/sniff.js";

describe("stages/ingest focal prior", () => {
  it("uses the 35 mm diagonal rule, then FocalPlaneXResolution, then the sensor table, then the default", () => {
    // 4:3 frame, 35 mm-equivalent 35: f = 35 · diag / 43.27.
    expect(focalPrior({ focal35mm: 35 }, 2832, 2128, 1.2).focal).toBeCloseTo((35 * Math.hypot(2832, 2128)) / Math.hypot(36, 24), 6);
    // 20 mm lens, 1000 px per cm at the 4000 px tag size, image downscaled to 2000: 20 · 100 px/mm · 0.5.
    const sensor = focalPrior({ focalMm: 20, focalPlaneXResolution: 1000, focalPlaneUnitMm: 10, pixelWidth: 4000, pixelHeight: 3000 }, 2000, 1500, 1.2);
    expect(sensor).toMatchObject({ source: "exif-sensor" });
    expect(sensor.focal).toBeCloseTo(1000, 6);
    const table = focalPrior({ make: "EASTMAN KODAK COMPANY", model: "KODAK Z612 ZOOM DIGITAL CAMERA", focalMm: 5.85 }, 2832, 2128, 1.2);
    expect(table.source).toBe("exif-sensor");
    expect(Math.abs(table.focal - 2905.88) / 2905.88).toBeLessThan(0.02); // SceauxCastle K.txt
    expect(focalPrior({ focal35mm: 2000 }, 600, 400, 1.2)).toMatchObject({ source: "default", focal: 720 }); // implausible EXIF
  });

  it("sniffs kinds from bytes", () => {
    const iso = (brand: string, compatible = "") => Buffer.from(`\0\0\0\x18ftyp${brand}\0\0\0\0${compatible}`, "latin1");
    expect(sniffBytes(iso("heic", "mif1heic")).kind).toBe("heic");
    expect(sniffBytes(iso("mif1", "mif1avif")).kind).toBe("unknown");
    expect(sniffBytes(iso("isom", "isomavc1")).kind).toBe("video");
    expect(sniffBytes(iso("qt  ")).kind).toBe("video");
    expect(sniffBytes(Buffer.from([0xff, 0xd8, 0xff, 0xe0])).kind).toBe("jpeg");
    expect(sniffBytes(Buffer.from("\x89PNG\r\n\x1a\n", "latin1")).kind).toBe("png");
    expect(sniffBytes(Buffer.from("%PDF-1.5")).description).toBe("PDF document");
  });
});
