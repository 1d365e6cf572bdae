/*
 * The dense stage's fusion (../fusion.ts fuse, pixelToWorld, matchingPixel, reprojectsNear) to the
 * TypeScript's bits: each expression is the TypeScript's, operation for operation and in its order,
 * on doubles, with the float32 roundings where the TypeScript stores into a Float32Array; built
 * with -ffp-contract=off. Math.hypot and Math.round are V8's (../../../util/native/v8-math.h).
 */
#ifndef DENSE_FUSION_H
#define DENSE_FUSION_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "../../../util/native/v8-math.h"

/* ../views.ts PACKED_CAMERA: camFromWorld R (9, row-major), t (3), focal, cx, cy, width, height. */
#define FU_CAMERA 17

typedef struct {
  const float *depth, *normal;
  const uint8_t *rgb;
  uint8_t *used;
  int64_t width, height;
} FuMap;

typedef struct {
  double maxRelativeDepthError, cosMax, maxPx;
  int32_t minFusedViews, seedMaps;
  /* Per map, 1 when a point it joins is another cluster's (null: none). */
  const uint8_t *yieldTo;
} FuOptions;

/* Growing output: three values per fused point. */
typedef struct {
  float *positions, *normals;
  uint8_t *colors;
  size_t count, capacity;
} FuCloud;

/* ../fusion.ts pixelToWorld: world point and world normal of pixel p of map m into out[0..6). */
static void fu_pixel_to_world(const double *cameras, int32_t m, const FuMap *map, int64_t p, double *out) {
  const double *c = cameras + FU_CAMERA * m;
  const double col = (double)(p % map->width);
  const double row = (double)(p / map->width);
  const double d = map->depth[p];
  const double xc = (d * (col + 0.5 - c[13])) / c[12] - c[9];
  const double yc = (d * (row + 0.5 - c[14])) / c[12] - c[10];
  const double zc = d - c[11];
  out[0] = c[0] * xc + c[3] * yc + c[6] * zc;
  out[1] = c[1] * xc + c[4] * yc + c[7] * zc;
  out[2] = c[2] * xc + c[5] * yc + c[8] * zc;
  const double nx = map->normal[3 * p], ny = map->normal[3 * p + 1], nz = map->normal[3 * p + 2];
  out[3] = c[0] * nx + c[3] * ny + c[6] * nz;
  out[4] = c[1] * nx + c[4] * ny + c[7] * nz;
  out[5] = c[2] * nx + c[5] * ny + c[8] * nz;
}

/* ../fusion.ts matchingPixel: the unused pixel of map m that agrees with points[0..6), or −1; its point and normal into points[6..12). */
static int64_t fu_matching_pixel(const double *cameras, int32_t m, const FuMap *map, double *points, double maxRelativeDepthError, double cosMax) {
  const double *c = cameras + FU_CAMERA * m;
  const double x = points[0], y = points[1], z = points[2];
  const double zc = c[6] * x + c[7] * y + c[8] * z + c[11];
  if (!(zc > 0)) return -1;
  const double xc = c[0] * x + c[1] * y + c[2] * z + c[9];
  const double yc = c[3] * x + c[4] * y + c[5] * z + c[10];
  const double focal = c[12];
  const double col = floor((focal * xc) / zc + c[13]);
  const double row = floor((focal * yc) / zc + c[14]);
  /* Also false for NaN, where the TypeScript's index is NaN and its depth undefined. */
  if (!(col >= 0 && row >= 0 && col < (double)map->width && row < (double)map->height)) return -1;
  const int64_t q = (int64_t)row * map->width + (int64_t)col;
  const double d = map->depth[q];
  if (!(d > 0) || map->used[q]) return -1;
  if (fabs(d - zc) > maxRelativeDepthError * zc) return -1;
  fu_pixel_to_world(cameras, m, map, q, points + 6);
  if (points[9] * points[3] + points[10] * points[4] + points[11] * points[5] < cosMax) return -1;
  return q;
}

