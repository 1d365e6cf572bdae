/*
 * The dense stage's geometric filter and fusion as a Node-API addon, to the TypeScript's bits
 * (filter.h and fusion.h say how). It exists because both run on the stage's calling thread alone
 * after every PatchMatch is done (0.77 s and 0.35 s of Herz-Jesus-P8's filtering and fusion in CPU
 * profiles, one core otherwise left to the next stages' threads starting). Built at `npm ci` by
 * scripts/build-native.mjs with -ffp-contract=off; plain C, any CPU.
 *
 *   fuse(depths: Float32Array[], normals: Float32Array[], rgbs: Uint8Array[], cameras: Float64Array,
 *        maxRelativeDepthError, cosMax, maxPx, minFusedViews, seedMaps, yieldTo: Uint8Array | null)
 *     → [positions: Float32Array, normals: Float32Array, colors: Uint8Array]
 *
 * Map m's size is its camera's (cameras[17m + 15], [17m + 16]); its depth holds one value per
 * pixel, its normal and rgb three.
 *
 *   geometricFilter(refDepth: Float32Array, width, height, focal, cx, cy, sourceDepths: Float32Array[],
 *                   sources: Float64Array, maxErr2, maxRel, minConsistentViews, priorConsistentViews,
 *                   onPrior: Uint8Array | null) → Float32Array
 *
 * Source j's camera is sources[17j .. 17j + 17): srcFromRef R (9), t (3), focal, cx, cy, width, height.
 */
#define NAPI_VERSION 8
#include <stdlib.h>
#include <string.h>
#include <node_api.h>
#include "../../../util/native/napi-args.h"
#include "filter.h"
#include "fusion.h"

/* The i-th element of the JavaScript array `list` as a typed array of `type`. */
static int elementArg(napi_env env, napi_value list, uint32_t i, napi_typedarray_type type, void **data, size_t *length) {
  napi_value element;
  return napi_get_element(env, list, i, &element) == napi_ok && typedArg(env, element, type, data, length);
}

/* A new typed array of `type` holding a copy of `bytes` bytes of `source`. */
static napi_value copiedArray(napi_env env, napi_typedarray_type type, const void *source, size_t bytes, size_t length) {
  void *data;
  napi_value buffer, array;
  if (napi_create_arraybuffer(env, bytes, &data, &buffer) != napi_ok) return NULL;
  if (bytes > 0) memcpy(data, source, bytes);
  if (napi_create_typedarray(env, type, length, buffer, 0, &array) != napi_ok) return NULL;
  return array;
}

