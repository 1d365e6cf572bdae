/*
 * The keypoints stage's patch alignment (../align.ts alignPatch with ../pyramid.ts
 * sampleWithGradient), to the TypeScript's bits: each expression is the TypeScript's, operation
 * for operation and in its order, on doubles, with the same float32 roundings where the
 * TypeScript stores into a Float32Array, built with -ffp-contract=off. Math.hypot is V8's
 * (normalised by the larger magnitude, Kahan-summed squares, sqrt times that magnitude); the
 * pyramid level and the starting warp (Math.log2, Math.cos, Math.sin) come from the caller.
 */
#ifndef KP_ALIGN_H
#define KP_ALIGN_H

#include <math.h>
#include <stdint.h>
#include "../../../util/native/v8-math.h"

/* ../align.ts AlignOutcome codes, as ../image-task.ts OUTCOMES numbers them. */
enum { KP_ALIGNED = 0, KP_OUTSIDE = 1, KP_DIVERGED = 2, KP_DISSIMILAR = 3 };

/* ../align.ts CONVERGED_LEVEL_PX. */
#define KP_CONVERGED_LEVEL_PX 0.005

typedef struct {
  const float *data, *gx, *gy;
  int32_t width, height;
} KpLevel;

typedef struct {
  int32_t maxIterations;
  double minZncc, maxShiftLevelPx;
} KpOptions;

/* Math.hypot of two numbers (../../../util/native/v8-math.h). */
static double kp_hypot(double a, double b) {
  const double values[2] = { a, b };
  return v8Hypot(values, 2);
}

/* ../pyramid.ts sampleWithGradient: value and level-0 gradient at level-0 point (x, y); 0 outside. */
static int kp_sample_with_gradient(const KpLevel *L, int32_t level, double x, double y, double *out) {
  const double inv = 1 / (double)(1 << level);
  const double ax = x * inv - 0.5;
  const double ay = y * inv - 0.5;
  if (!(ax >= 0 && ay >= 0 && ax < L->width - 1 && ay < L->height - 1)) return 0;
  const double x0 = floor(ax);
  const double y0 = floor(ay);
  const double fx = ax - x0;
  const double fy = ay - y0;
  const size_t i = (size_t)y0 * (size_t)L->width + (size_t)x0;
  const double w00 = (1 - fx) * (1 - fy);
  const double w01 = fx * (1 - fy);
  const double w10 = (1 - fx) * fy;
  const double w11 = fx * fy;
  const size_t j = i + (size_t)L->width;
  out[0] = w00 * L->data[i] + w01 * L->data[i + 1] + w10 * L->data[j] + w11 * L->data[j + 1];
  out[1] = (w00 * L->gx[i] + w01 * L->gx[i + 1] + w10 * L->gx[j] + w11 * L->gx[j + 1]) * inv;
  out[2] = (w00 * L->gy[i] + w01 * L->gy[i + 1] + w10 * L->gy[j] + w11 * L->gy[j + 1]) * inv;
  return 1;
}

/* ../align.ts solve6: H·δ = b in place by Gaussian elimination with partial pivoting; 0 when singular. */
static int kp_solve6(double *H, double *b) {
  for (int c = 0; c < 6; c++) {
    int pivot = c;
    for (int r = c + 1; r < 6; r++) if (fabs(H[6 * r + c]) > fabs(H[6 * pivot + c])) pivot = r;
    if (fabs(H[6 * pivot + c]) < 1e-12) return 0;
    if (pivot != c) {
      for (int k = 0; k < 6; k++) {
        const double t = H[6 * c + k];
        H[6 * c + k] = H[6 * pivot + k];
        H[6 * pivot + k] = t;
      }
      const double t = b[c];
      b[c] = b[pivot];
      b[pivot] = t;
    }
    for (int r = c + 1; r < 6; r++) {
      const double f = H[6 * r + c] / H[6 * c + c];
      for (int k = c; k < 6; k++) H[6 * r + k] -= f * H[6 * c + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = 5; r >= 0; r--) {
    double v = b[r];
    for (int k = r + 1; k < 6; k++) v -= H[6 * r + k] * b[k];
    b[r] = v / H[6 * r + r];
  }
  return 1;
}

/*
 * ../align.ts alignPatch on `level` (the caller's levelFor), n samples at offsets; values, gx
 * and gy are n floats of scratch. warp (tx, ty, m11, m12, m21, m22) is refined in place.
 */
static int kp_align_patch(const KpLevel *L, int32_t level, double x, double y, const float *reference, double spacing, const float *offsets, int32_t n, double *warp,
                          const KpOptions *options, float *values, float *gxs, float *gys) {
  const double levelPx = (double)(1 << level);
  double H[36], b[6], J[6], sample[3];
  double cost = INFINITY;
  for (int32_t iteration = 0; iteration < options->maxIterations; iteration++) {
    double sum = 0, sumSq = 0;
    for (int32_t k = 0; k < n; k++) {
      const double u = spacing * offsets[2 * k];
      const double v = spacing * offsets[2 * k + 1];
      const double px = x + warp[0] + warp[2] * u + warp[3] * v;
      const double py = y + warp[1] + warp[4] * u + warp[5] * v;
      if (!kp_sample_with_gradient(L, level, px, py, sample)) return KP_OUTSIDE;
      const double c = sample[0];
      values[k] = (float)c;
      gxs[k] = (float)sample[1];
      gys[k] = (float)sample[2];
      sum += c;
      sumSq += c * c;
    }
    const double mean = sum / n;
    const double spread = sumSq / n - mean * mean;
    const double std = sqrt(isnan(spread) ? spread : (1e-12 > spread ? 1e-12 : spread));
    for (int i = 0; i < 36; i++) H[i] = 0;
    for (int i = 0; i < 6; i++) b[i] = 0;
    cost = 0;
    const double inv = 1 / std;
    for (int32_t k = 0; k < n; k++) {
      const double r = (values[k] - mean) * inv - reference[k];
      cost += r * r;
      const double gx = gxs[k] * inv;
      const double gy = gys[k] * inv;
      const double u = spacing * offsets[2 * k];
      const double v = spacing * offsets[2 * k + 1];
      J[0] = gx; J[1] = gy; J[2] = gx * u; J[3] = gx * v; J[4] = gy * u; J[5] = gy * v;
      for (int p = 0; p < 6; p++) {
        b[p] -= J[p] * r;
        for (int q = p; q < 6; q++) H[6 * p + q] += J[p] * J[q];
      }
    }
    for (int p = 0; p < 6; p++) {
      for (int q = 0; q < p; q++) H[6 * p + q] = H[6 * q + p];
      H[6 * p + p] *= 1 + 1e-4;
    }
    if (!kp_solve6(H, b)) return KP_DIVERGED;
    for (int p = 0; p < 6; p++) warp[p] += b[p];
    if (kp_hypot(warp[0], warp[1]) > options->maxShiftLevelPx * levelPx) return KP_DIVERGED;
    if (kp_hypot(b[0], b[1]) < KP_CONVERGED_LEVEL_PX * levelPx) break;
  }
  const double zncc = 1 - cost / (2 * n);
  return zncc >= options->minZncc ? KP_ALIGNED : KP_DISSIMILAR;
}

#endif
