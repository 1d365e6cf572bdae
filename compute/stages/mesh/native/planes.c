/*
 * The mesh stage's plane search (planes.ts) as a Node-API addon, to the TypeScript's bits: the
 * scoring of RANSAC hypotheses on the pooled sample and the whole-cloud inlier passes. It exists
 * because the search runs on the stage's calling thread while the stage's helper waits (0.95 s of
 * Herz-Jesus-P8's mesh stage in a CPU profile, the longest phase no other thread shares). Built at
 * `npm ci` by scripts/build-native.mjs with -ffp-contract=off: every test is the TypeScript's
 * expression in doubles, in its order; plain C, any CPU.
 *
 *   bestHypothesis(poolPositions: Float32Array, poolNormals: Float32Array, hypotheses: Float64Array,
 *                  inlierDistance, minNormalCosine) → index of the best hypothesis, or -1
 *     hypotheses holds 4 per hypothesis (normal, d); a NaN normal's x marks one that was not made.
 *     The best is the first with the most inliers (planes.ts bestHypothesis), and at least one.
 *
 *   inliersOf(positions: Float32Array, normals: Float32Array, taken: Uint8Array, count,
 *             plane: Float64Array(4), inlierDistance, minNormalCosine, out: Uint32Array) → found
 *     The indices of the untaken inliers among the first `count` points, ascending, into `out`.
 *
 *   freeIndices(taken: Uint8Array, count, out: Uint32Array) → free count
 */
#define NAPI_VERSION 8
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <node_api.h>
#include "../../../util/native/napi-args.h"

/* Points counted between the checks whether a hypothesis can still beat the best (planes.ts COUNT_BLOCK). */
#define COUNT_BLOCK 2048

/* The inlier test of planes.ts: within the distance (a NaN distance passes it), and the normal within the cosine. */
static inline int isInlier(const float *p, const float *q, double nx, double ny, double nz, double d, double distance, double minCosine) {
  const double offset = nx * (double)p[0] + ny * (double)p[1] + nz * (double)p[2] - d;
  const double cosine = nx * (double)q[0] + ny * (double)q[1] + nz * (double)q[2];
  return !(fabs(offset) > distance) & (fabs(cosine) >= minCosine);
}

/* The pool's points as six columns (x, y, z, then the normals'), so that the count vectorises. */
typedef struct {
  float *x, *y, *z, *nx, *ny, *nz;
  int64_t n;
} PoolColumns;

/*
 * The inliers among points [from, to) of the pool. Built for AVX-512, AVX2 and plain x86-64 (or
 * the one target elsewhere); each lane does the scalar test's double arithmetic, so every build
 * counts the same.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static int64_t countRange(const PoolColumns *pool, int64_t from, int64_t to, double nx, double ny, double nz, double d, double distance, double minCosine) {
  int64_t count = 0;
  for (int64_t k = from; k < to; k++) {
    const double offset = nx * (double)pool->x[k] + ny * (double)pool->y[k] + nz * (double)pool->z[k] - d;
    const double cosine = nx * (double)pool->nx[k] + ny * (double)pool->ny[k] + nz * (double)pool->nz[k];
    count += !(fabs(offset) > distance) & (fabs(cosine) >= minCosine);
  }
  return count;
}

/* planes.ts inlierCount: a count no higher than toBeat once the points left cannot lift it above. */
static int64_t inlierCount(const PoolColumns *pool, const double *plane, double distance, double minCosine, int64_t toBeat) {
  const int64_t n = pool->n;
  int64_t count = 0;
  for (int64_t blockStart = 0; blockStart < n; blockStart += COUNT_BLOCK) {
    const int64_t blockEnd = blockStart + COUNT_BLOCK < n ? blockStart + COUNT_BLOCK : n;
    count += countRange(pool, blockStart, blockEnd, plane[0], plane[1], plane[2], plane[3], distance, minCosine);
    if (count + (n - blockEnd) <= toBeat) return count;
  }
  return count;
}

static napi_value bestHypothesis(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5) return throwError(env, "bestHypothesis: 5 arguments");
  void *positions, *normals, *hypotheses;
  size_t positionLength, normalLength, hypothesisLength;
  double distance, minCosine;
  if (!typedArg(env, argv[0], napi_float32_array, &positions, &positionLength) || positionLength % 3 != 0) return throwError(env, "bestHypothesis: the pool's positions, a Float32Array of 3 per point");
  if (!typedArg(env, argv[1], napi_float32_array, &normals, &normalLength) || normalLength != positionLength) return throwError(env, "bestHypothesis: the pool's normals, a Float32Array as long as its positions");
  if (!typedArg(env, argv[2], napi_float64_array, &hypotheses, &hypothesisLength) || hypothesisLength % 4 != 0) return throwError(env, "bestHypothesis: the hypotheses, a Float64Array of 4 per plane");
  if (napi_get_value_double(env, argv[3], &distance) != napi_ok || napi_get_value_double(env, argv[4], &minCosine) != napi_ok) return throwError(env, "bestHypothesis: inlierDistance and minNormalCosine, numbers");
  const int64_t n = (int64_t)(positionLength / 3);
  float *columns = malloc(6 * (size_t)(n > 0 ? n : 1) * sizeof(float));
  if (!columns) return throwError(env, "bestHypothesis: out of memory");
  const PoolColumns pool = { columns, columns + n, columns + 2 * n, columns + 3 * n, columns + 4 * n, columns + 5 * n, n };
  const float *p = positions, *q = normals;
  for (int64_t k = 0; k < n; k++) {
    pool.x[k] = p[3 * k], pool.y[k] = p[3 * k + 1], pool.z[k] = p[3 * k + 2];
    pool.nx[k] = q[3 * k], pool.ny[k] = q[3 * k + 1], pool.nz[k] = q[3 * k + 2];
  }
  const double *planes = hypotheses;
  int64_t best = -1, bestScore = 0;
  for (size_t h = 0; h < hypothesisLength / 4; h++) {
    if (isnan(planes[4 * h])) continue;
    const int64_t score = inlierCount(&pool, planes + 4 * h, distance, minCosine, bestScore);
    if (score > bestScore) {
      bestScore = score;
      best = (int64_t)h;
    }
  }
  free(columns);
  napi_value result;
  return napi_create_int64(env, best, &result) == napi_ok ? result : NULL;
}

