/*
 * The dense stage's plane cost (../wasm/ncc.ts planeCost) as a Node-API addon, run on the wasm
 * kernel's own memory with AVX-512, or AVX2 on a CPU without it, and to its bits (plane-cost.h says
 * how). It exists because WebAssembly has no gather and no vectors wider than 128 bits, and the
 * bilinear fetch bounds the cost:
 * `npm run bench -- kernels` (docs/decisions.md, "The photometric cost runs near the machine's
 * speed; a faster dense scores fewer planes").
 *
 * A call must cost little beside a hypothesis's ~0.6 µs, and a Node-API call with a dozen number
 * arguments costs ~110 ns here against ~12 ns with none, so the arguments travel through the
 * memory: bind(memory, params) names the wasm kernel's ArrayBuffer and the byte address of a
 * parameter block in it, and planeCost() reads the block and writes its result there.
 *
 *   params (byte address, 8-aligned): f64 px, py, m0, m1, m2, result;
 *                                     then i32 table, sources, win, n, bestK, scratch;
 *   params + 72 (buildWindow's):      f64 colourScale, variance (out);
 *                                     then i32 col, row, grey, width, height, spatial, samples,
 *                                     win, n, table, reach, status (out);
 *   params + 136 (layQuads'):         i32 grey, quads, width, height;
 *   params + 152 (the planes'):       i32 col, row, count, since, sweep, then 3 unused;
 *                                     then f64 d, nx, ny, nz of up to 4 hypotheses.
 *
 * buildWindow() builds PatchMatch's reference window in place (bilateral-window.h); layQuads()
 * lays a source out as planeCost reads it (plane-cost.h), per pixel its four bilinear corners.
 * bindPlanes(...) names one PatchMatch level's planes (typed arrays outside the memory);
 * propagatePlanes() and tryPlanes() then update a pixel's plane as patchmatch-state.ts does
 * (planes.h), and planesEvaluated() counts the hypotheses they scored.
 *
 * The binding is per thread (each worker thread has its own kernels). planeCost, layQuads and the
 * planes' updates are exported on a CPU with AVX-512F and DQ or with AVX2; isa() names the width
 * they run at on this thread, and useIsa("avx2") narrows it (the tests and the kernels bench hold
 * both to the wasm kernel's bits on one machine). buildWindow runs with AVX-512 VL or with AVX2 (to
 * the same bits). Where they are absent the stage keeps the wasm kernel and its TypeScript window.
 * The environment variable DENSE_NATIVE_ISA (avx2 or wasm) caps them for the whole process, so
 * that one machine measures what a narrower CPU runs (docs/decisions.md, "The plane cost runs
 * native with AVX2 too").
 * Built at `npm ci` by scripts/build-native.mjs with -ffp-contract=off.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __x86_64__
#include "bilateral-window.h"
#include "plane-cost.h"
#include "planes.h"
#endif

static _Thread_local uint8_t *boundMemory;
static _Thread_local size_t boundBytes;
static _Thread_local uint32_t boundParams;

#ifdef __x86_64__
/* The plane cost of the CPU's widest vectors (NULL: neither AVX-512 nor AVX2), and this thread's choice (NULL: that one). */
static pc_plane_cost_fn widestCost;
static const char *widestIsa;
static _Thread_local pc_plane_cost_fn chosenCost;
static _Thread_local const char *chosenIsa;
/* Whether buildWindow runs with AVX-512 VL (not narrowed), or with AVX2. */
static int wideWindow;
static _Thread_local int narrowWindow;

static pc_plane_cost_fn currentCost(void) { return chosenCost ? chosenCost : widestCost; }
#endif

#define PARAM_BYTES (PLANES_BLOCK + 8 * 4 + 16 * 8)
/* Where buildWindow's, layQuads' and the planes' blocks start in the parameter block. */
#define WINDOW_BLOCK 72
#define QUADS_BLOCK (WINDOW_BLOCK + 2 * 8 + 12 * 4)
#define PLANES_BLOCK (QUADS_BLOCK + 4 * 4)