static napi_value fuse(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 10) return throwError(env, "fuse: 10 arguments");
  uint32_t count, normalCount, rgbCount;
  if (napi_get_array_length(env, argv[0], &count) != napi_ok || napi_get_array_length(env, argv[1], &normalCount) != napi_ok ||
      napi_get_array_length(env, argv[2], &rgbCount) != napi_ok || normalCount != count || rgbCount != count)
    return throwError(env, "fuse: as many depths, normals and rgbs (arrays)");
  void *cameras;
  size_t cameraCount;
  if (!typedArg(env, argv[3], napi_float64_array, &cameras, &cameraCount) || cameraCount < (size_t)FU_CAMERA * count) return throwError(env, "fuse: cameras, a Float64Array of 17 per map");
  FuOptions options;
  if (napi_get_value_double(env, argv[4], &options.maxRelativeDepthError) != napi_ok || napi_get_value_double(env, argv[5], &options.cosMax) != napi_ok ||
      napi_get_value_double(env, argv[6], &options.maxPx) != napi_ok || napi_get_value_int32(env, argv[7], &options.minFusedViews) != napi_ok ||
      napi_get_value_int32(env, argv[8], &options.seedMaps) != napi_ok)
    return throwError(env, "fuse: maxRelativeDepthError, cosMax, maxPx, minFusedViews, seedMaps");
  options.yieldTo = NULL;
  napi_valuetype yieldType;
  if (napi_typeof(env, argv[9], &yieldType) != napi_ok) return throwError(env, "fuse: yieldTo");
  if (yieldType != napi_null && yieldType != napi_undefined) {
    void *yieldTo;
    size_t yieldCount;
    if (!typedArg(env, argv[9], napi_uint8_array, &yieldTo, &yieldCount) || yieldCount < count) return throwError(env, "fuse: yieldTo, a Uint8Array of one per map, or null");
    options.yieldTo = yieldTo;
  }
  FuMap *maps = calloc(count > 0 ? count : 1, sizeof(FuMap));
  if (!maps) return throwError(env, "fuse: out of memory");
  napi_value result = NULL;
  const char *failure = NULL;
  for (uint32_t m = 0; m < count && !failure; m++) {
    const double *camera = (const double *)cameras + FU_CAMERA * m;
    const double width = camera[15], height = camera[16];
    if (!(width >= 1 && height >= 1 && width <= 1 << 20 && height <= 1 << 20 && width == floor(width) && height == floor(height))) {
      failure = "fuse: a camera's width and height, whole numbers from 1";
      break;
    }
    FuMap *map = &maps[m];
    map->width = (int64_t)width;
    map->height = (int64_t)height;
    const size_t pixels = (size_t)(map->width * map->height);
    void *depth, *normal, *rgb;
    size_t depthLength, normalLength, rgbLength;
    if (!elementArg(env, argv[0], m, napi_float32_array, &depth, &depthLength) || !elementArg(env, argv[1], m, napi_float32_array, &normal, &normalLength) ||
        !elementArg(env, argv[2], m, napi_uint8_array, &rgb, &rgbLength))
      failure = "fuse: a map's depth, normal (Float32Arrays) and rgb (Uint8Array)";
    else if (depthLength != pixels || normalLength < 3 * pixels || rgbLength < 3 * pixels)
      failure = "fuse: a map's arrays are not its camera's size";
    else if (!(map->used = calloc(pixels, 1)))
      failure = "fuse: out of memory";
    else {
      map->depth = depth;
      map->normal = normal;
      map->rgb = rgb;
    }
  }
  FuCloud cloud = { NULL, NULL, NULL, 0, 0 };
  if (!failure && !fu_fuse(maps, (int32_t)count, cameras, &options, &cloud)) failure = "fuse: out of memory";
  if (!failure) {
    napi_value positions = copiedArray(env, napi_float32_array, cloud.positions, 3 * cloud.count * sizeof(float), 3 * cloud.count);
    napi_value normals = positions ? copiedArray(env, napi_float32_array, cloud.normals, 3 * cloud.count * sizeof(float), 3 * cloud.count) : NULL;
    napi_value colors = normals ? copiedArray(env, napi_uint8_array, cloud.colors, 3 * cloud.count, 3 * cloud.count) : NULL;
    if (!colors || napi_create_array_with_length(env, 3, &result) != napi_ok || napi_set_element(env, result, 0, positions) != napi_ok ||
        napi_set_element(env, result, 1, normals) != napi_ok || napi_set_element(env, result, 2, colors) != napi_ok) {
      result = NULL;
      failure = "fuse: could not make the cloud's arrays";
    }
  }
  free(cloud.positions);
  free(cloud.normals);
  free(cloud.colors);
  for (uint32_t m = 0; m < count; m++) free(maps[m].used);
  free(maps);
  return failure ? throwError(env, failure) : result;
}

