/*
 * Bundle adjustment's linearisation of observations (../linearize.ts linearizeObservation with
 * ../projection.ts projectWithJacobian and ../loss.ts ρ′, ρ″), to the TypeScript's bits: each
 * expression is the TypeScript's, operation for operation, in its order, built with
 * -ffp-contract=off. ρ itself (the cost: Cauchy's needs log1p, whose last bit C's library and
 * V8's may round differently) is left to the caller, which gets each observation's whitened
 * squared norm in `whitened`.
 */
#ifndef BA_LINEARIZE_H
#define BA_LINEARIZE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ../loss.ts LossName. */
enum { LOSS_SQUARED = 0, LOSS_HUBER = 1, LOSS_CAUCHY = 2 };

/* Offsets of ../projection.ts JAC and its length. */
enum { JAC_POSE = 2, JAC_POINT = 14, JAC_INTRINSICS = 20, JAC_SIZE = 30 };

/* ../linearize.ts MIN_RADIAL_CURVATURE. */
#define BA_MIN_RADIAL_CURVATURE 0.3

typedef struct {
  /* The problem. */
  const double *poses, *points, *intrinsics, *obsXY, *obsSigma; /* obsSigma may be NULL */
  const uint32_t *obsCamera, *obsPoint, *intrinsicsGroup;
  /* The layout. */
  const uint8_t *pointFree;
  const uint32_t *pointObsStart, *pointObs;
  const int32_t *poseBase, *intrBase, *intrinsicColumns;
  uint32_t ni;
  /* The normal equations (written). */
  double *jc, *jp, *res, *w, *upp, *upi, *uii, *v, *gR, *gP;
  const double *rotations;
  /* Per observation, its whitened squared norm (written), for the caller's ρ. */
  double *whitened;
  int loss;
  double scale;
} Linearization;

/* ../projection.ts projectWithJacobian into out (JAC layout); the squared residual norm. */
static double ba_project_with_jacobian(const Linearization *L, uint32_t o, double *out) {
  const uint32_t c = L->obsCamera[o];
  const double *R = L->rotations + 9 * (size_t)c;
  const double *pose = L->poses + 6 * (size_t)c;
  const double *X = L->points + 3 * (size_t)L->obsPoint[o];
  const double *in = L->intrinsics + 5 * (size_t)L->intrinsicsGroup[c];
  const double *obs = L->obsXY + 2 * (size_t)o;
  const double X0 = X[0], X1 = X[1], X2 = X[2];
  const double y0 = R[0] * X0 + R[1] * X1 + R[2] * X2;
  const double y1 = R[3] * X0 + R[4] * X1 + R[5] * X2;
  const double y2 = R[6] * X0 + R[7] * X1 + R[8] * X2;
  const double x = y0 + pose[3];
  const double y = y1 + pose[4];
  const double z = y2 + pose[5];
  const double iz = 1 / z;
  const double u = x * iz;
  const double v = y * iz;
  const double f = in[0];
  const double k1 = in[3];
  const double k2 = in[4];
  const double r2 = u * u + v * v;
  const double d = 1 + r2 * (k1 + r2 * k2);
  const double ex = f * d * u + in[1] - obs[0];
  const double ey = f * d * v + in[2] - obs[1];
  out[0] = ex;
  out[1] = ey;
  const double dPrime = k1 + 2 * k2 * r2;
  const double a00 = f * (d + 2 * u * u * dPrime);
  const double a01 = f * (2 * u * v * dPrime);
  const double a11 = f * (d + 2 * v * v * dPrime);
  const double j00 = a00 * iz, j01 = a01 * iz, j02 = -(a00 * u + a01 * v) * iz;
  const double j10 = a01 * iz, j11 = a11 * iz, j12 = -(a01 * u + a11 * v) * iz;
  double *p = out + JAC_POSE;
  p[0] = -j01 * y2 + j02 * y1;
  p[1] = j00 * y2 - j02 * y0;
  p[2] = -j00 * y1 + j01 * y0;
  p[3] = j00; p[4] = j01; p[5] = j02;
  p[6] = -j11 * y2 + j12 * y1;
  p[7] = j10 * y2 - j12 * y0;
  p[8] = -j10 * y1 + j11 * y0;
  p[9] = j10; p[10] = j11; p[11] = j12;
  double *q = out + JAC_POINT;
  for (int k = 0; k < 3; k++) {
    const double rc0 = R[k], rc1 = R[3 + k], rc2 = R[6 + k];
    q[k] = j00 * rc0 + j01 * rc1 + j02 * rc2;
    q[3 + k] = j10 * rc0 + j11 * rc1 + j12 * rc2;
  }
  double *in_ = out + JAC_INTRINSICS;
  const double fr2 = f * r2;
  in_[0] = d * u; in_[1] = 1; in_[2] = 0; in_[3] = fr2 * u; in_[4] = fr2 * r2 * u;
  in_[5] = d * v; in_[6] = 0; in_[7] = 1; in_[8] = fr2 * v; in_[9] = fr2 * r2 * v;
  return ex * ex + ey * ey;
}