/* ../fusion.ts reprojectsNear: whether points[6..9) projects into map m within maxPx of pixel p's centre. */
static int fu_reprojects_near(const double *cameras, int32_t m, const FuMap *map, const double *points, int64_t p, double maxPx) {
  const double *c = cameras + FU_CAMERA * m;
  const double x = points[6], y = points[7], z = points[8];
  const double zc = c[6] * x + c[7] * y + c[8] * z + c[11];
  if (!(zc > 0)) return 0;
  const double col = (double)(p % map->width);
  const double row = (double)(p / map->width);
  const double focal = c[12];
  const double du = (focal * (c[0] * x + c[1] * y + c[2] * z + c[9])) / zc + c[13] - (col + 0.5);
  const double dv = (focal * (c[3] * x + c[4] * y + c[5] * z + c[10])) / zc + c[14] - (row + 0.5);
  return du * du + dv * dv <= maxPx * maxPx;
}

/* Appends one point; 0 when memory ran out. */
static int fu_push(FuCloud *cloud, const float *position, const float *normal, const uint8_t *color) {
  if (cloud->count == cloud->capacity) {
    const size_t capacity = cloud->capacity ? 2 * cloud->capacity : 4096;
    float *positions = realloc(cloud->positions, 3 * capacity * sizeof(float));
    if (positions) cloud->positions = positions;
    float *normals = realloc(cloud->normals, 3 * capacity * sizeof(float));
    if (normals) cloud->normals = normals;
    uint8_t *colors = realloc(cloud->colors, 3 * capacity);
    if (colors) cloud->colors = colors;
    if (!positions || !normals || !colors) return 0;
    cloud->capacity = capacity;
  }
  for (int k = 0; k < 3; k++) {
    cloud->positions[3 * cloud->count + k] = position[k];
    cloud->normals[3 * cloud->count + k] = normal[k];
    cloud->colors[3 * cloud->count + k] = color[k];
  }
  cloud->count++;
  return 1;
}

/* ../fusion.ts fuse over `count` maps (their `used` zeroed by the caller); 0 when memory ran out. */
static int fu_fuse(const FuMap *maps, int32_t count, const double *cameras, const FuOptions *o, FuCloud *cloud) {
  double points[12], sum[9];
  const int32_t seedMaps = o->seedMaps < count ? o->seedMaps : count;
  for (int32_t i = 0; i < seedMaps; i++) {
    const FuMap *seed = &maps[i];
    const int64_t pixels = seed->width * seed->height;
    for (int64_t p = 0; p < pixels; p++) {
      if (!(seed->depth[p] > 0) || seed->used[p]) continue;
      fu_pixel_to_world(cameras, i, seed, p, points);
      for (int k = 0; k < 6; k++) sum[k] = points[k];
      for (int k = 0; k < 3; k++) sum[6 + k] = seed->rgb[3 * p + k];
      int32_t members = 1;
      int yielded = 0;
      seed->used[p] = 1;
      for (int32_t j = 0; j < count; j++) {
        if (j == i) continue;
        const int64_t q = fu_matching_pixel(cameras, j, &maps[j], points, o->maxRelativeDepthError, o->cosMax);
        if (q < 0 || !fu_reprojects_near(cameras, i, seed, points, p, o->maxPx)) continue;
        maps[j].used[q] = 1;
        members++;
        if (o->yieldTo && o->yieldTo[j] == 1) yielded = 1;
        for (int k = 0; k < 3; k++) {
          sum[k] += points[6 + k];
          sum[3 + k] += points[9 + k];
          sum[6 + k] += maps[j].rgb[3 * q + k];
        }
      }
      if (members < o->minFusedViews || yielded) continue;
      double length = v8Hypot(sum + 3, 3);
      if (length == 0 || isnan(length)) length = 1;
      const float position[3] = { (float)(sum[0] / members), (float)(sum[1] / members), (float)(sum[2] / members) };
      const float normal[3] = { (float)(sum[3] / length), (float)(sum[4] / length), (float)(sum[5] / length) };
      const uint8_t color[3] = { (uint8_t)jsRound(sum[6] / members), (uint8_t)jsRound(sum[7] / members), (uint8_t)jsRound(sum[8] / members) };
      if (!fu_push(cloud, position, normal, color)) return 0;
    }
  }
  return 1;
}

#endif
