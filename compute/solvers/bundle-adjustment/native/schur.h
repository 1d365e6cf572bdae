/*
 * Bundle adjustment's point elimination (../schur.ts eliminatePointsDense), to the TypeScript's
 * bits: the same operations in the same order on IEEE doubles, built with -ffp-contract=off so
 * that no multiply and add are fused. Only the order of independent elements may change (a row's
 * columns), which leaves every result's bits as they are.
 */
#ifndef BA_SCHUR_H
#define BA_SCHUR_H

#include <math.h>
#include <stdint.h>

typedef struct {
  const uint8_t *pointFree;
  const uint32_t *pointObsStart, *pointObs, *obsCamera, *intrinsicsGroup;
  const int32_t *poseBase, *intrBase;
  const double *w, *v, *gP, *diagP;
  double *vinv, *s, *b;
  int32_t *entryOfBase, *entryBase, *entrySize;
  double *entryW, *entryT;
  double mu;
  uint32_t n, ni;
} Elimination;

/* (V_p + μ·diagP_p)⁻¹ by the adjugate into vinv; 0 when not positive definite (schur.ts invertDampedPoint). */
static int invertDampedPoint(const Elimination *e, uint32_t p) {
  const double *v = e->v;
  const size_t o = 9 * (size_t)p;
  const double a00 = v[o] + e->mu * e->diagP[3 * (size_t)p];
  const double a11 = v[o + 4] + e->mu * e->diagP[3 * (size_t)p + 1];
  const double a22 = v[o + 8] + e->mu * e->diagP[3 * (size_t)p + 2];
  const double a01 = v[o + 1], a02 = v[o + 2], a12 = v[o + 5];
  const double c00 = a11 * a22 - a12 * a12;
  const double c01 = a02 * a12 - a01 * a22;
  const double c02 = a01 * a12 - a02 * a11;
  const double det = a00 * c00 + a01 * c01 + a02 * c02;
  if (!(det > 0) || !isfinite(det)) return 0;
  const double inv = 1 / det;
  double *out = e->vinv;
  out[o] = c00 * inv; out[o + 1] = c01 * inv; out[o + 2] = c02 * inv;
  out[o + 3] = c01 * inv; out[o + 4] = (a00 * a22 - a02 * a02) * inv; out[o + 5] = (a01 * a02 - a00 * a12) * inv;
  out[o + 6] = c02 * inv; out[o + 7] = out[o + 5]; out[o + 8] = (a00 * a11 - a01 * a01) * inv;
  return 1;
}

/* Adds count values of w from wOff into the entry of reduced base `base`, made if new (schur.ts addToEntry). */
static void addToEntry(const Elimination *e, int32_t *entryCount, int32_t base, int32_t size, size_t wOff, uint32_t count) {
  int32_t k = e->entryOfBase[base];
  double *entry;
  if (k < 0) {
    k = (*entryCount)++;
    e->entryOfBase[base] = k;
    e->entryBase[k] = base;
    e->entrySize[k] = size;
    entry = e->entryW + 18 * (size_t)k;
    for (uint32_t i = 0; i < count; i++) entry[i] = e->w[wOff + i];
    return;
  }
  entry = e->entryW + 18 * (size_t)k;
  for (uint32_t i = 0; i < count; i++) entry[i] += e->w[wOff + i];
}

/* Point p's entries, T = W·V*⁻¹ and its share of b (schur.ts eliminatePoint); the entry count, or −1. */
static int32_t eliminatePoint(const Elimination *e, uint32_t p) {
  if (!invertDampedPoint(e, p)) return -1;
  const uint32_t ni = e->ni;
  const size_t cw3 = (size_t)(6 + ni) * 3;
  int32_t entries = 0;
  for (uint32_t k = e->pointObsStart[p]; k < e->pointObsStart[p + 1]; k++) {
    const uint32_t o = e->pointObs[k];
    const uint32_t c = e->obsCamera[o];
    const int32_t pb = e->poseBase[c];
    const int32_t ib = e->intrBase[e->intrinsicsGroup[c]];
    const size_t wOff = (size_t)o * cw3;
    if (pb >= 0) addToEntry(e, &entries, pb, 6, wOff, 18);
    if (ib >= 0) addToEntry(e, &entries, ib, (int32_t)ni, wOff + 18, 3 * ni);
  }
  const double *vi = e->vinv + 9 * (size_t)p;
  const double g0 = e->gP[3 * (size_t)p], g1 = e->gP[3 * (size_t)p + 1], g2 = e->gP[3 * (size_t)p + 2];
  for (int32_t k = 0; k < entries; k++) {
    const int32_t base = e->entryBase[k];
    e->entryOfBase[base] = -1;
    for (int32_t r = 0; r < e->entrySize[k]; r++) {
      const size_t o = 18 * (size_t)k + 3 * (size_t)r;
      const double w0 = e->entryW[o], w1 = e->entryW[o + 1], w2 = e->entryW[o + 2];
      const double t0 = w0 * vi[0] + w1 * vi[3] + w2 * vi[6];
      const double t1 = w0 * vi[1] + w1 * vi[4] + w2 * vi[7];
      const double t2 = w0 * vi[2] + w1 * vi[5] + w2 * vi[8];
      e->entryT[o] = t0; e->entryT[o + 1] = t1; e->entryT[o + 2] = t2;
      e->b[base + r] += t0 * g0 + t1 * g1 + t2 * g2;
    }
  }
  return entries;
}

/* s[at + k] −= T[r]·W[k] for k < count (schur.ts subtractRow). */
static inline void subtractRow(double *restrict s, const double *restrict t, const double *restrict w, int32_t count) {
  const double t0 = t[0], t1 = t[1], t2 = t[2];
  for (int32_t k = 0; k < count; k++) s[k] -= t0 * w[3 * k] + t1 * w[3 * k + 1] + t2 * w[3 * k + 2];
}

/* The point's T_i·W_jᵀ blocks off the upper triangle of s (schur.ts subtractPointDense). */
static void subtractPointDense(const Elimination *e, int32_t entries) {
  const size_t n = e->n;
  double *s = e->s;
  const double *W = e->entryW, *T = e->entryT;
  for (int32_t i = 0; i < entries; i++) {
    const size_t bi = (size_t)e->entryBase[i];
    const int32_t si = e->entrySize[i];
    for (int32_t r = 0; r < si; r++) subtractRow(s + (bi + r) * n + bi + r, T + 18 * i + 3 * r, W + 18 * i + 3 * r, si - r);
    for (int32_t j = i + 1; j < entries; j++) {
      const size_t bj = (size_t)e->entryBase[j];
      const int32_t sj = e->entrySize[j];
      if (bi < bj) {
        for (int32_t r = 0; r < si; r++) subtractRow(s + (bi + r) * n + bj, T + 18 * i + 3 * r, W + 18 * j, sj);
      } else {
        for (int32_t c = 0; c < sj; c++) subtractRow(s + (bj + c) * n + bi, T + 18 * j + 3 * c, W + 18 * i, si);
      }
    }
  }
}

#endif
