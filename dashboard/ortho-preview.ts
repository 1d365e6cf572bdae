/**
 * @module The orthophoto preview of a georeferenced reconstruction's page: reads the ortho
 * Cloud Optimized GeoTIFF with geotiff.js (bundled, never from a CDN), takes the smallest
 * overview at least as wide as the canvas (a COG's overviews make this one small read of a
 * large file's worth), and draws it with its unseen parts transparent, with the system and
 * the ground size of a pixel beneath.
 */
import { fromArrayBuffer, type GeoTIFFImage } from "geotiff";

/** The overview whose width is the first at or above `wanted` pixels, else the full image. */
async function overviewFor(images: GeoTIFFImage[], wanted: number): Promise<GeoTIFFImage> {
  const bySize = [...images].sort((a, b) => a.getWidth() - b.getWidth());
  return bySize.find((image) => image.getWidth() >= wanted) ?? bySize[bySize.length - 1];
}

async function draw(container: HTMLElement): Promise<void> {
  const canvas = container.querySelector<HTMLCanvasElement>("canvas")!;
  const status = container.querySelector<HTMLElement>("[role=status]")!;
  const response = await fetch(container.dataset.ortho!);
  if (!response.ok) throw new Error(`the orthophoto did not load (${response.status})`);
  const tiff = await fromArrayBuffer(await response.arrayBuffer());
  const images: GeoTIFFImage[] = [];
  for (let i = 0; i < (await tiff.getImageCount()); i++) images.push(await tiff.getImage(i));
  const full = images[0];
  const image = await overviewFor(images, Math.min(1024, container.clientWidth * (window.devicePixelRatio || 1)));
  const width = image.getWidth();
  const height = image.getHeight();
  const bands = (await image.readRasters({ interleave: true })) as unknown as Uint8Array;
  const samples = image.getSamplesPerPixel();
  const rgba = new Uint8ClampedArray(4 * width * height);
  for (let p = 0; p < width * height; p++) {
    for (let c = 0; c < 3; c++) rgba[4 * p + c] = bands[samples * p + Math.min(c, samples - 1)];
    rgba[4 * p + 3] = samples >= 4 ? bands[samples * p + 3] : 255;
  }
  canvas.width = width;
  canvas.height = height;
  canvas.getContext("2d")!.putImageData(new ImageData(rgba, width, height), 0, 0);
  const [pixelSize] = full.getResolution();
  const code = full.getGeoKeys()?.ProjectedCSTypeGeoKey;
  status.textContent = `${full.getWidth()} × ${full.getHeight()} px at ${(Math.abs(pixelSize) * 100).toFixed(1)} cm per pixel${code ? `, EPSG:${code}` : ""}.`;
}

const container = document.getElementById("ortho-preview");
if (container) {
  draw(container).catch((err: Error) => {
    container.querySelector<HTMLElement>("[role=status]")!.textContent = `No preview: ${err.message}`;
  });
}