static napi_value throwError(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

/* bind(memory: ArrayBuffer, params: number): the memory the next calls read, and where their block is. */
static napi_value bind(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) return throwError(env, "bind(memory, params)");
  bool isBuffer = false;
  if (napi_is_arraybuffer(env, argv[0], &isBuffer) != napi_ok || !isBuffer) return throwError(env, "bind: memory must be an ArrayBuffer");
  void *data = NULL;
  size_t bytes = 0;
  uint32_t params = 0;
  if (napi_get_arraybuffer_info(env, argv[0], &data, &bytes) != napi_ok) return throwError(env, "bind: unreadable memory");
  if (napi_get_value_uint32(env, argv[1], &params) != napi_ok || params % 8 != 0 || (size_t)params + PARAM_BYTES > bytes) return throwError(env, "bind: params outside the memory");
  boundMemory = data;
  boundBytes = bytes;
  boundParams = params;
  return NULL;
}

#ifdef __x86_64__
/*
 * Whether the pixels `cost` reads of the source at `entry` lie in the bound memory: the image
 * (AVX2) or its quads (AVX-512; address 0 where the kernel laid none, for another width).
 */
static int sourceInMemory(const uint8_t *entry, pc_plane_cost_fn cost) {
  int32_t at[4];
  memcpy(at, entry, sizeof at);
  if (at[1] < 1 || at[2] < 1) return 0;
  const uint64_t pixels = (uint64_t)at[1] * (uint64_t)at[2];
  if (cost == pc_plane_cost_avx2) return at[0] >= 0 && at[0] % 4 == 0 && (uint64_t)(uint32_t)at[0] + 4ull * pixels <= boundBytes;
  return at[3] > 0 && at[3] % 16 == 0 && (uint64_t)(uint32_t)at[3] + 16ull * pixels <= boundBytes;
}

/* planeCost(): the bound block's hypothesis scored, its result written into the block. */
static napi_value planeCost(napi_env env, napi_callback_info info) {
  (void)info;
  if (!boundMemory) return throwError(env, "planeCost: bind() first");
  uint8_t *block = boundMemory + boundParams;
  double p[5];
  int32_t q[6];
  memcpy(p, block, sizeof p);
  memcpy(q, block + 48, sizeof q);
  const int sources = q[1], n = q[3];
  /* The addresses the kernel will read, checked against the memory once per call (cheap beside it). */
  const uint64_t tableEnd = (uint64_t)(uint32_t)q[0] + (uint64_t)PC_SOURCE_ENTRY * (uint64_t)(sources > 0 ? sources : 0);
  const uint64_t windowEnd = (uint64_t)(uint32_t)q[2] + 4ull * (4ull * (uint64_t)(n > 0 ? n : 0) + 7ull);
  const uint64_t scratchEnd = (uint64_t)(uint32_t)q[5] + 8ull * (uint64_t)(sources > 0 ? sources : 0);
  if (n <= 0 || n % 4 != 0 || sources < 0 || tableEnd > boundBytes || windowEnd > boundBytes || scratchEnd > boundBytes) return throwError(env, "planeCost: block outside the memory");
  for (int j = 0; j < sources; j++)
    if (!sourceInMemory(boundMemory + (uint32_t)q[0] + (uint32_t)j * PC_SOURCE_ENTRY, currentCost())) return throwError(env, "planeCost: a source's pixels outside the memory");
  const double result = currentCost()(boundMemory, (uint32_t)q[0], sources, (uint32_t)q[2], n, (float)p[0], (float)p[1], p[2], p[3], p[4], q[4], (uint32_t)q[5]);
  memcpy(block + 40, &result, sizeof result);
  return NULL;
}
#endif

#ifdef __x86_64__
/* Whether [address, address + bytes) lies in the bound memory. */
static int inMemory(int32_t address, uint64_t bytes) {
  return address >= 0 && (uint64_t)(uint32_t)address + bytes <= boundBytes;
}

