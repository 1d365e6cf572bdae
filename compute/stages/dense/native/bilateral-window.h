/*
 * PatchMatch's reference window (../patchmatch-state.ts buildWindow, for a window clear of the
 * image border) in C, to the bits of the TypeScript: the grey values under the window's samples,
 * their bilateral weights spatial × exp(−Δ²·s) rounded to float32 (../bilateral-weight.ts), the
 * weighted sums in float64 in the samples' order, and the statistics the cost kernel reads.
 *
 * Why it gives the same bits: the sums and statistics are the same float64 operations in the same
 * order (the addon is built with -ffp-contract=off, so no fused multiply-add). A weight is the
 * TypeScript's table entry exp(−k/N) (the same table, made by Math.exp and placed in the wasm
 * memory) times the same polynomial, and it is kept only when the product nudged 1e-12 down and
 * up rounds to one float32; then any value within 1e-12 of the exact product, Math.exp's included,
 * rounds to it. Where the two roundings differ (a product next to a halfway point between two
 * floats, about 1 sample in 2,000) the window is left to the TypeScript, which calls Math.exp:
 * C's exp() need not give V8's bits. Beyond the table (Δ²·s ≥ 16) the entry exp(−16) is
 * multiplied in once per 16, still well within 1e-12; from Δ²·s ≥ 106 the weight is +0 in both,
 * since exp(−106) ≈ 9e-47 is below half the smallest float32 and the spatial part is at most 1.
 */
#ifndef BILATERAL_WINDOW_H
#define BILATERAL_WINDOW_H

#include <immintrin.h>
#include <stdint.h>

/* ../bilateral-weight.ts STEPS_PER_UNIT, TABLE_UNITS and GUARD. */
#define BW_STEPS 1024
#define BW_LIMIT (BW_STEPS * 16)
#define BW_GUARD 1e-12
/* Δ²·s from which the weight is +0 (see above). */
#define BW_ZERO_FROM 106.0
/* ../kernel.ts MIN_VARIANCE as float32. */
#define BW_MIN_VARIANCE 1e-5f

enum { BW_BUILT = 0, BW_FLAT = 1, BW_TYPESCRIPT = 2 };

/* The weight as bilateral-weight.ts gives it, into *weight; 0 where only Math.exp can decide. */
static inline int bw_weight(float spatial, double difference, double colourScale, const double *table, float *weight) {
  const double t = difference * difference * colourScale * BW_STEPS;
  if (!(t >= 0) || !(spatial >= 0.0f && spatial <= 1.0f)) return 0;
  if (t >= BW_ZERO_FROM * BW_STEPS) {
    *weight = 0.0f;
    return 1;
  }
  double rest = t;
  double tail = 1.0;
  while (rest >= BW_LIMIT) {
    rest -= BW_LIMIT;
    tail *= table[BW_LIMIT];
  }
  const int k = (int)rest;
  const double r = (rest - k) * (1.0 / BW_STEPS);
  double e = table[k] * (1 - r * (1 - r * (0.5 - r * (1.0 / 6 - r * (1.0 / 24)))));
  if (tail != 1.0) e *= tail;
  const double product = (double)spatial * e;
  const float low = (float)(product * (1 - BW_GUARD));
  if (low != (float)(product * (1 + BW_GUARD))) return 0;
  *weight = low;
  return 1;
}

/* exp(−16)^j for j = 0…6, each the product of the last and exp(−16) as bw_weight's loop makes it. */
static inline void bw_tail_powers(const double *table, double *powers) {
  powers[0] = 1.0;
  for (int j = 1; j < 7; j++) powers[j] = powers[j - 1] * table[BW_LIMIT];
}

/*
 * Eight samples' weights at once, to bw_weight's bits: the grey values under them into ref, their
 * weights into weight; 0 where a live lane only Math.exp can decide. `live` masks the samples
 * present.
 */
