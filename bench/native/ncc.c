/*
 * Native reference of the dense stage's photometric cost (compute/stages/dense/wasm/ncc.ts):
 * 1 − bilaterally weighted NCC of a strided window warped into a source image by a plane-induced
 * homography. It is the yardstick `npm run bench -- kernels` holds the WebAssembly build against
 * (issue 42, "hot loops at the machine's speed"), not part of the service.
 *
 * Three versions of the same arithmetic in float32: one sample at a time (what a C compiler makes
 * of the plain loop), eight samples at a time with AVX2 and FMA, whose gather instruction
 * fetches the four bilinear corners (wasm SIMD has neither 256-bit vectors nor a gather), and the
 * dense addon's AVX-512 cost, sixteen at a time with the wasm kernel's bits, reading the source as
 * quads (each pixel's four bilinear corners side by side, one 16-byte load per sample).
 *
 * Build: gcc -O3 -march=native -ffp-contract=off -o ncc ncc.c   (bench/kernels.ts does it in bench-out/)
 * Run:   ncc <workload.bin> <rounds> <costs.bin>
 * Workload (little endian): int32 width, height, n (samples, a multiple of 8), count; float32
 * src[width·height]; dx[n] dy[n] ref[n] weight[n]; stats[3] (1/Σw, mean and variance of ref);
 * then count hypotheses of 11 float32: px, py, h0..h8. Prints one JSON line with the best
 * round's nanoseconds per call of each version; writes the AVX2 costs, then the scalar costs, then the AVX-512 costs.
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../../compute/stages/dense/native/plane-cost.h"

#define MAX_COST 2.0f
#define MIN_VARIANCE 1e-5f

typedef struct {
  int32_t width, height, n, count;
  float *src, *win, *hyp;
} Workload;

static float finish(float ss, float sss, float srs, const float *stats) {
  float inv = stats[0], meanR = stats[1], varR = stats[2];
  float meanS = ss * inv;
  float varS = sss * inv - meanS * meanS;
  if (varR < MIN_VARIANCE || varS < MIN_VARIANCE) return MAX_COST;
  float ncc = (srs * inv - meanR * meanS) / sqrtf(varR * varS);
  ncc = fmaxf(-1.0f, fminf(1.0f, ncc));
  return 1.0f - ncc;
}

static float cost_scalar(const float *src, int width, int height, const float *win, int n, const float *q) {
  const float *dx = win, *dy = win + n, *ref = win + 2 * n, *w = win + 3 * n;
  float px = q[0], py = q[1];
  const float *h = q + 2;
  float ss = 0, sss = 0, srs = 0;
  for (int i = 0; i < n; i++) {
    float u = px + dx[i], v = py + dy[i];
    float hz = h[6] * u + h[7] * v + h[8];
    if (!(hz > 1e-8f)) return MAX_COST;
    float iz = 1.0f / hz;
    float sx = (h[0] * u + h[1] * v + h[2]) * iz - 0.5f;
    float sy = (h[3] * u + h[4] * v + h[5]) * iz - 0.5f;
    if (!(sx >= 0 && sy >= 0 && sx < width - 1 && sy < height - 1)) return MAX_COST;
    float fx0 = floorf(sx), fy0 = floorf(sy);
    const float *p = src + (int)fy0 * width + (int)fx0;
    float fx = sx - fx0, fy = sy - fy0;
    float top = p[0] + fx * (p[1] - p[0]);
    float bottom = p[width] + fx * (p[width + 1] - p[width]);
    float val = top + fy * (bottom - top);
    float wv = w[i] * val;
    ss += wv;
    sss += wv * val;
    srs += wv * ref[i];
  }
  return finish(ss, sss, srs, win + 4 * n);
}

static float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

static float cost_avx2(const float *src, int width, int height, const float *win, int n, const float *q) {
  const float *dx = win, *dy = win + n, *ref = win + 2 * n, *w = win + 3 * n;
  const __m256 vpx = _mm256_set1_ps(q[0]), vpy = _mm256_set1_ps(q[1]);
  const __m256 h0 = _mm256_set1_ps(q[2]), h1 = _mm256_set1_ps(q[3]), h2 = _mm256_set1_ps(q[4]);
  const __m256 h3 = _mm256_set1_ps(q[5]), h4 = _mm256_set1_ps(q[6]), h5 = _mm256_set1_ps(q[7]);
  const __m256 h6 = _mm256_set1_ps(q[8]), h7 = _mm256_set1_ps(q[9]), h8 = _mm256_set1_ps(q[10]);
  const __m256 half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps(), eps = _mm256_set1_ps(1e-8f);
  const __m256 maxX = _mm256_set1_ps((float)(width - 1)), maxY = _mm256_set1_ps((float)(height - 1));
  const __m256i vw = _mm256_set1_epi32(width);
  __m256 ss = zero, sss = zero, srs = zero;
  for (int i = 0; i < n; i += 8) {
    __m256 u = _mm256_add_ps(vpx, _mm256_loadu_ps(dx + i));
    __m256 v = _mm256_add_ps(vpy, _mm256_loadu_ps(dy + i));
    __m256 hx = _mm256_fmadd_ps(h0, u, _mm256_fmadd_ps(h1, v, h2));
    __m256 hy = _mm256_fmadd_ps(h3, u, _mm256_fmadd_ps(h4, v, h5));
    __m256 hz = _mm256_fmadd_ps(h6, u, _mm256_fmadd_ps(h7, v, h8));
    if (_mm256_movemask_ps(_mm256_cmp_ps(hz, eps, _CMP_GT_OQ)) != 0xff) return MAX_COST;
    __m256 iz = _mm256_div_ps(_mm256_set1_ps(1.0f), hz);
    __m256 sx = _mm256_fmsub_ps(hx, iz, half);
    __m256 sy = _mm256_fmsub_ps(hy, iz, half);
    __m256 inside = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(sx, zero, _CMP_GE_OQ), _mm256_cmp_ps(sy, zero, _CMP_GE_OQ)),
                                  _mm256_and_ps(_mm256_cmp_ps(sx, maxX, _CMP_LT_OQ), _mm256_cmp_ps(sy, maxY, _CMP_LT_OQ)));
    if (_mm256_movemask_ps(inside) != 0xff) return MAX_COST;
    __m256 fx0 = _mm256_floor_ps(sx), fy0 = _mm256_floor_ps(sy);
    __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(fy0), vw), _mm256_cvttps_epi32(fx0));
    __m256 a = _mm256_i32gather_ps(src, idx, 4);
    __m256 b = _mm256_i32gather_ps(src + 1, idx, 4);
    __m256 c = _mm256_i32gather_ps(src + width, idx, 4);
    __m256 d = _mm256_i32gather_ps(src + width + 1, idx, 4);
    __m256 fx = _mm256_sub_ps(sx, fx0), fy = _mm256_sub_ps(sy, fy0);
    __m256 top = _mm256_fmadd_ps(fx, _mm256_sub_ps(b, a), a);
    __m256 bottom = _mm256_fmadd_ps(fx, _mm256_sub_ps(d, c), c);
    __m256 val = _mm256_fmadd_ps(fy, _mm256_sub_ps(bottom, top), top);
    __m256 wv = _mm256_mul_ps(_mm256_loadu_ps(w + i), val);
    ss = _mm256_add_ps(ss, wv);
    sss = _mm256_fmadd_ps(wv, val, sss);
    srs = _mm256_fmadd_ps(wv, _mm256_loadu_ps(ref + i), srs);
  }
  return finish(hsum8(ss), hsum8(sss), hsum8(srs), win + 4 * n);
}


/* The source as the addon reads it: per pixel its four bilinear corners (plane-cost.h); made in main. */
static float *quads;

