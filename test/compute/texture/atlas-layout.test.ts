import { describe, expect, it } from "vitest";
import { layoutAtlas } from "../../../compute/stages/texture/atlas-layout.js";
import { faceBudgetFor } from "../../../compute/pipeline/presets.js";

/** Boxes (x0, y0, x1, y1 in photo pixels) of a deterministic mix of chart sizes. */
function boxes(count: number, maxSide: number): Array<[number, number, number, number]> {
  return Array.from({ length: count }, (_, i) => {
    const w = 4 + ((i * 7919) % maxSide), h = 4 + ((i * 104729) % maxSide);
    const x = (i * 31) % 1000, y = (i * 17) % 700;
    return [x + 0.3, y + 0.7, x + w, y + h];
  });
}

function expectPacked(layout: ReturnType<typeof layoutAtlas>, count: number): void {
  const placed = layout.placements.filter((p) => p !== null);
  expect(placed).toHaveLength(count);
  for (const p of placed) {
    const page = layout.pageSizes[p!.page];
    expect(p!.pageX).toBeGreaterThanOrEqual(0);
    expect(p!.pageY).toBeGreaterThanOrEqual(0);
    expect(p!.pageX + p!.width).toBeLessThanOrEqual(page.width);
    expect(p!.pageY + p!.height).toBeLessThanOrEqual(page.height);
  }
  // No two rectangles of one page overlap.
  for (let a = 0; a < placed.length; a++) for (let b = a + 1; b < placed.length; b++) {
    const p = placed[a]!, q = placed[b]!;
    if (p.page !== q.page) continue;
    const apart = p.pageX + p.width <= q.pageX || q.pageX + q.width <= p.pageX || p.pageY + p.height <= q.pageY || q.pageY + q.height <= p.pageY;
    expect(apart).toBe(true);
  }
}

describe("texture/atlas layout", () => {
  it("keeps the photos' resolution and one small page when the charts fit", () => {
    const layout = layoutAtlas([...boxes(60, 60), null], { maxPageSize: 4096, maxPages: 4, padding: 4 });
    expect(layout.scale).toBe(1);
    expect(layout.pageSizes).toHaveLength(1);
    expect(layout.pageSizes[0].width).toBeLessThan(4096);
    expect(layout.placements[60]).toBeNull();
    expectPacked(layout, 60);
    // Each rectangle holds its chart plus the padding, at the photo's pixel grid.
    const p = layout.placements[0]!;
    expect(p.width).toBeGreaterThanOrEqual(Math.ceil(boxes(1, 60)[0][2]) - Math.floor(boxes(1, 60)[0][0]) + 8);
  });

  it("scales the charts down only as far as the page budget needs", () => {
    const many = boxes(400, 300);
    const roomy = layoutAtlas(many, { maxPageSize: 4096, maxPages: 4, padding: 4 });
    const tight = layoutAtlas(many, { maxPageSize: 1024, maxPages: 2, padding: 4 });
    expect(roomy.scale).toBe(1);
    expect(tight.scale).toBeLessThan(1);
    expect(tight.scale).toBeGreaterThan(0.2);
    expect(tight.pageSizes.length).toBeLessThanOrEqual(2);
    expectPacked(tight, 400);
  });
});

describe("pipeline/face budget", () => {
  it("grows with the registered megapixels between the preset's floor and ceiling", () => {
    const photo = { width: 2400, height: 1600 }; // 3.84 MP
    expect(faceBudgetFor("standard", Array(11).fill(photo))).toBe(200_000);
    expect(faceBudgetFor("standard", Array(100).fill(photo))).toBe(1_000_000);
    expect(faceBudgetFor("standard", Array(60).fill(photo))).toBe(Math.round(4000 * 60 * 3.84));
    expect(faceBudgetFor("preview", Array(11).fill(photo))).toBe(63_360);
  });
});