/* buildWindow(): the bound block's window built in place; its status (bilateral-window.h) and variance written into the block. */
static napi_value buildWindow(napi_env env, napi_callback_info info) {
  (void)info;
  if (!boundMemory) return throwError(env, "buildWindow: bind() first");
  uint8_t *block = boundMemory + boundParams + WINDOW_BLOCK;
  double colourScale;
  int32_t q[12];
  memcpy(&colourScale, block, sizeof colourScale);
  memcpy(q, block + 16, sizeof q);
  const int col = q[0], row = q[1], width = q[3], height = q[4], samples = q[6], n = q[8], reach = q[10];
  if (width < 1 || height < 1 || n <= 0 || samples < 0 || samples > n || reach < 0 || !inMemory(q[2], 4ull * (uint64_t)width * (uint64_t)height) ||
      !inMemory(q[5], 4ull * (uint64_t)samples) || !inMemory(q[7], 4ull * (4ull * (uint64_t)n + 7ull)) || !inMemory(q[9], 8ull * (BW_LIMIT + 1)))
    return throwError(env, "buildWindow: block outside the memory");
  int32_t status = BW_TYPESCRIPT;
  double variance = 0;
  /* Only a window clear of the border (bw_build checks that every sample it reads lies in the image). */
  if (col >= reach && row >= reach && col < width - reach && row < height - reach) {
    const double *table = (const double *)(boundMemory + (uint32_t)q[9]);
    double powers[7];
    bw_tail_powers(table, powers);
    const float *grey = (const float *)(boundMemory + (uint32_t)q[2]), *spatial = (const float *)(boundMemory + (uint32_t)q[5]);
    float *win = (float *)(boundMemory + (uint32_t)q[7]);
    status = wideWindow && !narrowWindow ? bw_build(grey, width, height, col, row, spatial, samples, win, n, table, powers, colourScale, reach, &variance)
                                         : bw_build_avx2(grey, width, height, col, row, spatial, samples, win, n, table, powers, colourScale, reach, &variance);
  }
  memcpy(block + 8, &variance, sizeof variance);
  memcpy(block + 16 + 44, &status, sizeof status);
  return NULL;
}

/* layQuads(): the bound block's grey image laid out as quads; the last row and column are left as they are (never read). */
static napi_value layQuads(napi_env env, napi_callback_info info) {
  (void)info;
  if (!boundMemory) return throwError(env, "layQuads: bind() first");
  int32_t q[4];
  memcpy(q, boundMemory + boundParams + QUADS_BLOCK, sizeof q);
  const int width = q[2], height = q[3];
  const uint64_t pixels = (uint64_t)(width > 0 ? width : 0) * (uint64_t)(height > 0 ? height : 0);
  if (width < 1 || height < 1 || q[1] % 16 != 0 || !inMemory(q[0], 4ull * pixels) || !inMemory(q[1], 16ull * pixels)) return throwError(env, "layQuads: block outside the memory");
  const float *grey = (const float *)(boundMemory + (uint32_t)q[0]);
  float *quads = (float *)(boundMemory + (uint32_t)q[1]);
  for (int y = 0; y + 1 < height; y++) {
    const float *top = grey + (size_t)y * width, *bottom = top + width;
    float *out = quads + 4 * (size_t)y * width;
    for (int x = 0; x + 1 < width; x++) {
      out[4 * x] = top[x];
      out[4 * x + 1] = top[x + 1];
      out[4 * x + 2] = bottom[x];
      out[4 * x + 3] = bottom[x + 1];
    }
  }
  return NULL;
}
#endif

#ifdef __x86_64__
/* The level bindPlanes() named on this thread; level.depth is NULL until then. */
static _Thread_local PlanesLevel level;
static _Thread_local size_t levelPixels;

/* A typed array's data and its length in elements, when it is of `type`; NULL otherwise. */
static void *typedArray(napi_env env, napi_value value, napi_typedarray_type type, size_t *length) {
  bool is = false;
  if (napi_is_typedarray(env, value, &is) != napi_ok || !is) return NULL;
  napi_typedarray_type got;
  void *data = NULL;
  if (napi_get_typedarray_info(env, value, &got, length, &data, NULL, NULL) != napi_ok || got != type) return NULL;
  return data;
}

/*
 * bindPlanes(depth, normal, photo, cost, changedIn, sourcesAt | null, geometry, sizes): a level's
 * planes (Float32Array ×4, normal 3 per pixel; Int32Array; Uint8Array or null), geometry a
 * Float64Array of focal, cx, cy, depthMin, depthMax and sizes an Int32Array of width, height,
 * margin, sources, planeSources, bestK, table, win, n, scratch. Resets the hypotheses' count.
 */
