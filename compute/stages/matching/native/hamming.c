/*
 * The matching stage's exhaustive descriptor search as a Node-API addon: nearest and
 * second-nearest neighbours both ways between two sets of 64-byte binary descriptors, with
 * the bookkeeping of ../wasm/hamming.ts (rows in order; a column's best taken by the first row
 * that reaches it), so that its outputs equal the WebAssembly kernel's to the bit
 * (test/compute/matching/native-hamming.test.ts). It exists because WebAssembly has no wide
 * popcount: on a CPU with AVX-512 VPOPCNTDQ one 512-bit XOR and VPOPCNTQ make a distance, about
 * 3× the wasm kernel's speed (`npm run bench -- kernels --only=hamming`; docs/decisions.md,
 * "Matching's descriptor search runs native where the CPU has AVX-512").
 *
 * Built at `npm ci` by scripts/build-native.mjs (cc -O3, no -march: each search carries its own
 * target attribute and is chosen at load by the CPU's features). Without a C compiler there is no
 * addon and kernel.ts keeps the wasm kernel.
 *
 * nearestNeighbours(a: Uint32Array, countA, b: Uint32Array, countB, outA: Uint32Array,
 *                   bestB: Uint32Array, secondB: Uint32Array, argB: Int32Array)
 *   a, b: 16 words (64 bytes) per row; outA: (best, second, nearest B) per A row; bestB,
 *   secondB, argB: per B row, filled here. `search` names the build chosen.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include "search.h"

static Search chosen = searchPortable;
static const char *chosenName = "portable";

static void choose(void) {
#ifdef __x86_64__
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq")) {
    chosen = searchAvx512;
    chosenName = "avx512";
  } else if (__builtin_cpu_supports("popcnt")) {
    chosen = searchPopcnt;
    chosenName = "popcnt";
  }
#endif
}

/* A typed array argument's data and element count, or a thrown TypeError. */
static int typedArray(napi_env env, napi_value value, napi_typedarray_type want, void **data, size_t *length) {
  bool is = false;
  napi_typedarray_type type;
  if (napi_is_typedarray(env, value, &is) != napi_ok || !is || napi_get_typedarray_info(env, value, &type, length, data, NULL, NULL) != napi_ok || type != want) {
    napi_throw_type_error(env, NULL, "hamming: expected a Uint32Array or Int32Array of the documented kind");
    return 0;
  }
  return 1;
}

static int count(napi_env env, napi_value value, int *out) {
  int32_t n = 0;
  if (napi_get_value_int32(env, value, &n) != napi_ok || n < 0) {
    napi_throw_type_error(env, NULL, "hamming: counts are whole numbers from 0");
    return 0;
  }
  *out = n;
  return 1;
}

static napi_value nearestNeighbours(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 8) {
    napi_throw_type_error(env, NULL, "hamming: nearestNeighbours takes 8 arguments");
    return NULL;
  }
  void *a, *b, *outA, *bestB, *secondB, *argB;
  size_t lengthA, lengthB, lengthOut, lengthBest, lengthSecond, lengthArg;
  int countA, countB;
  if (!typedArray(env, argv[0], napi_uint32_array, &a, &lengthA) || !count(env, argv[1], &countA) || !typedArray(env, argv[2], napi_uint32_array, &b, &lengthB) ||
      !count(env, argv[3], &countB) || !typedArray(env, argv[4], napi_uint32_array, &outA, &lengthOut) || !typedArray(env, argv[5], napi_uint32_array, &bestB, &lengthBest) ||
      !typedArray(env, argv[6], napi_uint32_array, &secondB, &lengthSecond) || !typedArray(env, argv[7], napi_int32_array, &argB, &lengthArg))
    return NULL;
  if (lengthA < 16 * (size_t)countA || lengthB < 16 * (size_t)countB || lengthOut < 3 * (size_t)countA || lengthBest < (size_t)countB || lengthSecond < (size_t)countB || lengthArg < (size_t)countB) {
    napi_throw_range_error(env, NULL, "hamming: an array is shorter than its count needs");
    return NULL;
  }
  Result r = {outA, bestB, secondB, argB};
  chosen(a, countA, b, countB, &r);
  return NULL;
}

NAPI_MODULE_INIT() {
  choose();
  napi_value fn, name;
  if (napi_create_function(env, "nearestNeighbours", NAPI_AUTO_LENGTH, nearestNeighbours, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "nearestNeighbours", fn) != napi_ok) return NULL;
  if (napi_create_string_utf8(env, chosenName, NAPI_AUTO_LENGTH, &name) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "search", name) != napi_ok) return NULL;
  return exports;
}
