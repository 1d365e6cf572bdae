/*
 * The keypoints stage's patch alignment as a Node-API addon, to the TypeScript's bits (align.h
 * says how). It exists because aligning the observations is nine tenths of the stage (a CPU
 * profile of synthetic/facade's keypoints: 4.8 and 5.1 s of its two workers' 5.2 and 5.5) and V8
 * runs its loops of 6 × 6 sums well below a compiled loop's speed. Built at `npm ci` by
 * scripts/build-native.mjs with -ffp-contract=off; plain C, any CPU.
 *
 *   alignObservations(levels: Array<[data, gx, gy: Float32Array]>, widths, heights: Int32Array,
 *                     xy: Float32Array, tracks: Uint32Array, spacing: Float64Array,
 *                     levelOf: Int32Array, warps: Float64Array, patches, offsets: Float32Array,
 *                     maxIterations, minZncc, maxShiftLevelPx, outcome: Uint8Array): undefined
 *
 * aligns observation o (at xy[2o], xy[2o+1], on pyramid level levelOf[o]) to its track's patch
 * in `patches`, refining warps[6o..6o+6) in place, and writes its outcome code (align.h).
 */
#define NAPI_VERSION 8
#include <stdlib.h>
#include <node_api.h>
#include "../../../util/native/napi-args.h"
#include "align.h"

enum { MAX_LEVELS = 16 };

static napi_value alignObservations(napi_env env, napi_callback_info info) {
  size_t argc = 14;
  napi_value argv[14];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 14) return throwError(env, "alignObservations: 14 arguments");
  uint32_t levelCount;
  if (napi_get_array_length(env, argv[0], &levelCount) != napi_ok || levelCount == 0 || levelCount > MAX_LEVELS) return throwError(env, "alignObservations: levels, 1 to 16");
  void *widths, *heights, *xy, *tracks, *spacing, *levelOf, *warps, *patches, *offsets, *outcome;
  size_t widthCount, heightCount, xyCount, trackCount, spacingCount, levelOfCount, warpCount, patchCount, offsetCount, outcomeCount;
  if (!typedArg(env, argv[1], napi_int32_array, &widths, &widthCount) || !typedArg(env, argv[2], napi_int32_array, &heights, &heightCount) ||
      !typedArg(env, argv[3], napi_float32_array, &xy, &xyCount) || !typedArg(env, argv[4], napi_uint32_array, &tracks, &trackCount) ||
      !typedArg(env, argv[5], napi_float64_array, &spacing, &spacingCount) || !typedArg(env, argv[6], napi_int32_array, &levelOf, &levelOfCount) ||
      !typedArg(env, argv[7], napi_float64_array, &warps, &warpCount) || !typedArg(env, argv[8], napi_float32_array, &patches, &patchCount) ||
      !typedArg(env, argv[9], napi_float32_array, &offsets, &offsetCount) || !typedArg(env, argv[13], napi_uint8_array, &outcome, &outcomeCount))
    return throwError(env, "alignObservations: an array of the wrong type");
  int32_t maxIterations;
  double minZncc, maxShiftLevelPx;
  if (napi_get_value_int32(env, argv[10], &maxIterations) != napi_ok || napi_get_value_double(env, argv[11], &minZncc) != napi_ok ||
      napi_get_value_double(env, argv[12], &maxShiftLevelPx) != napi_ok)
    return throwError(env, "alignObservations: maxIterations, minZncc, maxShiftLevelPx");
  KpLevel levels[MAX_LEVELS];
  for (uint32_t l = 0; l < levelCount; l++) {
    napi_value level;
    if (napi_get_element(env, argv[0], l, &level) != napi_ok) return throwError(env, "alignObservations: a level");
    void *planes[3];
    size_t lengths[3];
    for (uint32_t k = 0; k < 3; k++) {
      napi_value plane;
      if (napi_get_element(env, level, k, &plane) != napi_ok || !typedArg(env, plane, napi_float32_array, &planes[k], &lengths[k]))
        return throwError(env, "alignObservations: a level's data, gx and gy (Float32Arrays)");
    }
    if (l >= widthCount || l >= heightCount) return throwError(env, "alignObservations: a level's size");
    const int32_t w = ((int32_t *)widths)[l], h = ((int32_t *)heights)[l];
    if (w < 2 || h < 2 || lengths[0] < (size_t)w * h || lengths[1] < (size_t)w * h || lengths[2] < (size_t)w * h) return throwError(env, "alignObservations: a level is smaller than its size");
    levels[l] = (KpLevel){ planes[0], planes[1], planes[2], w, h };
  }
  const size_t count = trackCount;
  const int32_t n = (int32_t)(offsetCount / 2);
  if (n == 0 || xyCount < 2 * count || spacingCount < count || levelOfCount < count || warpCount < 6 * count || outcomeCount < count) return throwError(env, "alignObservations: array lengths disagree");
  const uint32_t *trackOf = tracks;
  const int32_t *levelAt = levelOf;
  for (size_t o = 0; o < count; o++)
    if ((size_t)(trackOf[o] + 1) * (size_t)n > patchCount || levelAt[o] < 0 || (uint32_t)levelAt[o] >= levelCount) return throwError(env, "alignObservations: an observation's track or level is out of range");
  float *scratch = malloc(3 * (size_t)n * sizeof(float));
  if (!scratch) return throwError(env, "alignObservations: out of memory");
  const KpOptions options = { maxIterations, minZncc, maxShiftLevelPx };
  const float *positions = xy;
  for (size_t o = 0; o < count; o++) {
    const int32_t level = levelAt[o];
    ((uint8_t *)outcome)[o] = (uint8_t)kp_align_patch(&levels[level], level, positions[2 * o], positions[2 * o + 1], (const float *)patches + (size_t)trackOf[o] * n,
                                                      ((double *)spacing)[o], offsets, n, (double *)warps + 6 * o, &options, scratch, scratch + n, scratch + 2 * n);
  }
  free(scratch);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "alignObservations", NAPI_AUTO_LENGTH, alignObservations, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "alignObservations", fn) != napi_ok) return NULL;
  return exports;
}
