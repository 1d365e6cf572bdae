/*
 * Matching's exhaustive descriptor search in native code, for `npm run bench -- kernels`: the
 * searches of the stage's own addon (compute/stages/matching/native/search.h, the bookkeeping of
 * the wasm kernel, so every output must equal the WebAssembly kernel's to the bit), built here with
 * gcc -O3 -march=native as the tight reference:
 *   scalar: eight 64-bit XORs and POPCNTs per distance, as the wasm kernel does;
 *   avx512: one 512-bit XOR and VPOPCNTQ per distance, eight B rows summed at a time (only where
 *           the CPU has AVX-512 VPOPCNTDQ; WebAssembly has no 512-bit vectors).
 *
 * Input (little-endian): uint32 countA, countB; countA·64 bytes of A rows; countB·64 of B.
 * Usage: hamming <input> <rounds> <out prefix>; writes <prefix>-scalar.bin (and -avx512.bin)
 * as outA (3 u32 per A row), bestB, secondB, argB; prints "scalar <ms>" and "avx512 <ms>"
 * (the best round each), or "avx512 n/a".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../../compute/stages/matching/native/search.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

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

static double best_of(Search search, int rounds, const uint8_t *a, int countA, const uint8_t *b, int countB, Result *r) {
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
  uint8_t *a = aligned_alloc(64, 64 * (size_t)countA), *b = aligned_alloc(64, 64 * (size_t)countB);
  if (fread(a, 64, countA, f) != (size_t)countA || fread(b, 64, countB, f) != (size_t)countB) return 1;
  fclose(f);
  int rounds = atoi(argv[2]);
  Result r = {malloc(12 * (size_t)countA), malloc(4 * (size_t)countB), malloc(4 * (size_t)countB), malloc(4 * (size_t)countB)};
  printf("scalar %.3f\n", best_of(searchPopcnt, rounds, a, countA, b, countB, &r));
  write_result(argv[3], "scalar", &r, countA, countB);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq")) {
    printf("avx512 %.3f\n", best_of(searchAvx512, rounds, a, countA, b, countB, &r));
    write_result(argv[3], "avx512", &r, countA, countB);
  } else printf("avx512 n/a\n");
  return 0;
}
