/*
 * The texture scan's z-buffer (compute/geometry/mesh-raster.ts rasterizeDepth) in C, for
 * `npm run bench -- kernels`: the addon's own code (compute/geometry/native/raster.h), the same
 * row spans and double arithmetic per pixel as the TypeScript, so its buffer must equal the
 * TypeScript one to the bit. Built here with gcc -O3 -march=native -ffp-contract=off.
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

#include "../../compute/geometry/native/raster.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
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
    if (rz_rasterize(zbuf, width, height, px, py, depth, indices, faces)) { fprintf(stderr, "raster: a corner is not finite\n"); return 1; }
    double ms = now_ms() - t0;
    if (ms < best) best = ms;
  }
  FILE *out = fopen(argv[3], "wb");
  fwrite(zbuf, 4, (size_t)width * height, out);
  fclose(out);
  printf("%.3f\n", best);
  return 0;
}