/* ../loss.ts lossWeight. */
static double ba_loss_weight(int loss, double s, double a) {
  const double a2 = a * a;
  if (loss == LOSS_HUBER) return s <= a2 ? 1 : a / sqrt(s);
  if (loss == LOSS_CAUCHY) return 1 / (1 + s / a2);
  return 1;
}

/* ../loss.ts lossCurvature. */
static double ba_loss_curvature(int loss, double s, double a) {
  if (loss == LOSS_HUBER) return s <= a * a ? 0 : -0.5 * a / (s * sqrt(s));
  if (loss == LOSS_CAUCHY) {
    const double w = 1 / (1 + s / (a * a));
    return (-w * w) / (a * a);
  }
  return 0;
}

/* ../linearize.ts storeWeighted. */
static void ba_store_weighted(const Linearization *L, uint32_t o, const double *src, double s, double rho1, double rho2) {
  const double sqrtRho1 = sqrt(rho1);
  double alphaOverS = 0;
  double residualScale = sqrtRho1;
  if (s > 0 && rho2 < 0) {
    const double ratio = 1 + (2 * s * rho2) / rho1;
    if (ratio >= BA_MIN_RADIAL_CURVATURE) {
      const double root = sqrt(ratio);
      alphaOverS = (1 - root) / s;
      residualScale = sqrtRho1 / root;
    }
  }
  const double r0 = src[0];
  const double r1 = src[1];
  const double k0 = alphaOverS * r0;
  const double k1 = alphaOverS * r1;
  const size_t cw = 6 + L->ni;
  double *jc = L->jc + (size_t)o * 2 * cw;
  for (int k = 0; k < 6; k++) {
    const double j0 = src[2 + k], j1 = src[8 + k];
    const double rj = r0 * j0 + r1 * j1;
    jc[k] = sqrtRho1 * (j0 - k0 * rj);
    jc[cw + k] = sqrtRho1 * (j1 - k1 * rj);
  }
  for (uint32_t k = 0; k < L->ni; k++) {
    const int32_t col = L->intrinsicColumns[k];
    const double j0 = src[20 + col], j1 = src[25 + col];
    const double rj = r0 * j0 + r1 * j1;
    jc[6 + k] = sqrtRho1 * (j0 - k0 * rj);
    jc[cw + 6 + k] = sqrtRho1 * (j1 - k1 * rj);
  }
  double *jp = L->jp + 6 * (size_t)o;
  for (int k = 0; k < 3; k++) {
    const double j0 = src[14 + k], j1 = src[17 + k];
    const double rj = r0 * j0 + r1 * j1;
    jp[k] = sqrtRho1 * (j0 - k0 * rj);
    jp[3 + k] = sqrtRho1 * (j1 - k1 * rj);
  }
  L->res[2 * (size_t)o] = residualScale * r0;
  L->res[2 * (size_t)o + 1] = residualScale * r1;
}

