/*
 * The texture scan's z-buffer (compute/geometry/mesh-raster.ts rasterizeDepth) in C, for
 * `npm run bench -- kernels`: the same row spans and the same double arithmetic per pixel, so
 * its buffer must equal the TypeScript one to the bit. Built with gcc -O3 -march=native.
 *
 * Input (little-endian): uint32 width, height, vertexCount, faceCount; float32 px[n], py[n],
 * depth[n]; uint32 indices[3·faceCount]. Usage: raster <input> <rounds> <zbuf out>; prints
 * the best round's milliseconds.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROW_SLACK 1e-6
#define SPAN_SLACK 0.01

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double min3(double a, double b, double c) { return fmin(a, fmin(b, c)); }
static double max3(double a, double b, double c) { return fmax(a, fmax(b, c)); }

static void rasterize(uint32_t width, uint32_t height, const float *px, const float *py, const float *depth, const uint32_t *indices, uint32_t faces, float *zbuf) {
  for (size_t i = 0; i < (size_t)width * height; i++) zbuf[i] = INFINITY;
  for (uint32_t f = 0; f < faces; f++) {
    uint32_t a = indices[3 * f], b = indices[3 * f + 1], c = indices[3 * f + 2];
    if (depth[a] <= 0 || depth[b] <= 0 || depth[c] <= 0) continue;
    double ax = px[a], ay = py[a], bx = px[b], by = py[b], cx = px[c], cy = py[c];
    double area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area == 0) continue;
    double invA = 1.0 / depth[a], invB = 1.0 / depth[b], invC = 1.0 / depth[c];
    long x0 = (long)fmax(0, floor(min3(ax, bx, cx))), x1 = (long)fmin(width - 1, ceil(max3(ax, bx, cx)));
    long y0 = (long)fmax(0, floor(min3(ay, by, cy))), y1 = (long)fmin(height - 1, ceil(max3(ay, by, cy)));
    double minX = min3(ax, bx, cx), maxX = max3(ax, bx, cx);
    /* The corners from top to bottom: the long edge bounds one side of every row, the two short ones the other. */
    double tx = ax, ty = ay, mx = bx, my = by, lx = cx, ly = cy, sx_, sy_;
    if (my < ty) { sx_ = tx; sy_ = ty; tx = mx; ty = my; mx = sx_; my = sy_; }
    if (ly < my) { sx_ = mx; sy_ = my; mx = lx; my = ly; lx = sx_; ly = sy_; }
    if (my < ty) { sx_ = tx; sy_ = ty; tx = mx; ty = my; mx = sx_; my = sy_; }
    double along = ly - ty > ROW_SLACK ? (lx - tx) / (ly - ty) : NAN;
    double upper = my - ty > ROW_SLACK ? (mx - tx) / (my - ty) : NAN;
    double lower = ly - my > ROW_SLACK ? (lx - mx) / (ly - my) : NAN;
    for (long y = y0; y <= y1; y++) {
      double sy = y + 0.5;
      if (sy < ty - ROW_SLACK || sy > ly + ROW_SLACK) continue;
      double onLong = tx + (sy - ty) * along;
      double onShort = sy < my ? tx + (sy - ty) * upper : mx + (sy - my) * lower;
      double left = minX, right = maxX;
      if (!isnan(onLong) && !isnan(onShort)) {
        left = fmax(minX, fmin(onLong, onShort));
        right = fmin(maxX, fmax(onLong, onShort));
      }
      long from = (long)fmax(x0, ceil(left - 0.5 - SPAN_SLACK)), to = (long)fmin(x1, floor(right - 0.5 + SPAN_SLACK));
      for (long x = from; x <= to; x++) {
        double sx = x + 0.5;
        double wa = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) / area;
        double wb = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) / area;
        double wc = 1 - wa - wb;
        if (wa < 0 || wb < 0 || wc < 0) continue;
        float z = (float)(1.0 / (wa * invA + wb * invB + wc * invC));
        size_t at = (size_t)y * width + x;
        if (z < zbuf[at]) zbuf[at] = z;
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: raster <input> <rounds> <zbuf out>\n"); return 2; }
  FILE *in = fopen(argv[1], "rb");
  if (!in) { perror(argv[1]); return 1; }
  uint32_t head[4];
  if (fread(head, 4, 4, in) != 4) return 1;
  uint32_t width = head[0], height = head[1], n = head[2], faces = head[3];
  float *px = malloc(4 * (size_t)n), *py = malloc(4 * (size_t)n), *depth = malloc(4 * (size_t)n);
  uint32_t *indices = malloc(12 * (size_t)faces);
  if (fread(px, 4, n, in) != n || fread(py, 4, n, in) != n || fread(depth, 4, n, in) != n || fread(indices, 4, 3 * (size_t)faces, in) != 3 * (size_t)faces) return 1;
  fclose(in);
  float *zbuf = malloc(4 * (size_t)width * height);
  int rounds = atoi(argv[2]);
  double best = INFINITY;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ms();
    rasterize(width, height, px, py, depth, indices, faces, zbuf);
    double ms = now_ms() - t0;
    if (ms < best) best = ms;
  }
  FILE *out = fopen(argv[3], "wb");
  fwrite(zbuf, 4, (size_t)width * height, out);
  fclose(out);
  printf("%.3f\n", best);
  return 0;
}
