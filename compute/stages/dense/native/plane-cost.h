/*
 * The dense stage's photometric cost (1 − bilaterally weighted NCC of a window warped into a source
 * by a plane-induced homography; ../wasm/ncc.ts) with AVX-512, or with AVX2 on a CPU without it, to
 * the WebAssembly kernel's bits.
 *
 * Why it gives the same bits: every operation is the wasm kernel's, in float32, in its order, with
 * no fused multiply-add (the addon is built with -ffp-contract=off). The warp, the division and the
 * bilinear fetch run sixteen (AVX2: eight) samples wide, and the products are then added to
 * four-lane sums one group of four samples at a time, so that each lane sums exactly what its wasm
 * lane sums. The
 * fetch bounds the cost (`npm run bench -- kernels`: without it a third of the time), so for the
 * AVX-512 cost each source is also laid out as quads, a pixel's four bilinear corners side by side: one 16-byte
 * load per sample and a transpose, where gathers of pixel pairs from the two rows took a quarter
 * longer per source (docs/decisions.md, "The plane cost reads each source as quads").
 *
 * Shared by the addon (plane-cost.c) and the bench's native reference (bench/native/ncc.c).
 */
#ifndef PLANE_COST_H
#define PLANE_COST_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define PC_MAX_COST 2.0f
#define PC_MIN_VARIANCE 1e-5f
#define PC_CORNER_MARGIN 0.01f
#define PC_CORNER_MIN_Z 1e-3f

enum { PC_CORNER_OUTSIDE = 0, PC_CORNER_INSIDE = 1, PC_CORNER_UNSURE = 2 };

/* ((l0 + l1) + l2) + l3, as the wasm kernel's hsum adds its lanes. */
static inline float pc_hsum4(__m128 v) {
  float l[4];
  _mm_storeu_ps(l, v);
  return ((l[0] + l[1]) + l[2]) + l[3];
}

/* The window's statistics (1/Σw, mean and variance of ref) follow its n samples: win[4n..4n+2]. */
static inline float pc_finish(__m128 ss, __m128 sss, __m128 srs, const float *stats) {
  float inv = stats[0], meanR = stats[1], varR = stats[2];
  float meanS = pc_hsum4(ss) * inv;
  float varS = pc_hsum4(sss) * inv - meanS * meanS;
  if (varR < PC_MIN_VARIANCE || varS < PC_MIN_VARIANCE) return PC_MAX_COST;
  float cov = pc_hsum4(srs) * inv - meanR * meanS;
  /* sqrtss: correctly rounded like wasm's f32.sqrt, and no call into libm. */
  float ncc = cov / _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(varR * varS)));
  /* f32.max(-1, x) and f32.min(1, x): a NaN stays NaN, as in wasm. */
  if (ncc < -1.0f) ncc = -1.0f;
  if (ncc > 1.0f) ncc = 1.0f;
  return 1.0f - ncc;
}

/*
 * Cost of the window centred at (px, py) warped by h (row-major 3×3) into a source of width ×
 * height pixels, read from its quads: 16-byte aligned, per pixel (x, y) four floats I(x, y),
 * I(x + 1, y), I(x, y + 1), I(x + 1, y + 1), the four corners of a bilinear fetch (the last row's
 * and column's quads are never read). win: dx[n] dy[n] ref[n] weight[n], then the statistics; n
 * a multiple of 4. `checked` tests every sample; the caller clears it once corners() found the
 * window safely inside.
 */
