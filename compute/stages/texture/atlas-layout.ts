/**
 * @module Packing chart rectangles into texture pages. A chart is the bounding box of its
 * faces in its photo; in the atlas it keeps the photo's pixel grid (only translated, and
 * scaled by one factor for the whole model when the pages cannot hold the photos' full
 * resolution), so painting copies photo pixels without resampling them twice.
 *
 * Shelf packing by decreasing height (the "next fit decreasing height" heuristic); each
 * rectangle has `padding` texels on every side, filled from the photo around the chart, so
 * that bilinear filtering and mipmaps read real colours across chart borders instead of
 * bleeding the background in.
 */

export interface LayoutOptions {
  /** Largest page side in texels. */
  maxPageSize: number;
  maxPages: number;
  /** Texels around each chart. */
  padding: number;
}

export interface ChartPlacement {
  page: number;
  /** Top-left of the chart's rectangle in its page, in texels. */
  pageX: number;
  pageY: number;
  /** Top-left of the same rectangle in the scaled photo, in pixels. */
  photoX: number;
  photoY: number;
  width: number;
  height: number;
}

export interface AtlasLayout {
  /** Scale from photo pixels (at the stage's working size) to texels. */
  scale: number;
  pageSizes: Array<{ width: number; height: number }>;
  /** Per chart, or null for charts without texture. */
  placements: Array<ChartPlacement | null>;
}

/** Rectangles of the charts at one scale; null where a chart has no box. */
function rectangles(boxes: Array<[number, number, number, number] | null>, scale: number, padding: number): Array<{ x: number; y: number; w: number; h: number } | null> {
  return boxes.map((box) => {
    if (!box) return null;
    const x0 = Math.floor(box[0] * scale) - padding, y0 = Math.floor(box[1] * scale) - padding;
    const x1 = Math.ceil(box[2] * scale) + padding, y1 = Math.ceil(box[3] * scale) + padding;
    return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  });
}

/** Shelf packing into pages of side `pageSize`; null if more than `maxPages` would be needed. */
function pack(rects: Array<{ x: number; y: number; w: number; h: number } | null>, pageSize: number, maxPages: number): { placements: Array<ChartPlacement | null>; pages: number; lastHeight: number } | null {
  const order = rects.map((_, i) => i).filter((i) => rects[i] !== null).sort((a, b) => rects[b]!.h - rects[a]!.h || rects[b]!.w - rects[a]!.w);
  const placements: Array<ChartPlacement | null> = rects.map(() => null);
  let page = 0, shelfY = 0, shelfHeight = 0, cursorX = 0;
  for (const i of order) {
    const r = rects[i]!;
    if (r.w > pageSize || r.h > pageSize) return null;
    if (cursorX + r.w > pageSize) { shelfY += shelfHeight; shelfHeight = 0; cursorX = 0; }
    if (shelfY + r.h > pageSize) {
      page++;
      if (page >= maxPages) return null;
      shelfY = 0; shelfHeight = 0; cursorX = 0;
    }
    placements[i] = { page, pageX: cursorX, pageY: shelfY, photoX: r.x, photoY: r.y, width: r.w, height: r.h };
    cursorX += r.w;
    shelfHeight = Math.max(shelfHeight, r.h);
  }
  return { placements, pages: order.length > 0 ? page + 1 : 0, lastHeight: shelfY + shelfHeight };
}

/**
 * Chooses the largest scale ≤ 1 at which the charts fit, and the smallest pages that hold
 * them: one page shrunk to a power of two when everything fits in one, else full pages.
 */
export function layoutAtlas(boxes: Array<[number, number, number, number] | null>, options: LayoutOptions): AtlasLayout {
  const { maxPageSize, maxPages, padding } = options;
  let area = 0, largest = 0;
  for (const box of boxes) {
    if (!box) continue;
    const w = box[2] - box[0] + 2 * padding + 2, h = box[3] - box[1] + 2 * padding + 2;
    area += w * h;
    largest = Math.max(largest, w, h);
  }
  if (area === 0) return { scale: 1, pageSizes: [], placements: boxes.map(() => null) };
  // Shelf packing of sorted heights fills about 80 % of a page; start from that estimate.
  let scale = Math.min(1, Math.sqrt((0.8 * maxPages * maxPageSize * maxPageSize) / area), (maxPageSize - 2 * padding - 2) / largest);
  for (let attempt = 0; attempt < 60; attempt++, scale *= 0.95) {
    const rects = rectangles(boxes, scale, padding);
    // Smallest single page first: a small model should not ship a mostly empty 8k texture.
    for (let side = 256; side < maxPageSize; side *= 2) {
      const single = pack(rects, side, 1);
      if (single) return { scale, pageSizes: [{ width: side, height: side }], placements: single.placements };
    }
    const packed = pack(rects, maxPageSize, maxPages);
    if (packed) {
      const pageSizes = Array.from({ length: packed.pages }, (_, k) => ({ width: maxPageSize, height: k === packed.pages - 1 ? roundUp(packed.lastHeight, 4) : maxPageSize }));
      return { scale, pageSizes, placements: packed.placements };
    }
  }
  throw new Error(`texture: charts do not fit ${maxPages} pages of ${maxPageSize}² even at scale ${scale.toFixed(3)}`);
}

function roundUp(value: number, multiple: number): number {
  return Math.max(multiple, Math.ceil(value / multiple) * multiple);
}
