/*
 * JavaScript's Math functions where an addon must give V8's bits (compute/stages/keypoints/native,
 * compute/stages/dense/native): Math.hypot as V8 computes it (the magnitudes normalised by the
 * largest, their squares Kahan-summed, sqrt of the sum times the largest; ∞ before NaN) and
 * Math.round (the nearest integer, halves up).
 */
#ifndef V8_MATH_H
#define V8_MATH_H

#include <math.h>

/* Math.hypot(values[0], …, values[count − 1]), count ≤ 8. */
static double v8Hypot(const double *values, int count) {
  double magnitudes[8];
  double max = 0;
  int anyNaN = 0;
  for (int i = 0; i < count; i++) {
    if (isnan(values[i])) {
      anyNaN = 1;
      magnitudes[i] = 0;
      continue;
    }
    magnitudes[i] = fabs(values[i]);
    if (magnitudes[i] > max) max = magnitudes[i];
  }
  if (max == INFINITY) return INFINITY;
  if (anyNaN) return NAN;
  if (max == 0) return 0;
  double sum = 0, compensation = 0;
  for (int i = 0; i < count; i++) {
    const double n = magnitudes[i] / max;
    const double summand = n * n - compensation;
    const double preliminary = sum + summand;
    compensation = (preliminary - sum) - summand;
    sum = preliminary;
  }
  return sqrt(sum) * max;
}

/* Math.round of a finite number: x − floor(x) is exact in binary floating point. */
static double jsRound(double x) {
  const double down = floor(x);
  return x - down >= 0.5 ? down + 1 : down;
}

#endif