/* ../linearize.ts accumulate. */
static void ba_accumulate(const Linearization *L, uint32_t o) {
  const uint32_t c = L->obsCamera[o];
  const uint32_t g = L->intrinsicsGroup[c];
  const uint32_t p = L->obsPoint[o];
  const uint32_t ni = L->ni;
  const size_t cw = 6 + ni;
  const double *row0 = L->jc + (size_t)o * 2 * cw;
  const double *row1 = row0 + cw;
  const double r0 = L->res[2 * (size_t)o], r1 = L->res[2 * (size_t)o + 1];
  const int32_t pb = L->poseBase[c];
  const int32_t ib = L->intrBase[g];
  if (pb >= 0) {
    for (int i = 0; i < 6; i++) {
      const double a0 = row0[i], a1 = row1[i];
      double *upp = L->upp + 36 * (size_t)c + 6 * i;
      for (int j = i; j < 6; j++) upp[j] += a0 * row0[j] + a1 * row1[j];
      L->gR[pb + i] += a0 * r0 + a1 * r1;
      if (ib >= 0) {
        double *upi = L->upi + 30 * (size_t)c + ni * i;
        for (uint32_t j = 0; j < ni; j++) upi[j] += a0 * row0[6 + j] + a1 * row1[6 + j];
      }
    }
  }
  if (ib >= 0) {
    for (uint32_t i = 0; i < ni; i++) {
      const double a0 = row0[6 + i], a1 = row1[6 + i];
      double *uii = L->uii + 25 * (size_t)g + ni * i;
      for (uint32_t j = i; j < ni; j++) uii[j] += a0 * row0[6 + j] + a1 * row1[6 + j];
      L->gR[ib + i] += a0 * r0 + a1 * r1;
    }
  }
  if (L->pointFree[p]) {
    const double *jp = L->jp + 6 * (size_t)o;
    const double p0 = jp[0], p1 = jp[1], p2 = jp[2];
    const double q0 = jp[3], q1 = jp[4], q2 = jp[5];
    double *v = L->v + 9 * (size_t)p;
    v[0] += p0 * p0 + q0 * q0; v[1] += p0 * p1 + q0 * q1; v[2] += p0 * p2 + q0 * q2;
    v[4] += p1 * p1 + q1 * q1; v[5] += p1 * p2 + q1 * q2; v[8] += p2 * p2 + q2 * q2;
    double *gP = L->gP + 3 * (size_t)p;
    gP[0] += p0 * r0 + q0 * r1; gP[1] += p1 * r0 + q1 * r1; gP[2] += p2 * r0 + q2 * r1;
    double *w = L->w + (size_t)o * cw * 3;
    for (size_t i = 0; i < cw; i++, w += 3) {
      const double a0 = row0[i], a1 = row1[i];
      w[0] = a0 * p0 + a1 * q0; w[1] = a0 * p1 + a1 * q1; w[2] = a0 * p2 + a1 * q2;
    }
  }
}

/* ../linearize.ts linearizeObservation without ρ: the raw squared norm (for Σ‖r‖²); `whitened[o]` gets the norm ρ is taken of. */
static double ba_linearize_observation(const Linearization *L, uint32_t o, double *scratch) {
  const double s = ba_project_with_jacobian(L, o, scratch);
  double whitened = s;
  if (L->obsSigma) {
    const double sigma = L->obsSigma[o];
    if (sigma != 1) {
      const double inverse = 1 / sigma;
      for (int k = 0; k < JAC_SIZE; k++) scratch[k] *= inverse;
      whitened = s * inverse * inverse;
    }
  }
  L->whitened[o] = whitened;
  ba_store_weighted(L, o, scratch, whitened, ba_loss_weight(L->loss, whitened, L->scale), ba_loss_curvature(L->loss, whitened, L->scale));
  ba_accumulate(L, o);
  return s;
}

/* ../linearize.ts linearizePoints' observation loop over points [p0, p1), V mirrored; Σ‖r‖². */
static double ba_linearize_points(const Linearization *L, uint32_t p0, uint32_t p1, double *scratch) {
  double sumSquares = 0;
  for (uint32_t p = p0; p < p1; p++) {
    double *v = L->v + 9 * (size_t)p;
    memset(v, 0, 9 * sizeof(double));
    memset(L->gP + 3 * (size_t)p, 0, 3 * sizeof(double));
    for (uint32_t k = L->pointObsStart[p]; k < L->pointObsStart[p + 1]; k++) sumSquares += ba_linearize_observation(L, L->pointObs[k], scratch);
    if (L->pointFree[p]) {
      v[3] = v[1]; v[6] = v[2]; v[7] = v[5];
    }
  }
  return sumSquares;
}

/* ../linearize.ts linearize's observation loop over observations [o0, o1); Σ‖r‖². */
static double ba_linearize_observations(const Linearization *L, uint32_t o0, uint32_t o1, double *scratch) {
  double sumSquares = 0;
  for (uint32_t o = o0; o < o1; o++) sumSquares += ba_linearize_observation(L, o, scratch);
  return sumSquares;
}

#endif
