/*
 * The exhaustive descriptor searches of matching's native addon (hamming.c), also compiled into
 * `npm run bench -- kernels`'s native reference (bench/native/hamming.c): nearest and
 * second-nearest neighbours both ways between two sets of 64-byte rows, with the bookkeeping of
 * ../wasm/hamming.ts, so every search here gives the WebAssembly kernel's outputs to the bit.
 * Each search carries its own target attribute, so one build holds all three and the caller
 * chooses by the CPU's features.
 */
#ifndef MATCHING_NATIVE_SEARCH_H
#define MATCHING_NATIVE_SEARCH_H
#include <stdint.h>
#include <string.h>
#ifdef __x86_64__
#include <immintrin.h>
#endif

typedef struct {
  uint32_t *outA, *bestB, *secondB;
  int32_t *argB;
} Result;

/* One distance's bookkeeping, as the wasm kernel's update and updateColumn. */
static inline void take(uint32_t d, int i, int j, uint32_t *d1, uint32_t *d2, int *j1, Result *r) {
  if (!(d < *d2 || d < r->secondB[j])) return;
  if (d < *d1) {
    *d2 = *d1;
    *d1 = d;
    *j1 = j;
  } else if (d < *d2) *d2 = d;
  if (d < r->bestB[j]) {
    r->secondB[j] = r->bestB[j];
    r->bestB[j] = d;
    r->argB[j] = i;
  } else if (d < r->secondB[j]) r->secondB[j] = d;
}

static void reset(Result *r, int countB) {
  for (int j = 0; j < countB; j++) {
    r->bestB[j] = r->secondB[j] = 0xffffffffu;
    r->argB[j] = -1;
  }
}

static inline void storeRow(Result *r, int i, uint32_t d1, uint32_t d2, int j1) {
  r->outA[3 * i] = d1;
  r->outA[3 * i + 1] = d2;
  r->outA[3 * i + 2] = (uint32_t)j1;
}

/* The rows come from JavaScript typed arrays, aligned to 4 bytes only: words are read through memcpy. */
static inline uint64_t word64(const uint8_t *row, int k) {
  uint64_t w;
  memcpy(&w, row + 8 * k, 8);
  return w;
}

#define SCALAR_SEARCH(name, attribute)                                                               \
  attribute static void name(const uint8_t *a, int countA, const uint8_t *b, int countB, Result *r) { \
    reset(r, countB);                                                                                 \
    for (int i = 0; i < countA; i++) {                                                                \
      const uint8_t *q = a + 64 * (size_t)i;                                                          \
      uint64_t q0 = word64(q, 0), q1 = word64(q, 1), q2 = word64(q, 2), q3 = word64(q, 3);            \
      uint64_t q4 = word64(q, 4), q5 = word64(q, 5), q6 = word64(q, 6), q7 = word64(q, 7);            \
      uint32_t d1 = 0xffffffffu, d2 = 0xffffffffu;                                                    \
      int j1 = -1;                                                                                    \
      for (int j = 0; j < countB; j++) {                                                              \
        const uint8_t *p = b + 64 * (size_t)j;                                                        \
        uint32_t d = (uint32_t)(__builtin_popcountll(q0 ^ word64(p, 0)) + __builtin_popcountll(q1 ^ word64(p, 1)) + \
                                __builtin_popcountll(q2 ^ word64(p, 2)) + __builtin_popcountll(q3 ^ word64(p, 3)) + \
                                __builtin_popcountll(q4 ^ word64(p, 4)) + __builtin_popcountll(q5 ^ word64(p, 5)) + \
                                __builtin_popcountll(q6 ^ word64(p, 6)) + __builtin_popcountll(q7 ^ word64(p, 7))); \
        take(d, i, j, &d1, &d2, &j1, r);                                                              \
      }                                                                                               \
      storeRow(r, i, d1, d2, j1);                                                                     \
    }                                                                                                 \
  }

/* Any CPU (the compiler's own popcount), and x86 with POPCNT. */
SCALAR_SEARCH(searchPortable, )
#ifdef __x86_64__
SCALAR_SEARCH(searchPopcnt, __attribute__((target("popcnt"))))

/*
 * Eight B rows at a time: eight XOR + VPOPCNTQ give eight rows' eight word counts, which
 * pairwise unpacks and two 128-bit-lane folds turn into one count per row, in row order.
 */
__attribute__((target("avx512f,avx512dq,avx512vpopcntdq,popcnt"))) static void searchAvx512(const uint8_t *a, int countA, const uint8_t *b, int countB, Result *r) {
  reset(r, countB);
  uint32_t d[8];
  for (int i = 0; i < countA; i++) {
    const uint8_t *q = a + 64 * (size_t)i;
    const __m512i row = _mm512_loadu_si512(q);
    uint32_t d1 = 0xffffffffu, d2 = 0xffffffffu;
    int j1 = -1;
    int j = 0;
    for (; j + 8 <= countB; j += 8) {
      __m512i c[8];
      for (int k = 0; k < 8; k++) c[k] = _mm512_popcnt_epi64(_mm512_xor_si512(row, _mm512_loadu_si512(b + 64 * (size_t)(j + k))));
      const __m512i s01 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[0], c[1]), _mm512_unpackhi_epi64(c[0], c[1]));
      const __m512i s23 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[2], c[3]), _mm512_unpackhi_epi64(c[2], c[3]));
      const __m512i s45 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[4], c[5]), _mm512_unpackhi_epi64(c[4], c[5]));
      const __m512i s67 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[6], c[7]), _mm512_unpackhi_epi64(c[6], c[7]));
      const __m512i t0123 = _mm512_add_epi64(_mm512_shuffle_i64x2(s01, s23, 0x88), _mm512_shuffle_i64x2(s01, s23, 0xdd));
      const __m512i t4567 = _mm512_add_epi64(_mm512_shuffle_i64x2(s45, s67, 0x88), _mm512_shuffle_i64x2(s45, s67, 0xdd));
      const __m512i rows = _mm512_add_epi64(_mm512_shuffle_i64x2(t0123, t4567, 0x88), _mm512_shuffle_i64x2(t0123, t4567, 0xdd));
      _mm256_storeu_si256((__m256i *)d, _mm512_cvtepi64_epi32(rows));
      for (int k = 0; k < 8; k++) take(d[k], i, j + k, &d1, &d2, &j1, r);
    }
    for (; j < countB; j++) {
      const uint8_t *p = b + 64 * (size_t)j;
      uint32_t dd = 0;
      for (int k = 0; k < 8; k++) dd += (uint32_t)__builtin_popcountll(word64(q, k) ^ word64(p, k));
      take(dd, i, j, &d1, &d2, &j1, r);
    }
    storeRow(r, i, d1, d2, j1);
  }
}
#endif

typedef void (*Search)(const uint8_t *, int, const uint8_t *, int, Result *);

#endif
