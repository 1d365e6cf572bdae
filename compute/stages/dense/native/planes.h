/*
 * PatchMatch's plane updates at one pixel (../patchmatch-state.ts propagate and tryHypothesis),
 * to their bits: the neighbours' planes intersected with the pixel's ray, each hypothesis scored
 * by the level's plane cost (plane-cost.h, AVX-512 or AVX2) and kept when it lowers the pixel's
 * cost. In TypeScript these were a sixth of a dense thread (propagate, tryHypothesis and the call
 * into the addon per hypothesis, in a CPU profile of Herz-Jesus-P8's dense stage); here one call
 * does a pixel's propagation, or its refinement's three or four hypotheses.
 *
 * The same bits: the arithmetic is TypeScript's, in float64, in its order, with no fused
 * multiply-add (-ffp-contract=off); the planes are stored rounded to float32 as a Float32Array
 * stores them. The planar prior's share needs Math.exp's bits, so a pixel with a prior triangle
 * stays in TypeScript (the caller decides); every pixel here has a share of exactly 0.
 */
#ifndef PLANES_H
#define PLANES_H

#include <math.h>
#include <stdint.h>
#include "plane-cost.h"

/* One PatchMatch level's planes and what scoring them reads (bound once per level). */
typedef struct {
  float *depth, *normal, *photo, *cost;
  int32_t *changedIn;
  /* Per pixel the count of leading sources its cost takes; NULL: `sources` everywhere. */
  const uint8_t *sourcesAt;
  int width, height, margin, sources, planeSources, bestK, n;
  /* Byte addresses in the wasm kernel's memory: the source table, the window, the scratch. */
  uint32_t table, win, scratch;
  /* The plane cost at this thread's width when the level was bound (an indirect call: ~1 ns beside a hypothesis's ~400). */
  pc_plane_cost_fn planeCost;
  double focal, cx, cy, depthMin, depthMax;
  /* Hypotheses scored (PatchMatchOutput.evaluations counts them with TypeScript's). */
  double evaluations;
} PlanesLevel;

/* Gipuma's fast pattern, as patchmatch-state.ts NEIGHBOURS: 4 adjacent, then 4 at distance 5. */
static const int PL_NEIGHBOURS[8][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-5, 0}, {5, 0}, {0, -5}, {0, 5}};

/* patchmatch-state.ts hypothesisCost on a window that is not flat (the caller skips flat ones). */
static inline double pl_hypothesis_cost(PlanesLevel *level, uint8_t *memory, int col, int row, double d, double nx, double ny, double nz) {
  level->evaluations += 1;
  const double focal = level->focal, cx = level->cx, cy = level->cy;
  const double px = col + 0.5, py = row + 0.5;
  const double rho = d * (nx * ((px - cx) / focal) + ny * ((py - cy) / focal) + nz);
  if (!(rho < 0)) return PC_MAX_COST;
  const double m0 = nx / focal / rho;
  const double m1 = ny / focal / rho;
  const double m2 = (nz - (nx * cx) / focal - (ny * cy) / focal) / rho;
  const int wanted = level->sourcesAt ? level->sourcesAt[row * level->width + col] : level->sources;
  const int sources = wanted < level->planeSources ? wanted : level->planeSources;
  return level->planeCost(memory, level->table, sources, level->win, level->n, (float)px, (float)py, m0, m1, m2, level->bestK, level->scratch);
}

/* patchmatch-state.ts tryHypothesis at a pixel without a prior (its share is 0). */
static inline void pl_try(PlanesLevel *level, uint8_t *memory, int col, int row, int p, double d, double nx, double ny, double nz, int32_t sweep) {
  const double photo = pl_hypothesis_cost(level, memory, col, row, d, nx, ny, nz);
  if (photo >= PC_MAX_COST) return;
  const double c = photo + 0.0;
  if (c < (double)level->cost[p]) {
    level->cost[p] = (float)c;
    level->photo[p] = (float)photo;
    level->depth[p] = (float)d;
    level->normal[3 * p] = (float)nx;
    level->normal[3 * p + 1] = (float)ny;
    level->normal[3 * p + 2] = (float)nz;
    level->changedIn[p] = sweep;
  }
}

/* patchmatch-state.ts propagate: the first `count` neighbours' planes, those changed in sweep `since` or later. */
static void pl_propagate(PlanesLevel *level, uint8_t *memory, int col, int row, int count, int32_t since, int32_t sweep) {
  const int width = level->width, height = level->height, margin = level->margin;
  const int p = row * width + col;
  const double focal = level->focal, cx = level->cx, cy = level->cy;
  const float *depth = level->depth, *normal = level->normal;
  const double rx = (col + 0.5 - cx) / focal;
  const double ry = (row + 0.5 - cy) / focal;
  for (int k = 0; k < count; k++) {
    const int qc = col + PL_NEIGHBOURS[k][0];
    const int qr = row + PL_NEIGHBOURS[k][1];
    if (qc < margin || qr < margin || qc >= width - margin || qr >= height - margin) continue;
    const int q = qr * width + qc;
    if (level->changedIn[q] < since) continue;
    const double nx = normal[3 * q], ny = normal[3 * q + 1], nz = normal[3 * q + 2];
    const double rho = (double)depth[q] * (nx * ((qc + 0.5 - cx) / focal) + ny * ((qr + 0.5 - cy) / focal) + nz);
    const double denom = nx * rx + ny * ry + nz;
    if (denom > -1e-6) continue;
    const double d = rho / denom;
    if (!(d > 0.5 * level->depthMin && d < 2 * level->depthMax)) continue;
    if (nx == (double)normal[3 * p] && ny == (double)normal[3 * p + 1] && nz == (double)normal[3 * p + 2] && fabs(d - (double)depth[p]) <= 1e-6 * d) continue;
    pl_try(level, memory, col, row, p, d, nx, ny, nz, sweep);
  }
}

#endif