__attribute__((target("avx512f,avx512dq"))) static inline float pc_window_cost_avx512(int checked, const float *quads, int width, int height, const float *win, int n, float px, float py, const float *h) {
  const float *dx = win, *dy = win + n, *ref = win + 2 * n, *w = win + 3 * n;
  const __m512 vpx = _mm512_set1_ps(px), vpy = _mm512_set1_ps(py);
  const __m512 h0 = _mm512_set1_ps(h[0]), h1 = _mm512_set1_ps(h[1]), h2 = _mm512_set1_ps(h[2]);
  const __m512 h3 = _mm512_set1_ps(h[3]), h4 = _mm512_set1_ps(h[4]), h5 = _mm512_set1_ps(h[5]);
  const __m512 h6 = _mm512_set1_ps(h[6]), h7 = _mm512_set1_ps(h[7]), h8 = _mm512_set1_ps(h[8]);
  const __m512 half = _mm512_set1_ps(0.5f), zero = _mm512_setzero_ps(), eps = _mm512_set1_ps(1e-8f), one = _mm512_set1_ps(1.0f);
  const __m512 maxX = _mm512_set1_ps((float)(width - 1)), maxY = _mm512_set1_ps((float)(height - 1));
  const __m512i vw = _mm512_set1_epi32(width);
  __m128 ss = _mm_setzero_ps(), sss = _mm_setzero_ps(), srs = _mm_setzero_ps();
  for (int i = 0; i < n; i += 16) {
    const int left = n - i;
    const __mmask16 live = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
    const __m512 u = _mm512_add_ps(vpx, _mm512_maskz_loadu_ps(live, dx + i));
    const __m512 v = _mm512_add_ps(vpy, _mm512_maskz_loadu_ps(live, dy + i));
    const __m512 hx = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(h0, u), _mm512_mul_ps(h1, v)), h2);
    const __m512 hy = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(h3, u), _mm512_mul_ps(h4, v)), h5);
    const __m512 hz = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(h6, u), _mm512_mul_ps(h7, v)), h8);
    if (checked && _mm512_mask_cmp_ps_mask(live, hz, eps, _CMP_GT_OQ) != live) return PC_MAX_COST;
    const __m512 iz = _mm512_div_ps(one, hz);
    const __m512 sx = _mm512_sub_ps(_mm512_mul_ps(hx, iz), half);
    const __m512 sy = _mm512_sub_ps(_mm512_mul_ps(hy, iz), half);
    /* "Inside" tests, so that NaN coordinates count as outside. */
    if (checked && (_mm512_mask_cmp_ps_mask(live, sx, zero, _CMP_GE_OQ) & _mm512_mask_cmp_ps_mask(live, sy, zero, _CMP_GE_OQ) &
                    _mm512_mask_cmp_ps_mask(live, sx, maxX, _CMP_LT_OQ) & _mm512_mask_cmp_ps_mask(live, sy, maxY, _CMP_LT_OQ)) != live)
      return PC_MAX_COST;
    const __m512 fx0 = _mm512_floor_ps(sx), fy0 = _mm512_floor_ps(sy);
    const __m512i idx = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvttps_epi32(fy0), vw), _mm512_cvttps_epi32(fx0));
    /* One 16-byte load per sample brings its four corners (the quads' layout, above). Sample
       4j + r goes to lane j of z[r], so that the transpose within each 128-bit lane puts it at
       element 4j + r; a last group of fewer than sixteen samples loads only its own. */
    int32_t lanes[16];
    _mm512_storeu_si512(lanes, _mm512_maskz_mov_epi32(live, idx));
    const int chunks = left >= 16 ? 4 : left / 4;
    __m512 z[4];
    for (int r = 0; r < 4; r++) {
      __m512 zr = _mm512_castps128_ps512(_mm_load_ps(quads + 4 * (int64_t)lanes[r]));
      if (chunks > 1) zr = _mm512_insertf32x4(zr, _mm_load_ps(quads + 4 * (int64_t)lanes[4 + r]), 1);
      if (chunks > 2) zr = _mm512_insertf32x4(zr, _mm_load_ps(quads + 4 * (int64_t)lanes[8 + r]), 2);
      if (chunks > 3) zr = _mm512_insertf32x4(zr, _mm_load_ps(quads + 4 * (int64_t)lanes[12 + r]), 3);
      z[r] = zr;
    }
    const __m512 t0 = _mm512_unpacklo_ps(z[0], z[1]), t1 = _mm512_unpackhi_ps(z[0], z[1]);
    const __m512 t2 = _mm512_unpacklo_ps(z[2], z[3]), t3 = _mm512_unpackhi_ps(z[2], z[3]);
    const __m512 a = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
    const __m512 b = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
    const __m512 c = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
    const __m512 d = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
    const __m512 fx = _mm512_sub_ps(sx, fx0), fy = _mm512_sub_ps(sy, fy0);
    const __m512 top = _mm512_add_ps(a, _mm512_mul_ps(fx, _mm512_sub_ps(b, a)));
    const __m512 bottom = _mm512_add_ps(c, _mm512_mul_ps(fx, _mm512_sub_ps(d, c)));
    const __m512 val = _mm512_add_ps(top, _mm512_mul_ps(fy, _mm512_sub_ps(bottom, top)));
    const __m512 wv = _mm512_mul_ps(_mm512_maskz_loadu_ps(live, w + i), val);
    const __m512 wvv = _mm512_mul_ps(wv, val);
    const __m512 wvr = _mm512_mul_ps(wv, _mm512_maskz_loadu_ps(live, ref + i));
    /* The groups of four in the wasm loop's order (n is a multiple of 4, so a group is whole). */
    ss = _mm_add_ps(ss, _mm512_castps512_ps128(wv));
    sss = _mm_add_ps(sss, _mm512_castps512_ps128(wvv));
    srs = _mm_add_ps(srs, _mm512_castps512_ps128(wvr));
    if (left > 4) {
      ss = _mm_add_ps(ss, _mm512_extractf32x4_ps(wv, 1));
      sss = _mm_add_ps(sss, _mm512_extractf32x4_ps(wvv, 1));
      srs = _mm_add_ps(srs, _mm512_extractf32x4_ps(wvr, 1));
    }
    if (left > 8) {
      ss = _mm_add_ps(ss, _mm512_extractf32x4_ps(wv, 2));
      sss = _mm_add_ps(sss, _mm512_extractf32x4_ps(wvv, 2));
      srs = _mm_add_ps(srs, _mm512_extractf32x4_ps(wvr, 2));
    }
    if (left > 12) {
      ss = _mm_add_ps(ss, _mm512_extractf32x4_ps(wv, 3));
      sss = _mm_add_ps(sss, _mm512_extractf32x4_ps(wvv, 3));
      srs = _mm_add_ps(srs, _mm512_extractf32x4_ps(wvr, 3));
    }
  }
  return pc_finish(ss, sss, srs, win + 4 * n);
}

