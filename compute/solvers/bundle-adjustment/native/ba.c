/*
 * Bundle adjustment's two passes over points and observations as a Node-API addon, to the
 * TypeScript's bits (schur.h and linearize.h say how): forming the reduced camera system and
 * linearising the observations are most of a small capture's SfM (a CPU profile of
 * synthetic/facade's: 7.4 and 7.3 of the main thread's 24.6 s), and V8 runs these short loops over
 * 2 × 9 and 3 × 6 blocks at a fraction of a compiled loop's speed. Built at `npm ci` by
 * scripts/build-native.mjs with -ffp-contract=off; plain C, any CPU.
 *
 *   eliminatePointsDense(pointFree: Uint8Array, pointObsStart, pointObs, obsCamera: Uint32Array,
 *                        poseBase, intrBase: Int32Array, intrinsicsGroup: Uint32Array,
 *                        w, v, gP, diagP, vinv, s, b: Float64Array,
 *                        entryOfBase, entryBase, entrySize: Int32Array, entryW, entryT: Float64Array,
 *                        mu, n, ni, p0, p1): boolean
 *     subtracts the Schur terms of points [p0, p1) from the upper triangle of s (n × n) and adds
 *     theirs to b, writing each point's (V + μ·diag)⁻¹ into vinv; false when a point's block is
 *     not positive definite (s and b are then partial, as in the TypeScript). The entry arrays
 *     are the caller's scratch (SchurWork); entryOfBase is all −1 before and after.
 *
 *   linearize(problem: [poses, points, intrinsics, obsXY, obsSigma | null: Float64Array,
 *                       obsCamera, obsPoint, intrinsicsGroup: Uint32Array],
 *             layout: [pointFree: Uint8Array, pointObsStart, pointObs: Uint32Array,
 *                      poseBase, intrBase, intrinsicColumns: Int32Array],
 *             normal: [jc, jp, res, w, upp, upi, uii, v, gR, gP, rotations, whitened: Float64Array],
 *             ni, loss (0 squared, 1 huber, 2 cauchy), scale, byPoints (boolean), from, to): number
 *     linearises points [from, to) observation by observation (byPoints), or observations
 *     [from, to), into the normal equations as linearize.ts does, and returns Σ‖r‖²; each
 *     observation's whitened squared norm goes to whitened[o] for the caller's ρ.
 */
#define NAPI_VERSION 8
#include <math.h>
#include <stdint.h>
#include <node_api.h>
#include "../../../util/native/napi-args.h"
#include "schur.h"
#include "linearize.h"

enum { ARG_COUNT = 24 };