static napi_value geometricFilter(napi_env env, napi_callback_info info) {
  size_t argc = 13;
  napi_value argv[13];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 13) return throwError(env, "geometricFilter: 13 arguments");
  void *refDepth, *sourceCameras;
  size_t refLength, cameraCount;
  if (!typedArg(env, argv[0], napi_float32_array, &refDepth, &refLength)) return throwError(env, "geometricFilter: the reference depth, a Float32Array");
  int32_t width, height;
  GfOptions options;
  if (napi_get_value_int32(env, argv[1], &width) != napi_ok || napi_get_value_int32(env, argv[2], &height) != napi_ok || width < 1 || height < 1 || (size_t)width * (size_t)height != refLength)
    return throwError(env, "geometricFilter: the reference's width and height, its depth's size");
  options.width = width;
  options.height = height;
  if (napi_get_value_double(env, argv[3], &options.focal) != napi_ok || napi_get_value_double(env, argv[4], &options.cx) != napi_ok ||
      napi_get_value_double(env, argv[5], &options.cy) != napi_ok || napi_get_value_double(env, argv[8], &options.maxErr2) != napi_ok ||
      napi_get_value_double(env, argv[9], &options.maxRel) != napi_ok || napi_get_value_int32(env, argv[10], &options.minConsistentViews) != napi_ok ||
      napi_get_value_int32(env, argv[11], &options.priorConsistentViews) != napi_ok)
    return throwError(env, "geometricFilter: focal, cx, cy, maxErr2, maxRel, minConsistentViews, priorConsistentViews");
  uint32_t sourceCount;
  if (napi_get_array_length(env, argv[6], &sourceCount) != napi_ok || sourceCount > 4096) return throwError(env, "geometricFilter: the sources' depths, an array");
  if (!typedArg(env, argv[7], napi_float64_array, &sourceCameras, &cameraCount) || cameraCount < (size_t)GF_SOURCE * sourceCount) return throwError(env, "geometricFilter: the sources' cameras, a Float64Array of 17 per source");
  options.onPrior = NULL;
  napi_valuetype priorType;
  if (napi_typeof(env, argv[12], &priorType) != napi_ok) return throwError(env, "geometricFilter: onPrior");
  if (priorType != napi_null && priorType != napi_undefined) {
    void *onPrior;
    size_t priorLength;
    if (!typedArg(env, argv[12], napi_uint8_array, &onPrior, &priorLength) || priorLength < refLength) return throwError(env, "geometricFilter: onPrior, a Uint8Array of one per pixel, or null");
    options.onPrior = onPrior;
  }
  GfSource *sources = calloc(sourceCount > 0 ? sourceCount : 1, sizeof(GfSource));
  if (!sources) return throwError(env, "geometricFilter: out of memory");
  for (uint32_t j = 0; j < sourceCount; j++) {
    const double *camera = (const double *)sourceCameras + GF_SOURCE * j;
    const double w = camera[15], h = camera[16];
    void *depth;
    size_t depthLength;
    if (!(w >= 1 && h >= 1 && w <= 1 << 20 && h <= 1 << 20 && w == floor(w) && h == floor(h)) || !elementArg(env, argv[6], j, napi_float32_array, &depth, &depthLength) ||
        depthLength != (size_t)w * (size_t)h) {
      free(sources);
      return throwError(env, "geometricFilter: a source's depth (a Float32Array) is not its camera's size");
    }
    sources[j] = (GfSource){ depth, camera, (int64_t)w, (int64_t)h };
  }
  void *outData;
  napi_value outBuffer, out;
  if (napi_create_arraybuffer(env, refLength * sizeof(float), &outData, &outBuffer) != napi_ok || napi_create_typedarray(env, napi_float32_array, refLength, outBuffer, 0, &out) != napi_ok) {
    free(sources);
    return throwError(env, "geometricFilter: could not make the filtered depth");
  }
  memset(outData, 0, refLength * sizeof(float));
  gf_filter(refDepth, sources, (int32_t)sourceCount, &options, outData);
  free(sources);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "fuse", NAPI_AUTO_LENGTH, fuse, NULL, &fn) != napi_ok || napi_set_named_property(env, exports, "fuse", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "geometricFilter", NAPI_AUTO_LENGTH, geometricFilter, NULL, &fn) != napi_ok || napi_set_named_property(env, exports, "geometricFilter", fn) != napi_ok) return NULL;
  return exports;
}
