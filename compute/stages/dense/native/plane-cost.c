/*
 * The dense stage's plane cost (../wasm/ncc.ts planeCost) as a Node-API addon, run on the wasm
 * kernel's own memory with AVX-512 and to its bits (plane-cost.h says how). It exists because
 * WebAssembly has no gather and no 512-bit vectors, and the bilinear fetch bounds the cost:
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
 *   params + 136 (layQuads'):         i32 grey, quads, width, height.
 *
 * buildWindow() builds PatchMatch's reference window in place (bilateral-window.h); layQuads()
 * lays a source out as planeCost reads it (plane-cost.h), per pixel its four bilinear corners.
 *
 * The binding is per thread (each worker thread has its own kernels). planeCost is exported only
 * on a CPU with AVX-512F and DQ, buildWindow with VL as well; elsewhere they are absent and the
 * stage keeps the wasm kernel and its TypeScript window.
 * Built at `npm ci` by scripts/build-native.mjs with -ffp-contract=off.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdint.h>
#include <string.h>
#ifdef __x86_64__
#include "bilateral-window.h"
#include "plane-cost.h"
#endif

static _Thread_local uint8_t *boundMemory;
static _Thread_local size_t boundBytes;
static _Thread_local uint32_t boundParams;

#define PARAM_BYTES (QUADS_BLOCK + 4 * 4)
/* Where buildWindow's and layQuads' blocks start in the parameter block. */
#define WINDOW_BLOCK 72
#define QUADS_BLOCK (WINDOW_BLOCK + 2 * 8 + 12 * 4)

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
  for (int j = 0; j < sources; j++) {
    int32_t at[4];
    memcpy(at, boundMemory + (uint32_t)q[0] + (uint32_t)j * PC_SOURCE_ENTRY, sizeof at);
    if (at[1] < 1 || at[2] < 1 || at[3] % 16 != 0 || (uint64_t)(uint32_t)at[3] + 16ull * (uint64_t)at[1] * (uint64_t)at[2] > boundBytes) return throwError(env, "planeCost: a source's quads outside the memory");
  }
  const double result = pc_plane_cost(boundMemory, (uint32_t)q[0], sources, (uint32_t)q[2], n, (float)p[0], (float)p[1], p[2], p[3], p[4], q[4], (uint32_t)q[5]);
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
    status = bw_build((const float *)(boundMemory + (uint32_t)q[2]), width, height, col, row, (const float *)(boundMemory + (uint32_t)q[5]), samples,
                      (float *)(boundMemory + (uint32_t)q[7]), n, table, powers, colourScale, reach, &variance);
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

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "bind", NAPI_AUTO_LENGTH, bind, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "bind", fn) != napi_ok) return NULL;
#ifdef __x86_64__
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
    if (napi_create_function(env, "planeCost", NAPI_AUTO_LENGTH, planeCost, NULL, &fn) != napi_ok) return NULL;
    if (napi_set_named_property(env, exports, "planeCost", fn) != napi_ok) return NULL;
    if (napi_create_function(env, "layQuads", NAPI_AUTO_LENGTH, layQuads, NULL, &fn) != napi_ok) return NULL;
    if (napi_set_named_property(env, exports, "layQuads", fn) != napi_ok) return NULL;
  }
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    if (napi_create_function(env, "buildWindow", NAPI_AUTO_LENGTH, buildWindow, NULL, &fn) != napi_ok) return NULL;
    if (napi_set_named_property(env, exports, "buildWindow", fn) != napi_ok) return NULL;
  }
#endif
  return exports;
}