static napi_value eliminatePointsDense(napi_env env, napi_callback_info info) {
  size_t argc = ARG_COUNT;
  napi_value argv[ARG_COUNT];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != ARG_COUNT) return throwError(env, "eliminatePointsDense: 24 arguments");
  Elimination e;
  void *data[19];
  size_t length[19];
  static const napi_typedarray_type types[19] = {
    napi_uint8_array, napi_uint32_array, napi_uint32_array, napi_uint32_array, napi_int32_array, napi_int32_array, napi_uint32_array,
    napi_float64_array, napi_float64_array, napi_float64_array, napi_float64_array, napi_float64_array, napi_float64_array, napi_float64_array,
    napi_int32_array, napi_int32_array, napi_int32_array, napi_float64_array, napi_float64_array,
  };
  for (int i = 0; i < 19; i++)
    if (!typedArg(env, argv[i], types[i], &data[i], &length[i])) return throwError(env, "eliminatePointsDense: an array of the wrong type");
  double mu;
  uint32_t n, ni, p0, p1;
  if (napi_get_value_double(env, argv[19], &mu) != napi_ok || napi_get_value_uint32(env, argv[20], &n) != napi_ok || napi_get_value_uint32(env, argv[21], &ni) != napi_ok ||
      napi_get_value_uint32(env, argv[22], &p0) != napi_ok || napi_get_value_uint32(env, argv[23], &p1) != napi_ok)
    return throwError(env, "eliminatePointsDense: mu, n, ni, p0, p1");
  e.pointFree = data[0]; e.pointObsStart = data[1]; e.pointObs = data[2]; e.obsCamera = data[3];
  e.poseBase = data[4]; e.intrBase = data[5]; e.intrinsicsGroup = data[6];
  e.w = data[7]; e.v = data[8]; e.gP = data[9]; e.diagP = data[10]; e.vinv = data[11]; e.s = data[12]; e.b = data[13];
  e.entryOfBase = data[14]; e.entryBase = data[15]; e.entrySize = data[16]; e.entryW = data[17]; e.entryT = data[18];
  e.mu = mu; e.n = n; e.ni = ni;
  /* Every index the loops follow, checked against the arrays it reads or writes: a bad one is a thrown error, never a stray write. */
  const size_t points = length[0];
  if (p1 > points || p0 > p1 || length[1] < points + 1 || ni > 6 || length[12] < (size_t)n * n || length[13] < n || length[14] < n ||
      length[8] < 9 * points || length[9] < 3 * points || length[10] < 3 * points || length[11] < 9 * points ||
      length[16] < length[15] || length[17] < 18 * length[15] || length[18] < 18 * length[15])
    return throwError(env, "eliminatePointsDense: array lengths disagree");
  const size_t cw3 = (size_t)(6 + ni) * 3;
  for (uint32_t p = p0; p < p1; p++) {
    if (!e.pointFree[p]) continue;
    for (uint32_t k = e.pointObsStart[p]; k < e.pointObsStart[p + 1]; k++) {
      const uint32_t o = k < length[2] ? e.pointObs[k] : UINT32_MAX;
      const uint32_t c = o < length[3] ? e.obsCamera[o] : UINT32_MAX;
      if (c >= length[4] || c >= length[6] || e.intrinsicsGroup[c] >= length[5] || ((size_t)o + 1) * cw3 > length[7]) return throwError(env, "eliminatePointsDense: an observation is out of range");
      const int32_t pb = e.poseBase[c], ib = e.intrBase[e.intrinsicsGroup[c]];
      if ((pb >= 0 && (size_t)pb + 6 > n) || (ib >= 0 && (size_t)ib + ni > n)) return throwError(env, "eliminatePointsDense: a block is past the reduced system");
    }
  }
  int ok = 1;
  for (uint32_t p = p0; p < p1 && ok; p++) {
    if (!e.pointFree[p]) continue;
    /* Every entry of a point holds at most 18 values: the scratch is sized for twice its observations (allocateSchur). */
    if (2 * (size_t)(e.pointObsStart[p + 1] - e.pointObsStart[p]) > length[15]) return throwError(env, "eliminatePointsDense: entry scratch too small");
    const int32_t entries = eliminatePoint(&e, p);
    if (entries < 0) ok = 0;
    else subtractPointDense(&e, entries);
  }
  napi_value result;
  napi_get_boolean(env, ok, &result);
  return result;
}

/* Element i of the JS array `list` as a typed array of `type` (null allowed when `nullable`: data NULL). */
static int listArg(napi_env env, napi_value list, uint32_t i, napi_typedarray_type type, int nullable, void **data, size_t *length) {
  napi_value item;
  if (napi_get_element(env, list, i, &item) != napi_ok) return 0;
  napi_valuetype kind;
  if (nullable && napi_typeof(env, item, &kind) == napi_ok && kind == napi_null) {
    *data = NULL;
    *length = 0;
    return 1;
  }
  return typedArg(env, item, type, data, length);
}

