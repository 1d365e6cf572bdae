/*
 * The texture scan's and the vertex colouring's z-buffer (../mesh-raster.ts rasterizeDepth) as a
 * Node-API addon, to the TypeScript's bits (raster.h says why). It exists because the TypeScript
 * takes twice the time of the same code built by a C compiler (`npm run bench -- kernels`, its
 * fourth part; docs/decisions.md, "The z-buffer scans each row's span of a face").
 *
 *   rasterizeDepth(indices: Uint32Array, px, py, depth: Float32Array, width, height,
 *                  zbuf: Float32Array): boolean
 *
 * fills zbuf (width × height) and returns true, or returns false when a face's corner is not
 * finite (the caller then rasterises in TypeScript). Built at `npm ci` by scripts/build-native.mjs
 * with -ffp-contract=off; plain C, on any CPU.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include "../../util/native/napi-args.h"
#include "raster.h"

static napi_value rasterizeDepth(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 7) return throwError(env, "rasterizeDepth(indices, px, py, depth, width, height, zbuf)");
  void *indices, *px, *py, *depth, *zbuf;
  size_t indexCount, pxCount, pyCount, depthCount, zbufCount;
  uint32_t width, height;
  if (!typedArg(env, argv[0], napi_uint32_array, &indices, &indexCount) || !typedArg(env, argv[1], napi_float32_array, &px, &pxCount) ||
      !typedArg(env, argv[2], napi_float32_array, &py, &pyCount) || !typedArg(env, argv[3], napi_float32_array, &depth, &depthCount) ||
      !typedArg(env, argv[6], napi_float32_array, &zbuf, &zbufCount))
    return throwError(env, "rasterizeDepth: indices a Uint32Array; px, py, depth and zbuf Float32Arrays");
  if (napi_get_value_uint32(env, argv[4], &width) != napi_ok || napi_get_value_uint32(env, argv[5], &height) != napi_ok) return throwError(env, "rasterizeDepth: width and height");
  if (pyCount != pxCount || depthCount != pxCount || indexCount % 3 != 0 || zbufCount != (size_t)width * height) return throwError(env, "rasterizeDepth: array lengths disagree");
  const uint32_t *faces = indices;
  for (size_t i = 0; i < indexCount; i++)
    if (faces[i] >= pxCount) return throwError(env, "rasterizeDepth: a face's vertex is past the projection");
  const int unfinished = rz_rasterize(zbuf, width, height, px, py, depth, faces, indexCount / 3);
  napi_value result;
  napi_get_boolean(env, !unfinished, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "rasterizeDepth", NAPI_AUTO_LENGTH, rasterizeDepth, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "rasterizeDepth", fn) != napi_ok) return NULL;
  return exports;
}