/* Four samples' bilinear corners a, b (row y) and c, d (row y + 1), two 8-byte loads per sample and row. */
static inline void pc_corners4(const float *grey, int width, const int32_t *at, __m128 *a, __m128 *b, __m128 *c, __m128 *d) {
  const __m128 zero = _mm_setzero_ps();
  const __m128 top01 = _mm_loadh_pi(_mm_loadl_pi(zero, (const __m64 *)(grey + at[0])), (const __m64 *)(grey + at[1]));
  const __m128 top23 = _mm_loadh_pi(_mm_loadl_pi(zero, (const __m64 *)(grey + at[2])), (const __m64 *)(grey + at[3]));
  const __m128 bottom01 = _mm_loadh_pi(_mm_loadl_pi(zero, (const __m64 *)(grey + at[0] + width)), (const __m64 *)(grey + at[1] + width));
  const __m128 bottom23 = _mm_loadh_pi(_mm_loadl_pi(zero, (const __m64 *)(grey + at[2] + width)), (const __m64 *)(grey + at[3] + width));
  *a = _mm_shuffle_ps(top01, top23, _MM_SHUFFLE(2, 0, 2, 0));
  *b = _mm_shuffle_ps(top01, top23, _MM_SHUFFLE(3, 1, 3, 1));
  *c = _mm_shuffle_ps(bottom01, bottom23, _MM_SHUFFLE(2, 0, 2, 0));
  *d = _mm_shuffle_ps(bottom01, bottom23, _MM_SHUFFLE(3, 1, 3, 1));
}

/*
 * pc_window_cost_avx512 eight samples at a time, for a CPU with AVX2 but not AVX-512 (the same
 * operations on each sample, so the same bits). It reads the grey image itself, two pixels of each
 * row per sample as the wasm kernel does, not the quads: with the quads, four times a source's
 * bytes, an AVX2 cost ran faster than wasm on one thread of an AVX2-only EPYC and slower on two
 * (docs/decisions.md, "The plane cost runs native where the CPU has AVX-512", "Not done"). n is a
 * multiple of 4, so the last group of fewer than eight samples holds four: its loads are masked,
 * and its dead lanes are neither tested, read nor summed.
 */
