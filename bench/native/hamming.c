/*
 * The matching stage's exhaustive descriptor search (compute/stages/matching/wasm/hamming.ts
 * nearestNeighbours) in C, for `npm run bench -- kernels`: nearest and second-nearest
 * neighbours both ways between two sets of 64-byte binary descriptors, with the same
 * bookkeeping (rows in order, a column's best taken by the first row that reaches it), so its
 * outputs must equal the WebAssembly kernel's to the bit. Two builds of the distance, both
 * with gcc -O3 -march=native:
 *   scalar: eight 64-bit XORs and POPCNTs per distance, as the wasm kernel does;
 *   avx512: one 512-bit XOR and VPOPCNTQ per distance, eight B rows summed at a time (only
 *           where the CPU has AVX-512 VPOPCNTDQ; WebAssembly has no 512-bit vectors).
 *
 * Input (little-endian): uint32 countA, countB; countA·64 bytes of A rows; countB·64 of B.
 * Usage: hamming <input> <rounds> <out prefix>; writes <prefix>-scalar.bin (and -avx512.bin)
 * as outA (3 u32 per A row), bestB, secondB, argB; prints "scalar <ms>" and "avx512 <ms>"
 * (the best round each), or "avx512 n/a".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __AVX512VPOPCNTDQ__
#include <immintrin.h>
#endif

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

typedef struct {
  uint32_t *outA, *bestB, *secondB;
  int32_t *argB;
} Result;

/* The bookkeeping of one distance, as the wasm kernel's update/updateColumn. */
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

static inline void store_row(Result *r, int i, uint32_t d1, uint32_t d2, int j1) {
  r->outA[3 * i] = d1;
  r->outA[3 * i + 1] = d2;
  r->outA[3 * i + 2] = (uint32_t)j1;
}

__attribute__((optimize("no-tree-vectorize"))) static void nn_scalar(const uint64_t *a, int countA, const uint64_t *b, int countB, Result *r) {
  reset(r, countB);
  for (int i = 0; i < countA; i++) {
    const uint64_t *q = a + 8 * i;
    uint32_t d1 = 0xffffffffu, d2 = 0xffffffffu;
    int j1 = -1;
    for (int j = 0; j < countB; j++) {
      const uint64_t *p = b + 8 * j;
      uint32_t d = 0;
      for (int k = 0; k < 8; k++) d += (uint32_t)__builtin_popcountll(q[k] ^ p[k]);
      take(d, i, j, &d1, &d2, &j1, r);
    }
    store_row(r, i, d1, d2, j1);
  }
}

#ifdef __AVX512VPOPCNTDQ__
static void nn_avx512(const uint64_t *a, int countA, const uint64_t *b, int countB, Result *r) {
  reset(r, countB);
  uint32_t d[8];
  for (int i = 0; i < countA; i++) {
    const __m512i q = _mm512_loadu_si512(a + 8 * i);
    uint32_t d1 = 0xffffffffu, d2 = 0xffffffffu;
    int j1 = -1;
    int j = 0;
    for (; j + 8 <= countB; j += 8) {
      __m512i c[8];
      for (int k = 0; k < 8; k++) c[k] = _mm512_popcnt_epi64(_mm512_xor_si512(q, _mm512_loadu_si512(b + 8 * (j + k))));
      /* Eight rows' eight counts to one count per row: pairwise unpacks, then a 512 → 256 fold. */
      __m512i s01 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[0], c[1]), _mm512_unpackhi_epi64(c[0], c[1]));
      __m512i s23 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[2], c[3]), _mm512_unpackhi_epi64(c[2], c[3]));
      __m512i s45 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[4], c[5]), _mm512_unpackhi_epi64(c[4], c[5]));
      __m512i s67 = _mm512_add_epi64(_mm512_unpacklo_epi64(c[6], c[7]), _mm512_unpackhi_epi64(c[6], c[7]));
      /* s01 lanes: (row0, row1) per 128-bit quarter; sum the four quarters of each. */
      __m512i lo = _mm512_shuffle_i64x2(s01, s23, 0x88), hi = _mm512_shuffle_i64x2(s01, s23, 0xdd);
      __m512i t0123 = _mm512_add_epi64(lo, hi);
      lo = _mm512_shuffle_i64x2(s45, s67, 0x88);
      hi = _mm512_shuffle_i64x2(s45, s67, 0xdd);
      __m512i t4567 = _mm512_add_epi64(lo, hi);
      lo = _mm512_shuffle_i64x2(t0123, t4567, 0x88);
      hi = _mm512_shuffle_i64x2(t0123, t4567, 0xdd);
      __m512i rows = _mm512_add_epi64(lo, hi); /* lanes: r0 r1 r2 r3 r4 r5 r6 r7 in 128-bit pairs */
      _mm256_storeu_si256((__m256i *)d, _mm512_cvtepi64_epi32(rows));
      for (int k = 0; k < 8; k++) take(d[k], i, j + k, &d1, &d2, &j1, r);
    }
    for (; j < countB; j++) {
      const uint64_t *p = b + 8 * j;
      uint32_t dd = 0;
      for (int k = 0; k < 8; k++) dd += (uint32_t)__builtin_popcountll(a[8 * i + k] ^ p[k]);
      take(dd, i, j, &d1, &d2, &j1, r);
    }
    store_row(r, i, d1, d2, j1);
  }
}
#endif

static void write_result(const char *prefix, const char *name, const Result *r, int countA, int countB) {
  char file[4096];
  snprintf(file, sizeof file, "%s-%s.bin", prefix, name);
  FILE *f = fopen(file, "wb");
  if (!f) {
    perror(file);
    exit(1);
  }
  fwrite(r->outA, 4, 3 * (size_t)countA, f);
  fwrite(r->bestB, 4, countB, f);
  fwrite(r->secondB, 4, countB, f);
  fwrite(r->argB, 4, countB, f);
  fclose(f);
}

typedef void (*Search)(const uint64_t *, int, const uint64_t *, int, Result *);

static double best_of(Search search, int rounds, const uint64_t *a, int countA, const uint64_t *b, int countB, Result *r) {
  double best = 1e300;
  for (int k = 0; k < rounds; k++) {
    double t = now_ms();
    search(a, countA, b, countB, r);
    double ms = now_ms() - t;
    if (ms < best) best = ms;
  }
  return best;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: hamming <input> <rounds> <out prefix>\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  uint32_t counts[2];
  if (fread(counts, 4, 2, f) != 2) return 1;
  int countA = (int)counts[0], countB = (int)counts[1];
  uint64_t *a = aligned_alloc(64, 64 * (size_t)countA), *b = aligned_alloc(64, 64 * (size_t)countB);
  if (fread(a, 64, countA, f) != (size_t)countA || fread(b, 64, countB, f) != (size_t)countB) return 1;
  fclose(f);
  int rounds = atoi(argv[2]);
  Result r = {malloc(12 * (size_t)countA), malloc(4 * (size_t)countB), malloc(4 * (size_t)countB), malloc(4 * (size_t)countB)};
  printf("scalar %.3f\n", best_of(nn_scalar, rounds, a, countA, b, countB, &r));
  write_result(argv[3], "scalar", &r, countA, countB);
#ifdef __AVX512VPOPCNTDQ__
  printf("avx512 %.3f\n", best_of(nn_avx512, rounds, a, countA, b, countB, &r));
  write_result(argv[3], "avx512", &r, countA, countB);
#else
  printf("avx512 n/a\n");
#endif
  return 0;
}