static napi_value bindPlanes(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 8) return throwError(env, "bindPlanes(depth, normal, photo, cost, changedIn, sourcesAt, geometry, sizes)");
  size_t lengths[8] = {0};
  float *depth = typedArray(env, argv[0], napi_float32_array, &lengths[0]);
  float *normal = typedArray(env, argv[1], napi_float32_array, &lengths[1]);
  float *photo = typedArray(env, argv[2], napi_float32_array, &lengths[2]);
  float *cost = typedArray(env, argv[3], napi_float32_array, &lengths[3]);
  int32_t *changedIn = typedArray(env, argv[4], napi_int32_array, &lengths[4]);
  napi_valuetype sourcesType;
  if (napi_typeof(env, argv[5], &sourcesType) != napi_ok) return throwError(env, "bindPlanes: unreadable sourcesAt");
  const uint8_t *sourcesAt = sourcesType == napi_null ? NULL : typedArray(env, argv[5], napi_uint8_array, &lengths[5]);
  const double *geometry = typedArray(env, argv[6], napi_float64_array, &lengths[6]);
  const int32_t *sizes = typedArray(env, argv[7], napi_int32_array, &lengths[7]);
  if (!depth || !normal || !photo || !cost || !changedIn || (sourcesType != napi_null && !sourcesAt) || !geometry || lengths[6] != 5 || !sizes || lengths[7] != 10)
    return throwError(env, "bindPlanes: wrong argument types");
  const int width = sizes[0], height = sizes[1];
  const size_t pixels = (size_t)(width > 0 ? width : 0) * (size_t)(height > 0 ? height : 0);
  if (width < 1 || height < 1 || sizes[2] < 0 || lengths[0] != pixels || lengths[1] != 3 * pixels || lengths[2] != pixels || lengths[3] != pixels || lengths[4] != pixels || (sourcesAt && lengths[5] != pixels))
    return throwError(env, "bindPlanes: the planes' lengths do not match the level's size");
  if (sizes[3] < 0 || sizes[4] < 0 || sizes[4] > 64 || sizes[8] <= 0 || sizes[8] % 4 != 0) return throwError(env, "bindPlanes: bad source or window counts");
  level = (PlanesLevel){
    .depth = depth, .normal = normal, .photo = photo, .cost = cost, .changedIn = changedIn, .sourcesAt = sourcesAt,
    .width = width, .height = height, .margin = sizes[2], .sources = sizes[3], .planeSources = sizes[4], .bestK = sizes[5],
    .table = (uint32_t)sizes[6], .win = (uint32_t)sizes[7], .n = sizes[8], .scratch = (uint32_t)sizes[9],
    .focal = geometry[0], .cx = geometry[1], .cy = geometry[2], .depthMin = geometry[3], .depthMax = geometry[4], .evaluations = 0,
    .planeCost = currentCost(),
  };
  levelPixels = pixels;
  return NULL;
}

/* Whether what the bound level's scoring reads lies in the bound memory (checked once per call, as planeCost does). */
static int levelInMemory(void) {
  const int sources = level.planeSources;
  if ((uint64_t)level.table + (uint64_t)PC_SOURCE_ENTRY * (uint64_t)sources > boundBytes) return 0;
  if ((uint64_t)level.win + 4ull * (4ull * (uint64_t)level.n + 7ull) > boundBytes) return 0;
  if ((uint64_t)level.scratch + 8ull * (uint64_t)sources > boundBytes) return 0;
  for (int j = 0; j < sources; j++)
    if (!sourceInMemory(boundMemory + level.table + (uint32_t)j * PC_SOURCE_ENTRY, level.planeCost)) return 0;
  return 1;
}

/* The planes' block's pixel, when it lies inside the bound level's margin; -1 otherwise. */
static int blockPixel(const int32_t *q) {
  const int col = q[0], row = q[1];
  if (col < level.margin || row < level.margin || col >= level.width - level.margin || row >= level.height - level.margin) return -1;
  return row * level.width + col;
}

/* propagatePlanes(): the block's pixel (col, row) tries its first `count` neighbours' planes changed in sweep `since` or later. */
static napi_value propagatePlanes(napi_env env, napi_callback_info info) {
  (void)info;
  if (!boundMemory || !level.depth) return throwError(env, "propagatePlanes: bind() and bindPlanes() first");
  int32_t q[5];
  memcpy(q, boundMemory + boundParams + PLANES_BLOCK, sizeof q);
  if (blockPixel(q) < 0 || q[2] < 0 || q[2] > 8 || !levelInMemory()) return throwError(env, "propagatePlanes: block outside the level or the memory");
  pl_propagate(&level, boundMemory, q[0], q[1], q[2], q[3], q[4]);
  return NULL;
}