__attribute__((target("avx512f,avx512dq,avx512vl"))) static inline int bw_weights8(__mmask8 live, const float *grey, int pixels, int centreIndex, int width, double centre, const float *dx, const float *dy, const float *spatial, const double *table, const double *powers, double colourScale, float *ref, float *weight) {
  const __m256i offset = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(_mm256_maskz_loadu_ps(live, dy)), _mm256_set1_epi32(width)), _mm256_cvttps_epi32(_mm256_maskz_loadu_ps(live, dx)));
  const __m256i index = _mm256_add_epi32(offset, _mm256_set1_epi32(centreIndex));
  /* The offsets are the caller's: a sample outside the image is left to the TypeScript, never read. */
  if ((_mm256_cmpge_epi32_mask(index, _mm256_setzero_si256()) & _mm256_cmplt_epi32_mask(index, _mm256_set1_epi32(pixels)) & live) != live) return 0;
  const __m256 grey8 = _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), live, index, grey, 4);
  const __m256 spatial8 = _mm256_maskz_loadu_ps(live, spatial);
  const __m512d difference = _mm512_sub_pd(_mm512_cvtps_pd(grey8), _mm512_set1_pd(centre));
  const __m512d t = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(difference, difference), _mm512_set1_pd(colourScale)), _mm512_set1_pd(BW_STEPS));
  const __mmask8 zero = _mm512_cmp_pd_mask(t, _mm512_set1_pd(BW_ZERO_FROM * BW_STEPS), _CMP_GE_OQ);
  /* Whole 16s of Δ²·s (at most 6 below the zero bound; clamped so every lane's lookups stay in the tables). */
  const __m512d chunks = _mm512_min_pd(_mm512_roundscale_pd(_mm512_mul_pd(t, _mm512_set1_pd(1.0 / BW_LIMIT)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), _mm512_set1_pd(6));
  const __m512d rest = _mm512_sub_pd(t, _mm512_mul_pd(chunks, _mm512_set1_pd(BW_LIMIT)));
  const __m256i k = _mm256_max_epi32(_mm256_min_epi32(_mm512_cvttpd_epi32(rest), _mm256_set1_epi32(BW_LIMIT)), _mm256_setzero_si256());
  const __m512d r = _mm512_mul_pd(_mm512_sub_pd(rest, _mm512_cvtepi32_pd(k)), _mm512_set1_pd(1.0 / BW_STEPS));
  const __m512d one = _mm512_set1_pd(1.0);
  __m512d poly = _mm512_sub_pd(_mm512_set1_pd(1.0 / 6), _mm512_mul_pd(r, _mm512_set1_pd(1.0 / 24)));
  poly = _mm512_sub_pd(_mm512_set1_pd(0.5), _mm512_mul_pd(r, poly));
  poly = _mm512_sub_pd(one, _mm512_mul_pd(r, poly));
  poly = _mm512_sub_pd(one, _mm512_mul_pd(r, poly));
  const __m512d entry = _mm512_i32gather_pd(k, table, 8);
  const __m512d power = _mm512_i32gather_pd(_mm512_cvttpd_epi32(_mm512_max_pd(chunks, _mm512_setzero_pd())), powers, 8);
  const __m512d e = _mm512_mul_pd(_mm512_mul_pd(entry, poly), power);
  const __m512d product = _mm512_mul_pd(_mm512_cvtps_pd(spatial8), e);
  const __m256 low = _mm512_cvtpd_ps(_mm512_mul_pd(product, _mm512_set1_pd(1 - BW_GUARD)));
  const __m256 high = _mm512_cvtpd_ps(_mm512_mul_pd(product, _mm512_set1_pd(1 + BW_GUARD)));
  const __mmask8 agree = _mm256_cmp_ps_mask(low, high, _CMP_EQ_OQ);
  const __mmask8 ordered = _mm512_cmp_pd_mask(t, _mm512_setzero_pd(), _CMP_GE_OQ);
  const __mmask8 spatialOk = _mm256_cmp_ps_mask(spatial8, _mm256_setzero_ps(), _CMP_GE_OQ) & _mm256_cmp_ps_mask(spatial8, _mm256_set1_ps(1.0f), _CMP_LE_OQ);
  if ((live & ordered & spatialOk & (zero | agree)) != live) return 0;
  _mm256_mask_storeu_ps(ref, live, grey8);
  _mm256_mask_storeu_ps(weight, live, _mm256_maskz_mov_ps((__mmask8)~zero, low));
  return 1;
}