__attribute__((target("avx2"))) static inline float pc_window_cost_avx2(int checked, const float *grey, int width, int height, const float *win, int n, float px, float py, const float *h) {
  const float *dx = win, *dy = win + n, *ref = win + 2 * n, *w = win + 3 * n;
  const __m256 vpx = _mm256_set1_ps(px), vpy = _mm256_set1_ps(py);
  const __m256 h0 = _mm256_set1_ps(h[0]), h1 = _mm256_set1_ps(h[1]), h2 = _mm256_set1_ps(h[2]);
  const __m256 h3 = _mm256_set1_ps(h[3]), h4 = _mm256_set1_ps(h[4]), h5 = _mm256_set1_ps(h[5]);
  const __m256 h6 = _mm256_set1_ps(h[6]), h7 = _mm256_set1_ps(h[7]), h8 = _mm256_set1_ps(h[8]);
  const __m256 half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps(), eps = _mm256_set1_ps(1e-8f), one = _mm256_set1_ps(1.0f);
  const __m256 maxX = _mm256_set1_ps((float)(width - 1)), maxY = _mm256_set1_ps((float)(height - 1));
  const __m256i vw = _mm256_set1_epi32(width);
  const __m256i firstFour = _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0);
  __m128 ss = _mm_setzero_ps(), sss = _mm_setzero_ps(), srs = _mm_setzero_ps();
  for (int i = 0; i < n; i += 8) {
    const int whole = n - i >= 8;
    const int live = whole ? 0xff : 0x0f;
    const __m256 dxs = whole ? _mm256_loadu_ps(dx + i) : _mm256_maskload_ps(dx + i, firstFour);
    const __m256 dys = whole ? _mm256_loadu_ps(dy + i) : _mm256_maskload_ps(dy + i, firstFour);
    const __m256 u = _mm256_add_ps(vpx, dxs);
    const __m256 v = _mm256_add_ps(vpy, dys);
    const __m256 hx = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(h0, u), _mm256_mul_ps(h1, v)), h2);
    const __m256 hy = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(h3, u), _mm256_mul_ps(h4, v)), h5);
    const __m256 hz = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(h6, u), _mm256_mul_ps(h7, v)), h8);
    if (checked && (_mm256_movemask_ps(_mm256_cmp_ps(hz, eps, _CMP_GT_OQ)) & live) != live) return PC_MAX_COST;
    const __m256 iz = _mm256_div_ps(one, hz);
    const __m256 sx = _mm256_sub_ps(_mm256_mul_ps(hx, iz), half);
    const __m256 sy = _mm256_sub_ps(_mm256_mul_ps(hy, iz), half);
    /* "Inside" tests, so that NaN coordinates count as outside. */
    if (checked) {
      const __m256 inside = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(sx, zero, _CMP_GE_OQ), _mm256_cmp_ps(sy, zero, _CMP_GE_OQ)),
                                          _mm256_and_ps(_mm256_cmp_ps(sx, maxX, _CMP_LT_OQ), _mm256_cmp_ps(sy, maxY, _CMP_LT_OQ)));
      if ((_mm256_movemask_ps(inside) & live) != live) return PC_MAX_COST;
    }
    const __m256 fx0 = _mm256_floor_ps(sx), fy0 = _mm256_floor_ps(sy);
    const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(fy0), vw), _mm256_cvttps_epi32(fx0));
    int32_t lanes[8];
    _mm256_storeu_si256((__m256i *)lanes, idx);
    __m128 a0, b0, c0, d0;
    pc_corners4(grey, width, lanes, &a0, &b0, &c0, &d0);
    __m256 a = _mm256_castps128_ps256(a0), b = _mm256_castps128_ps256(b0), c = _mm256_castps128_ps256(c0), d = _mm256_castps128_ps256(d0);
    if (whole) {
      __m128 a1, b1, c1, d1;
      pc_corners4(grey, width, lanes + 4, &a1, &b1, &c1, &d1);
      a = _mm256_insertf128_ps(a, a1, 1);
      b = _mm256_insertf128_ps(b, b1, 1);
      c = _mm256_insertf128_ps(c, c1, 1);
      d = _mm256_insertf128_ps(d, d1, 1);
    }
    const __m256 fx = _mm256_sub_ps(sx, fx0), fy = _mm256_sub_ps(sy, fy0);
    const __m256 top = _mm256_add_ps(a, _mm256_mul_ps(fx, _mm256_sub_ps(b, a)));
    const __m256 bottom = _mm256_add_ps(c, _mm256_mul_ps(fx, _mm256_sub_ps(d, c)));
    const __m256 val = _mm256_add_ps(top, _mm256_mul_ps(fy, _mm256_sub_ps(bottom, top)));
    const __m256 ws = whole ? _mm256_loadu_ps(w + i) : _mm256_maskload_ps(w + i, firstFour);
    const __m256 refs = whole ? _mm256_loadu_ps(ref + i) : _mm256_maskload_ps(ref + i, firstFour);
    const __m256 wv = _mm256_mul_ps(ws, val);
    const __m256 wvv = _mm256_mul_ps(wv, val);
    const __m256 wvr = _mm256_mul_ps(wv, refs);
    /* The groups of four in the wasm loop's order. */
    ss = _mm_add_ps(ss, _mm256_castps256_ps128(wv));
    sss = _mm_add_ps(sss, _mm256_castps256_ps128(wvv));
    srs = _mm_add_ps(srs, _mm256_castps256_ps128(wvr));
    if (whole) {
      ss = _mm_add_ps(ss, _mm256_extractf128_ps(wv, 1));
      sss = _mm_add_ps(sss, _mm256_extractf128_ps(wvv, 1));
      srs = _mm_add_ps(srs, _mm256_extractf128_ps(wvr, 1));
    }
  }
  return pc_finish(ss, sss, srs, win + 4 * n);
}

