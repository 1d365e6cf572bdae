/*
 * The z-buffer of ../mesh-raster.ts rasterizeDepth in C, to its bits: the same row spans and the
 * same float64 arithmetic per pixel (built with -ffp-contract=off, so no fused multiply-add), the
 * nearer depth kept as float32. Shared by the addon (raster.c) and the bench's native reference
 * (bench/native/raster.c).
 *
 * Why the bits agree: the TypeScript compares the float64 depth with the stored float32 and
 * stores its rounding; this rounds first and compares, which keeps the same value (rounding is
 * monotonic, and the stored value is a float32). Math.min and Math.max are fmin and fmax here
 * only on finite values: a face with a coordinate that is not finite draws nothing in the
 * TypeScript (its span bounds turn NaN) or spans whole rows (an infinite one), so
 * rz_rasterize() stops and says so, and the caller rasterises that image in TypeScript.
 */
#ifndef RASTER_H
#define RASTER_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define RZ_ROW_SLACK 1e-6
#define RZ_SPAN_SLACK 0.01

static inline double rz_min3(double a, double b, double c) { return fmin(a, fmin(b, c)); }
static inline double rz_max3(double a, double b, double c) { return fmax(a, fmax(b, c)); }

/* One face's pixels into zbuf; the corners are finite and the face has an area. */
static inline void rz_face(float *zbuf, uint32_t width, uint32_t height, double ax, double ay, double bx, double by, double cx, double cy, double area, double invA, double invB, double invC) {
  const double minX = rz_min3(ax, bx, cx), maxX = rz_max3(ax, bx, cx);
  const double x0 = fmax(0, floor(minX)), x1 = fmin(width - 1.0, ceil(maxX));
  const double y0 = fmax(0, floor(rz_min3(ay, by, cy))), y1 = fmin(height - 1.0, ceil(rz_max3(ay, by, cy)));
  if (!(x0 <= x1 && y0 <= y1)) return;
  /* The corners from top to bottom: the long edge bounds one side of every row, the two short ones the other. */
  double tx = ax, ty = ay, mx = bx, my = by, lx = cx, ly = cy, swapX, swapY;
  if (my < ty) { swapX = tx; swapY = ty; tx = mx; ty = my; mx = swapX; my = swapY; }
  if (ly < my) { swapX = mx; swapY = my; mx = lx; my = ly; lx = swapX; ly = swapY; }
  if (my < ty) { swapX = tx; swapY = ty; tx = mx; ty = my; mx = swapX; my = swapY; }
  const double along = ly - ty > RZ_ROW_SLACK ? (lx - tx) / (ly - ty) : NAN;
  const double upper = my - ty > RZ_ROW_SLACK ? (mx - tx) / (my - ty) : NAN;
  const double lower = ly - my > RZ_ROW_SLACK ? (lx - mx) / (ly - my) : NAN;
  for (long y = (long)y0; y <= (long)y1; y++) {
    const double sy = y + 0.5;
    if (sy < ty - RZ_ROW_SLACK || sy > ly + RZ_ROW_SLACK) continue;
    const double onLong = tx + (sy - ty) * along;
    const double onShort = sy < my ? tx + (sy - ty) * upper : mx + (sy - my) * lower;
    double left = minX, right = maxX;
    if (!isnan(onLong) && !isnan(onShort)) {
      left = fmax(minX, fmin(onLong, onShort));
      right = fmin(maxX, fmax(onLong, onShort));
    }
    const double from = fmax(x0, ceil(left - 0.5 - RZ_SPAN_SLACK)), to = fmin(x1, floor(right - 0.5 + RZ_SPAN_SLACK));
    if (!(from <= to)) continue;
    float *row = zbuf + (size_t)y * width;
    for (long x = (long)from; x <= (long)to; x++) {
      const double sx = x + 0.5;
      const double wa = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) / area;
      const double wb = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) / area;
      const double wc = 1 - wa - wb;
      if (wa < 0 || wb < 0 || wc < 0) continue;
      const float z = (float)(1 / (wa * invA + wb * invB + wc * invC));
      if (z < row[x]) row[x] = z;
    }
  }
}

/*
 * The faces' nearest depths into zbuf (width × height, filled with +∞ here). Returns 0, or 1 when
 * a drawn face has a corner or area that is not finite: the buffer is then unfinished.
 */
static int rz_rasterize(float *zbuf, uint32_t width, uint32_t height, const float *px, const float *py, const float *depth, const uint32_t *indices, size_t faces) {
  for (size_t i = 0; i < (size_t)width * height; i++) zbuf[i] = INFINITY;
  for (size_t f = 0; f < faces; f++) {
    const uint32_t a = indices[3 * f], b = indices[3 * f + 1], c = indices[3 * f + 2];
    if (depth[a] <= 0 || depth[b] <= 0 || depth[c] <= 0) continue;
    const double ax = px[a], ay = py[a], bx = px[b], by = py[b], cx = px[c], cy = py[c];
    const double area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area == 0) continue;
    if (!isfinite(area) || !isfinite(ax) || !isfinite(ay) || !isfinite(bx) || !isfinite(by) || !isfinite(cx) || !isfinite(cy)) return 1;
    rz_face(zbuf, width, height, ax, ay, bx, by, cx, cy, area, 1.0 / depth[a], 1.0 / depth[b], 1.0 / depth[c]);
  }
  return 0;
}

#endif