/* tryPlanes(): the block's `count` hypotheses (d, nx, ny, nz) tried in turn at its pixel, in sweep `sweep`. */
static napi_value tryPlanes(napi_env env, napi_callback_info info) {
  (void)info;
  if (!boundMemory || !level.depth) return throwError(env, "tryPlanes: bind() and bindPlanes() first");
  const uint8_t *block = boundMemory + boundParams + PLANES_BLOCK;
  int32_t q[5];
  double planes[16];
  memcpy(q, block, sizeof q);
  memcpy(planes, block + 8 * 4, sizeof planes);
  const int p = blockPixel(q);
  if (p < 0 || q[2] < 0 || q[2] > 4 || !levelInMemory()) return throwError(env, "tryPlanes: block outside the level or the memory");
  for (int k = 0; k < q[2]; k++) pl_try(&level, boundMemory, q[0], q[1], p, planes[4 * k], planes[4 * k + 1], planes[4 * k + 2], planes[4 * k + 3], q[4]);
  return NULL;
}

/* planesEvaluated(): the hypotheses propagatePlanes() and tryPlanes() scored since bindPlanes(). */
static napi_value planesEvaluated(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  if (napi_create_double(env, level.evaluations, &out) != napi_ok) return NULL;
  return out;
}
#endif

#ifdef __x86_64__
/* isa(): "avx512" or "avx2", the width planeCost and the planes' updates run at on this thread. */
static napi_value isa(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  if (napi_create_string_utf8(env, chosenIsa ? chosenIsa : widestIsa, NAPI_AUTO_LENGTH, &out) != napi_ok) return NULL;
  return out;
}

/* useIsa(name): this thread's plane cost and window at "avx512" or "avx2" from the next call (and the next bindPlanes()) on; false where the CPU lacks it. */
static napi_value useIsa(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  char name[16] = {0};
  size_t length = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 || napi_get_value_string_utf8(env, argv[0], name, sizeof name, &length) != napi_ok)
    return throwError(env, "useIsa(name)");
  int ok = 0;
  if (strcmp(name, "avx512") == 0 && widestCost == pc_plane_cost_avx512) {
    chosenCost = pc_plane_cost_avx512;
    chosenIsa = "avx512";
    narrowWindow = 0;
    ok = 1;
  } else if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2")) {
    chosenCost = pc_plane_cost_avx2;
    chosenIsa = "avx2";
    narrowWindow = 1;
    ok = 1;
  }
  napi_value out;
  if (napi_get_boolean(env, ok, &out) != napi_ok) return NULL;
  return out;
}
#endif

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "bind", NAPI_AUTO_LENGTH, bind, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "bind", fn) != napi_ok) return NULL;
#ifdef __x86_64__
  __builtin_cpu_init();
  /* DENSE_NATIVE_ISA=avx2 runs the AVX2 width on an AVX-512 CPU, as a CPU without AVX-512 would
     (the window built in TypeScript too); =wasm leaves the stage on its wasm kernel. */
  const char *capped = getenv("DENSE_NATIVE_ISA");
  const int allowAvx512 = !capped || !*capped || strcmp(capped, "avx512") == 0;
  const int allowAvx2 = allowAvx512 || strcmp(capped, "avx2") == 0;
  if (allowAvx512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
    widestCost = pc_plane_cost_avx512;
    widestIsa = "avx512";
  } else if (allowAvx2 && __builtin_cpu_supports("avx2")) {
    widestCost = pc_plane_cost_avx2;
    widestIsa = "avx2";
  }
  if (widestCost) {
    const struct { const char *name; napi_callback call; } costs[] = {
      {"planeCost", planeCost}, {"layQuads", layQuads}, {"isa", isa}, {"useIsa", useIsa},
      {"bindPlanes", bindPlanes}, {"propagatePlanes", propagatePlanes}, {"tryPlanes", tryPlanes}, {"planesEvaluated", planesEvaluated},
    };
    for (size_t k = 0; k < sizeof costs / sizeof costs[0]; k++) {
      if (napi_create_function(env, costs[k].name, NAPI_AUTO_LENGTH, costs[k].call, NULL, &fn) != napi_ok) return NULL;
      if (napi_set_named_property(env, exports, costs[k].name, fn) != napi_ok) return NULL;
    }
  }
  /* The window eight samples wide with AVX-512 VL, or with AVX2. */
  wideWindow = allowAvx512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (allowAvx2 && __builtin_cpu_supports("avx2")) {
    if (napi_create_function(env, "buildWindow", NAPI_AUTO_LENGTH, buildWindow, NULL, &fn) != napi_ok) return NULL;
    if (napi_set_named_property(env, exports, "buildWindow", fn) != napi_ok) return NULL;
  }
#endif
  return exports;
}