/* The window's statistics from its built samples, as the cost kernel reads them (bw_build's last step). */
static inline int bw_statistics(float *win, int n, int samples, int reach, double *variance) {
  const float *ref = win + 2 * n, *weight = win + 3 * n;
  double sumW = 0, sumWR = 0, sumWRR = 0;
  for (int i = 0; i < samples; i++) {
    const float w = weight[i];
    const double v = ref[i];
    sumW += w;
    sumWR += w * v;
    sumWRR += w * v * v;
  }
  const double invWeight = 1 / sumW;
  const double mean = sumWR * invWeight;
  const double var = sumWRR * invWeight - mean * mean;
  float *stats = win + 4 * n;
  stats[0] = (float)invWeight;
  stats[1] = (float)mean;
  stats[2] = (float)var;
  stats[3] = (float)-reach;
  stats[4] = (float)reach;
  stats[5] = (float)-reach;
  stats[6] = (float)reach;
  *variance = var;
  return stats[2] < BW_MIN_VARIANCE ? BW_FLAT : BW_BUILT;
}

/*
 * The window at (col, row) of the grey image (row-major, `width` wide), whose sample offsets are
 * already in win's dx, dy (a sample outside the image leaves the window to the caller). win: dx[n]
 * dy[n] ref[n] weight[n], then 1/Σw, mean, variance and the box −reach…reach, as the cost kernel
 * reads them. *variance gets the float64 variance. BW_TYPESCRIPT: a weight only Math.exp decides;
 * nothing the caller reads was finished, and it builds the window itself. The weights run eight
 * wide (one sample's takes ~35 cycles of latency); the sums then run in the samples' order.
 */
__attribute__((target("avx512f,avx512dq,avx512vl"))) static int bw_build(const float *grey, int width, int height, int col, int row, const float *spatial, int samples, float *win, int n, const double *table, const double *powers, double colourScale, int reach, double *variance) {
  const float *dx = win, *dy = win + n;
  float *ref = win + 2 * n, *weight = win + 3 * n;
  const int centreIndex = row * width + col;
  const double centre = grey[centreIndex];
  for (int i = 0; i < samples; i += 8) {
    const int left = samples - i;
    const __mmask8 live = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
    if (!bw_weights8(live, grey, width * height, centreIndex, width, centre, dx + i, dy + i, spatial + i, table, powers, colourScale, ref + i, weight + i)) return BW_TYPESCRIPT;
  }
  return bw_statistics(win, n, samples, reach, variance);
}

/*
 * bw_weights8 with AVX2, for a CPU without AVX-512: the same operations lane by lane (the eight
 * float64 lanes as two halves of four), so the same bits.
 */