static napi_value linearize(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 9) return throwError(env, "linearize: 9 arguments");
  Linearization L;
  void *d[26];
  size_t n[26];
  static const napi_typedarray_type problemTypes[8] = { napi_float64_array, napi_float64_array, napi_float64_array, napi_float64_array, napi_float64_array, napi_uint32_array, napi_uint32_array, napi_uint32_array };
  static const napi_typedarray_type layoutTypes[6] = { napi_uint8_array, napi_uint32_array, napi_uint32_array, napi_int32_array, napi_int32_array, napi_int32_array };
  for (uint32_t i = 0; i < 8; i++)
    if (!listArg(env, argv[0], i, problemTypes[i], i == 4, &d[i], &n[i])) return throwError(env, "linearize: the problem's arrays");
  for (uint32_t i = 0; i < 6; i++)
    if (!listArg(env, argv[1], i, layoutTypes[i], 0, &d[8 + i], &n[8 + i])) return throwError(env, "linearize: the layout's arrays");
  for (uint32_t i = 0; i < 12; i++)
    if (!listArg(env, argv[2], i, napi_float64_array, 0, &d[14 + i], &n[14 + i])) return throwError(env, "linearize: the normal equations' arrays");
  uint32_t ni, loss, from, to;
  double scale;
  bool byPoints;
  if (napi_get_value_uint32(env, argv[3], &ni) != napi_ok || napi_get_value_uint32(env, argv[4], &loss) != napi_ok || napi_get_value_double(env, argv[5], &scale) != napi_ok ||
      napi_get_value_bool(env, argv[6], &byPoints) != napi_ok || napi_get_value_uint32(env, argv[7], &from) != napi_ok || napi_get_value_uint32(env, argv[8], &to) != napi_ok)
    return throwError(env, "linearize: ni, loss, scale, byPoints, from, to");
  L.poses = d[0]; L.points = d[1]; L.intrinsics = d[2]; L.obsXY = d[3]; L.obsSigma = d[4];
  L.obsCamera = d[5]; L.obsPoint = d[6]; L.intrinsicsGroup = d[7];
  L.pointFree = d[8]; L.pointObsStart = d[9]; L.pointObs = d[10]; L.poseBase = d[11]; L.intrBase = d[12]; L.intrinsicColumns = d[13];
  L.jc = d[14]; L.jp = d[15]; L.res = d[16]; L.w = d[17]; L.upp = d[18]; L.upi = d[19]; L.uii = d[20]; L.v = d[21]; L.gR = d[22]; L.gP = d[23];
  L.rotations = d[24]; L.whitened = d[25];
  L.ni = ni; L.loss = (int)loss; L.scale = scale;
  /* Every index the loops follow, checked against the arrays it reads or writes: a bad one is a thrown error, never a stray write. */
  const size_t cameras = n[0] / 6, points = n[1] / 3, groups = n[2] / 5, observations = n[5], cw = 6 + (size_t)ni;
  const char *bad = NULL;
  if (ni > 5 || loss > 2 || n[6] != observations || n[3] < 2 * observations || (L.obsSigma && n[4] < observations) || n[7] < cameras || n[24] < 9 * cameras ||
      n[8] < points || n[9] < points + 1 || n[11] < cameras || n[12] < groups || n[13] < ni || n[14] < observations * 2 * cw || n[15] < observations * 6 ||
      n[16] < observations * 2 || n[17] < observations * cw * 3 || n[18] < cameras * 36 || n[19] < cameras * 30 || n[20] < groups * 25 || n[21] < points * 9 ||
      n[23] < points * 3 || n[25] < observations || to < from || to > (byPoints ? points : observations))
    bad = "linearize: array lengths disagree";
  for (size_t o = 0; !bad && o < observations; o++)
    if (L.obsCamera[o] >= cameras || L.obsPoint[o] >= points) bad = "linearize: an observation's camera or point is out of range";
  for (size_t c = 0; !bad && c < cameras; c++) {
    if (L.intrinsicsGroup[c] >= groups) bad = "linearize: a camera's intrinsics group is out of range";
    else if (L.poseBase[c] >= 0 && (size_t)L.poseBase[c] + 6 > n[22]) bad = "linearize: a pose block is past the gradient";
  }
  for (size_t g = 0; !bad && g < groups; g++)
    if (L.intrBase[g] >= 0 && (size_t)L.intrBase[g] + ni > n[22]) bad = "linearize: an intrinsics block is past the gradient";
  for (uint32_t k = 0; !bad && k < ni; k++)
    if (L.intrinsicColumns[k] < 0 || L.intrinsicColumns[k] > 4) bad = "linearize: an intrinsics column is out of range";
  if (!bad && byPoints) {
    for (uint32_t p = from; !bad && p < to; p++)
      for (uint32_t k = L.pointObsStart[p]; !bad && k < L.pointObsStart[p + 1]; k++)
        if (k >= n[10] || L.pointObs[k] >= observations) bad = "linearize: a point's observation is out of range";
  }
  if (bad) return throwError(env, bad);
  double scratch[JAC_SIZE];
  const double sumSquares = byPoints ? ba_linearize_points(&L, from, to, scratch) : ba_linearize_observations(&L, from, to, scratch);
  napi_value result;
  napi_create_double(env, sumSquares, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "eliminatePointsDense", NAPI_AUTO_LENGTH, eliminatePointsDense, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "eliminatePointsDense", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "linearize", NAPI_AUTO_LENGTH, linearize, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "linearize", fn) != napi_ok) return NULL;
  return exports;
}