/*
 * Where the window's bounding box (win[4n+3..4n+6]: min dx, max dx, min dy, max dy) lands in the
 * source, with the arithmetic of the samples' warp: wasm/ncc.ts corners(), whose comment gives why
 * four corners inside put every sample inside.
 */
static inline int pc_corners(int width, int height, const float *win, int n, float px, float py, const float *h) {
  const float *box = win + 4 * n + 3;
  const __m128 u = _mm_add_ps(_mm_set1_ps(px), _mm_setr_ps(box[0], box[1], box[0], box[1]));
  const __m128 v = _mm_add_ps(_mm_set1_ps(py), _mm_setr_ps(box[2], box[2], box[3], box[3]));
  const __m128 hx = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(h[0]), u), _mm_mul_ps(_mm_set1_ps(h[1]), v)), _mm_set1_ps(h[2]));
  const __m128 hy = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(h[3]), u), _mm_mul_ps(_mm_set1_ps(h[4]), v)), _mm_set1_ps(h[5]));
  const __m128 hz = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(h[6]), u), _mm_mul_ps(_mm_set1_ps(h[7]), v)), _mm_set1_ps(h[8]));
  if (_mm_movemask_ps(_mm_cmpgt_ps(hz, _mm_set1_ps(1e-8f))) != 0xf) return PC_CORNER_OUTSIDE;
  const __m128 iz = _mm_div_ps(_mm_set1_ps(1.0f), hz);
  const __m128 half = _mm_set1_ps(0.5f), zero = _mm_setzero_ps();
  const __m128 sx = _mm_sub_ps(_mm_mul_ps(hx, iz), half);
  const __m128 sy = _mm_sub_ps(_mm_mul_ps(hy, iz), half);
  const __m128 maxX = _mm_set1_ps((float)(width - 1)), maxY = _mm_set1_ps((float)(height - 1));
  const __m128 inside = _mm_and_ps(_mm_and_ps(_mm_cmpge_ps(sx, zero), _mm_cmpge_ps(sy, zero)), _mm_and_ps(_mm_cmplt_ps(sx, maxX), _mm_cmplt_ps(sy, maxY)));
  if (_mm_movemask_ps(inside) != 0xf) return PC_CORNER_OUTSIDE;
  const __m128 m = _mm_set1_ps(PC_CORNER_MARGIN);
  const __m128 safe = _mm_and_ps(_mm_and_ps(_mm_cmpge_ps(sx, m), _mm_cmpge_ps(sy, m)),
                                 _mm_and_ps(_mm_and_ps(_mm_cmplt_ps(sx, _mm_sub_ps(maxX, m)), _mm_cmplt_ps(sy, _mm_sub_ps(maxY, m))), _mm_cmpgt_ps(hz, _mm_set1_ps(PC_CORNER_MIN_Z))));
  return _mm_movemask_ps(safe) == 0xf ? PC_CORNER_INSIDE : PC_CORNER_UNSURE;
}