/*
 * AVX-512, sixteen samples at a time, with the WebAssembly kernel's bits: the dense stage's native
 * addon's own window cost (compute/stages/dense/native/plane-cost.h), every sample tested.
 */
static float cost_avx512(const float *src, int width, int height, const float *win, int n, const float *q) {
  (void)src;
  return pc_window_cost_avx512(1, quads, width, height, win, n, q[0], q[1], q + 2);
}

static float *make_quads(const float *src, int width, int height) {
  float *out = aligned_alloc(64, 16 * (size_t)width * height);
  if (!out) exit(2);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      float *o = out + 4 * ((size_t)y * width + x);
      const int right = x + 1 < width, down = y + 1 < height;
      o[0] = src[y * width + x];
      o[1] = right ? src[y * width + x + 1] : 0;
      o[2] = down ? src[(y + 1) * width + x] : 0;
      o[3] = right && down ? src[(y + 1) * width + x + 1] : 0;
    }
  return out;
}

static void *read_exact(FILE *f, size_t bytes) {
  void *p = malloc(bytes);
  if (!p || fread(p, 1, bytes, f) != bytes) {
    fprintf(stderr, "ncc: workload file too short\n");
    exit(2);
  }
  return p;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

typedef float (*CostFn)(const float *, int, int, const float *, int, const float *);

/* Best round's nanoseconds per call; the last round's costs in out. */
static double time_calls(CostFn fn, const Workload *wl, int rounds, float *out) {
  double best = 1e300;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ns();
    for (int k = 0; k < wl->count; k++) out[k] = fn(wl->src, wl->width, wl->height, wl->win, wl->n, wl->hyp + 11 * k);
    double per = (now_ns() - t0) / wl->count;
    if (per < best) best = per;
  }
  return best;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: ncc <workload.bin> <rounds> <costs.bin>\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  Workload wl;
  int32_t *head = read_exact(f, 16);
  wl.width = head[0], wl.height = head[1], wl.n = head[2], wl.count = head[3];
  if (wl.n % 8 != 0) {
    fprintf(stderr, "ncc: n must be a multiple of 8\n");
    return 2;
  }
  wl.src = read_exact(f, sizeof(float) * (size_t)wl.width * wl.height);
  wl.win = read_exact(f, sizeof(float) * (4 * (size_t)wl.n + 3));
  wl.hyp = read_exact(f, sizeof(float) * 11 * (size_t)wl.count);
  fclose(f);
  int rounds = atoi(argv[2]);
  float *avx = malloc(sizeof(float) * wl.count), *scalar = malloc(sizeof(float) * wl.count);
  float *avx512 = malloc(sizeof(float) * wl.count);
  double avxNs = time_calls(cost_avx2, &wl, rounds, avx);
  /* On a CPU without AVX-512 its row is left out (-1), rather than the run dying on an illegal instruction. */
  __builtin_cpu_init();
  const int hasAvx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  double avx512Ns = -1;
  if (hasAvx512) {
    quads = make_quads(wl.src, wl.width, wl.height);
    avx512Ns = time_calls(cost_avx512, &wl, rounds, avx512);
  }
  else for (int k = 0; k < wl.count; k++) avx512[k] = MAX_COST;
  double scalarNs = time_calls(cost_scalar, &wl, rounds, scalar);
  FILE *o = fopen(argv[3], "wb");
  if (!o || fwrite(avx, sizeof(float), wl.count, o) != (size_t)wl.count || fwrite(scalar, sizeof(float), wl.count, o) != (size_t)wl.count ||
      fwrite(avx512, sizeof(float), wl.count, o) != (size_t)wl.count) {
    perror(argv[3]);
    return 2;
  }
  fclose(o);
  printf("{\"avx2NsPerCall\":%.2f,\"scalarNsPerCall\":%.2f,\"avx512NsPerCall\":%.2f}\n", avxNs, scalarNs, avx512Ns);
  return 0;
}