/* The count argument: a whole number of points the arrays hold. */
static int countArg(napi_env env, napi_value value, size_t available, int64_t *count) {
  return napi_get_value_int64(env, value, count) == napi_ok && *count >= 0 && (size_t)*count <= available;
}

static napi_value inliersOf(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 8) return throwError(env, "inliersOf: 8 arguments");
  void *positions, *normals, *taken, *plane, *out;
  size_t positionLength, normalLength, takenLength, planeLength, outLength;
  int64_t count;
  double distance, minCosine;
  if (!typedArg(env, argv[0], napi_float32_array, &positions, &positionLength)) return throwError(env, "inliersOf: the positions, a Float32Array");
  if (!typedArg(env, argv[1], napi_float32_array, &normals, &normalLength)) return throwError(env, "inliersOf: the normals, a Float32Array");
  if (!typedArg(env, argv[2], napi_uint8_array, &taken, &takenLength)) return throwError(env, "inliersOf: taken, a Uint8Array");
  const size_t points = positionLength < normalLength ? positionLength / 3 : normalLength / 3;
  if (!countArg(env, argv[3], points < takenLength ? points : takenLength, &count)) return throwError(env, "inliersOf: count, at most the points the arrays hold");
  if (!typedArg(env, argv[4], napi_float64_array, &plane, &planeLength) || planeLength != 4) return throwError(env, "inliersOf: the plane, a Float64Array of 4");
  if (napi_get_value_double(env, argv[5], &distance) != napi_ok || napi_get_value_double(env, argv[6], &minCosine) != napi_ok) return throwError(env, "inliersOf: inlierDistance and minNormalCosine, numbers");
  if (!typedArg(env, argv[7], napi_uint32_array, &out, &outLength) || outLength < (size_t)count) return throwError(env, "inliersOf: out, a Uint32Array of at least count");
  const float *p = positions, *q = normals;
  const uint8_t *isTaken = taken;
  const double *eq = plane;
  const double nx = eq[0], ny = eq[1], nz = eq[2], d = eq[3];
  uint32_t *indices = out;
  int64_t found = 0;
  for (int64_t i = 0; i < count; i++) {
    indices[found] = (uint32_t)i;
    found += !isTaken[i] & isInlier(p + 3 * i, q + 3 * i, nx, ny, nz, d, distance, minCosine);
  }
  napi_value result;
  return napi_create_int64(env, found, &result) == napi_ok ? result : NULL;
}

static napi_value freeIndices(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3) return throwError(env, "freeIndices: 3 arguments");
  void *taken, *out;
  size_t takenLength, outLength;
  int64_t count;
  if (!typedArg(env, argv[0], napi_uint8_array, &taken, &takenLength)) return throwError(env, "freeIndices: taken, a Uint8Array");
  if (!countArg(env, argv[1], takenLength, &count)) return throwError(env, "freeIndices: count, at most taken's length");
  if (!typedArg(env, argv[2], napi_uint32_array, &out, &outLength) || outLength < (size_t)count) return throwError(env, "freeIndices: out, a Uint32Array of at least count");
  const uint8_t *isTaken = taken;
  uint32_t *indices = out;
  int64_t found = 0;
  for (int64_t i = 0; i < count; i++) {
    indices[found] = (uint32_t)i;
    found += !isTaken[i];
  }
  napi_value result;
  return napi_create_int64(env, found, &result) == napi_ok ? result : NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "bestHypothesis", NAPI_AUTO_LENGTH, bestHypothesis, NULL, &fn) != napi_ok || napi_set_named_property(env, exports, "bestHypothesis", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "inliersOf", NAPI_AUTO_LENGTH, inliersOf, NULL, &fn) != napi_ok || napi_set_named_property(env, exports, "inliersOf", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "freeIndices", NAPI_AUTO_LENGTH, freeIndices, NULL, &fn) != napi_ok || napi_set_named_property(env, exports, "freeIndices", fn) != napi_ok) return NULL;
  return exports;
}