/* Bytes of one source's entry in the table: i32 image address, width, height, quads' address; A (9 f64), b (3 f64). */
#define PC_SOURCE_ENTRY 112

/*
 * A plane hypothesis's cost against every source, wasm/ncc.ts planeCost to the bit: H = A + b·mᵀ
 * in float64 rounded to float32, each source's cost kept as float64 in `scratch`, then the mean of
 * the bestK lowest by the same selection. `memory` is the wasm kernel's linear memory; table, win
 * and scratch are byte addresses in it, and so is each source's quads' (its entry's fourth i32;
 * the wasm kernel reads the image itself, the first). Each source's cost tests the window's
 * corners first, then costs the window with or without the per-sample tests.
 * PC_PLANE_COST(isa, features, pixels) defines pc_plane_cost_<isa> on pc_window_cost_<isa>, which
 * reads the source at its entry's word `pixels`: 3, the quads (AVX-512), or 0, the image (AVX2).
 */
#define PC_PLANE_COST(isa, features, pixels)                                                                                                  \
  __attribute__((target(features))) static double pc_plane_cost_##isa(uint8_t *memory, uint32_t table, int sources, uint32_t win, int n, float px, \
                                                                      float py, double m0, double m1, double m2, int bestK, uint32_t scratch) { \
    const float *window = (const float *)(memory + win);                                                                                    \
    double *costs = (double *)(memory + scratch);                                                                                           \
    for (int j = 0; j < sources; j++) {                                                                                                     \
      const uint8_t *e = memory + table + (uint32_t)j * PC_SOURCE_ENTRY;                                                                    \
      int32_t at[4];                                                                                                                        \
      double ab[12];                                                                                                                        \
      memcpy(at, e, sizeof at);                                                                                                             \
      memcpy(ab, e + 16, sizeof ab);                                                                                                        \
      const double b0 = ab[9], b1 = ab[10], b2 = ab[11];                                                                                    \
      const float h[9] = {                                                                                                                  \
          (float)(ab[0] + b0 * m0), (float)(ab[1] + b0 * m1), (float)(ab[2] + b0 * m2),                                                     \
          (float)(ab[3] + b1 * m0), (float)(ab[4] + b1 * m1), (float)(ab[5] + b1 * m2),                                                     \
          (float)(ab[6] + b2 * m0), (float)(ab[7] + b2 * m1), (float)(ab[8] + b2 * m2),                                                     \
      };                                                                                                                                    \
      const float *source = (const float *)(memory + (uint32_t)at[pixels]);                                                                 \
      const int where = pc_corners(at[1], at[2], window, n, px, py, h);                                                                     \
      costs[j] = where == PC_CORNER_OUTSIDE ? (double)PC_MAX_COST                                                                           \
                                            : (double)pc_window_cost_##isa(where != PC_CORNER_INSIDE, source, at[1], at[2], window, n, px, py, h); \
    }                                                                                                                                       \
    const int count = bestK < sources ? bestK : sources;                                                                                    \
    if (count <= 0) return (double)PC_MAX_COST;                                                                                             \
    double sum = 0;                                                                                                                         \
    for (int i = 0; i < count; i++) {                                                                                                       \
      int best = i;                                                                                                                         \
      for (int j = i + 1; j < sources; j++)                                                                                                 \
        if (costs[j] < costs[best]) best = j;                                                                                               \
      const double value = costs[best];                                                                                                     \
      costs[best] = costs[i];                                                                                                               \
      costs[i] = value;                                                                                                                     \
      sum += value;                                                                                                                         \
    }                                                                                                                                       \
    return sum / (double)count;                                                                                                             \
  }

PC_PLANE_COST(avx512, "avx512f,avx512dq", 3)
PC_PLANE_COST(avx2, "avx2", 0)

/* A plane cost of either width: the addon picks one per CPU (plane-cost.c). */
typedef double (*pc_plane_cost_fn)(uint8_t *memory, uint32_t table, int sources, uint32_t win, int n, float px, float py, double m0, double m1, double m2, int bestK, uint32_t scratch);

#endif