__attribute__((target("avx2"))) static inline int bw_weights8_avx2(int live, const float *grey, int pixels, int centreIndex, int width, double centre, const float *dx, const float *dy, const float *spatial, const double *table, const double *powers, double colourScale, float *ref, float *weight) {
  const __m256i liveLanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(live), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const int liveBits = (1 << live) - 1;
  const __m256i offset = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(_mm256_maskload_ps(dy, liveLanes)), _mm256_set1_epi32(width)), _mm256_cvttps_epi32(_mm256_maskload_ps(dx, liveLanes)));
  const __m256i index = _mm256_add_epi32(offset, _mm256_set1_epi32(centreIndex));
  /* The offsets are the caller's: a sample outside the image is left to the TypeScript, never read. */
  const __m256i inImage = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), index), _mm256_cmpgt_epi32(_mm256_set1_epi32(pixels), index));
  if ((_mm256_movemask_ps(_mm256_castsi256_ps(inImage)) & liveBits) != liveBits) return 0;
  const __m256 grey8 = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), grey, index, _mm256_castsi256_ps(liveLanes), 4);
  const __m256 spatial8 = _mm256_maskload_ps(spatial, liveLanes);
  int zero = 0, agree = 0, ordered = 0;
  __m128 lows[2];
  for (int part = 0; part < 2; part++) {
    const __m128 g = part ? _mm256_extractf128_ps(grey8, 1) : _mm256_castps256_ps128(grey8);
    const __m128 sp = part ? _mm256_extractf128_ps(spatial8, 1) : _mm256_castps256_ps128(spatial8);
    const __m256d difference = _mm256_sub_pd(_mm256_cvtps_pd(g), _mm256_set1_pd(centre));
    const __m256d t = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(difference, difference), _mm256_set1_pd(colourScale)), _mm256_set1_pd(BW_STEPS));
    zero |= _mm256_movemask_pd(_mm256_cmp_pd(t, _mm256_set1_pd(BW_ZERO_FROM * BW_STEPS), _CMP_GE_OQ)) << (4 * part);
    const __m256d chunks = _mm256_min_pd(_mm256_floor_pd(_mm256_mul_pd(t, _mm256_set1_pd(1.0 / BW_LIMIT))), _mm256_set1_pd(6));
    const __m256d rest = _mm256_sub_pd(t, _mm256_mul_pd(chunks, _mm256_set1_pd(BW_LIMIT)));
    const __m128i k = _mm_max_epi32(_mm_min_epi32(_mm256_cvttpd_epi32(rest), _mm_set1_epi32(BW_LIMIT)), _mm_setzero_si128());
    const __m256d r = _mm256_mul_pd(_mm256_sub_pd(rest, _mm256_cvtepi32_pd(k)), _mm256_set1_pd(1.0 / BW_STEPS));
    const __m256d one = _mm256_set1_pd(1.0);
    __m256d poly = _mm256_sub_pd(_mm256_set1_pd(1.0 / 6), _mm256_mul_pd(r, _mm256_set1_pd(1.0 / 24)));
    poly = _mm256_sub_pd(_mm256_set1_pd(0.5), _mm256_mul_pd(r, poly));
    poly = _mm256_sub_pd(one, _mm256_mul_pd(r, poly));
    poly = _mm256_sub_pd(one, _mm256_mul_pd(r, poly));
    const __m256d entry = _mm256_i32gather_pd(table, k, 8);
    const __m256d power = _mm256_i32gather_pd(powers, _mm256_cvttpd_epi32(_mm256_max_pd(chunks, _mm256_setzero_pd())), 8);
    const __m256d e = _mm256_mul_pd(_mm256_mul_pd(entry, poly), power);
    const __m256d product = _mm256_mul_pd(_mm256_cvtps_pd(sp), e);
    const __m128 low = _mm256_cvtpd_ps(_mm256_mul_pd(product, _mm256_set1_pd(1 - BW_GUARD)));
    const __m128 high = _mm256_cvtpd_ps(_mm256_mul_pd(product, _mm256_set1_pd(1 + BW_GUARD)));
    agree |= _mm_movemask_ps(_mm_cmpeq_ps(low, high)) << (4 * part);
    ordered |= _mm256_movemask_pd(_mm256_cmp_pd(t, _mm256_setzero_pd(), _CMP_GE_OQ)) << (4 * part);
    lows[part] = low;
  }
  const int spatialOk = _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(spatial8, _mm256_setzero_ps(), _CMP_GE_OQ), _mm256_cmp_ps(spatial8, _mm256_set1_ps(1.0f), _CMP_LE_OQ)));
  if ((liveBits & ordered & spatialOk & (zero | agree)) != liveBits) return 0;
  const __m256 low8 = _mm256_insertf128_ps(_mm256_castps128_ps256(lows[0]), lows[1], 1);
  /* A zero lane's weight is +0, as bw_weights8's masked move makes it. */
  const __m256i zeroLanes = _mm256_cmpgt_epi32(_mm256_and_si256(_mm256_set1_epi32(zero), _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128)), _mm256_setzero_si256());
  _mm256_maskstore_ps(ref, liveLanes, grey8);
  _mm256_maskstore_ps(weight, liveLanes, _mm256_andnot_ps(_mm256_castsi256_ps(zeroLanes), low8));
  return 1;
}

/* bw_build with AVX2 (bw_weights8_avx2), for a CPU without AVX-512 VL: the same bits. */
__attribute__((target("avx2"))) static int bw_build_avx2(const float *grey, int width, int height, int col, int row, const float *spatial, int samples, float *win, int n, const double *table, const double *powers, double colourScale, int reach, double *variance) {
  const float *dx = win, *dy = win + n;
  float *ref = win + 2 * n, *weight = win + 3 * n;
  const int centreIndex = row * width + col;
  const double centre = grey[centreIndex];
  for (int i = 0; i < samples; i += 8) {
    const int left = samples - i;
    if (!bw_weights8_avx2(left >= 8 ? 8 : left, grey, width * height, centreIndex, width, centre, dx + i, dy + i, spatial + i, table, powers, colourScale, ref + i, weight + i)) return BW_TYPESCRIPT;
  }
  return bw_statistics(win, n, samples, reach, variance);
}

#endif
