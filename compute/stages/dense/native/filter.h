/*
 * The dense stage's geometric filter (../filter.ts geometricFilter and consistentIn) to the
 * TypeScript's bits: each expression is the TypeScript's, in its order, on doubles; built with
 * -ffp-contract=off.
 */
#ifndef DENSE_FILTER_H
#define DENSE_FILTER_H

#include <math.h>
#include <stdint.h>

/* A source as the filter reads it: srcFromRef R (9, row-major), t (3), then focal, cx, cy, width, height. */
#define GF_SOURCE 17

typedef struct {
  const float *depth;
  const double *camera;
  int64_t width, height;
} GfSource;

/* ../filter.ts consistentIn: whether the reference point X, seen at (u, v), lands on a source depth that maps back within maxErr2 px² and agrees in depth. */
static int gf_consistent_in(const double *X, double u, double v, double refFocal, double refCx, double refCy, const GfSource *src, double maxErr2, double maxRel) {
  const double *R = src->camera, *t = src->camera + 9;
  const double focal = src->camera[12], cx = src->camera[13], cy = src->camera[14];
  const double xs = R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0];
  const double ys = R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1];
  const double zs = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (!(zs > 0)) return 0;
  const double col = floor((focal * xs) / zs + cx);
  const double row = floor((focal * ys) / zs + cy);
  /* Also false for NaN, where the TypeScript reads an undefined depth. */
  if (!(col >= 0 && row >= 0 && col < (double)src->width && row < (double)src->height)) return 0;
  const double ds = src->depth[(int64_t)row * src->width + (int64_t)col];
  if (!(ds > 0)) return 0;
  const double bx = (ds * (col + 0.5 - cx)) / focal - t[0];
  const double by = (ds * (row + 0.5 - cy)) / focal - t[1];
  const double bz = ds - t[2];
  const double xr = R[0] * bx + R[3] * by + R[6] * bz;
  const double yr = R[1] * bx + R[4] * by + R[7] * bz;
  const double zr = R[2] * bx + R[5] * by + R[8] * bz;
  if (!(zr > 0)) return 0;
  const double du = (refFocal * xr) / zr + refCx - u;
  const double dv = (refFocal * yr) / zr + refCy - v;
  return du * du + dv * dv <= maxErr2 && fabs(zr - X[2]) <= maxRel * X[2];
}

typedef struct {
  int64_t width, height;
  double focal, cx, cy, maxErr2, maxRel;
  int32_t minConsistentViews, priorConsistentViews;
  /* 1 where a pixel is kept on its prior's word (null: none). */
  const uint8_t *onPrior;
} GfOptions;

/* ../filter.ts geometricFilter into `out` (zeroed by the caller). */
static void gf_filter(const float *refDepth, const GfSource *sources, int32_t sourceCount, const GfOptions *o, float *out) {
  for (int64_t row = 0; row < o->height; row++) {
    for (int64_t col = 0; col < o->width; col++) {
      const int64_t p = row * o->width + col;
      const double d = refDepth[p];
      if (!(d > 0)) continue;
      const double X[3] = { (d * ((double)col + 0.5 - o->cx)) / o->focal, (d * ((double)row + 0.5 - o->cy)) / o->focal, d };
      const int32_t needed = o->onPrior && o->onPrior[p] ? o->priorConsistentViews : o->minConsistentViews;
      int32_t agree = 0;
      for (int32_t j = 0; j < sourceCount && agree < needed; j++) {
        if (gf_consistent_in(X, (double)col + 0.5, (double)row + 0.5, o->focal, o->cx, o->cy, &sources[j], o->maxErr2, o->maxRel)) agree++;
      }
      if (agree >= needed) out[p] = refDepth[p];
    }
  }
}

#endif
