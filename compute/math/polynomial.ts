/**
 * @module Real roots of univariate polynomials: eigenvalues of the balanced companion matrix
 * (the method of MATLAB's `roots`, Edelman & Murakami 1995), each real one polished by Newton's
 * method on the original polynomial.
 */
import { generalEigenvalues } from "./eigen-general.js";

/** p(x) for coefficients highest degree first: coeffs[0]·xⁿ + … + coeffs[n]. */
export function evaluatePolynomial(coeffs: ArrayLike<number>, x: number): number {
  let value = 0;
  for (let i = 0; i < coeffs.length; i++) value = value * x + coeffs[i];
  return value;
}

/** p(x) and p'(x) together by Horner's scheme. */
function evaluateWithDerivative(coeffs: ArrayLike<number>, x: number): [number, number] {
  let value = 0;
  let derivative = 0;
  for (let i = 0; i < coeffs.length; i++) {
    derivative = derivative * x + value;
    value = value * x + coeffs[i];
  }
  return [value, derivative];
}

/**
 * The real roots of a polynomial given highest degree first, ascending. Leading zero
 * coefficients are dropped (so a "cubic" with a zero leading term is solved as a quadratic).
 * `imagTolerance` is the largest |Im| (relative to 1 + |Re|) still treated as a real double root
 * split by rounding.
 */
export function realRoots(coeffs: ArrayLike<number>, imagTolerance = 1e-8): Float64Array {
  let first = 0;
  let scale = 0;
  for (let i = 0; i < coeffs.length; i++) scale = Math.max(scale, Math.abs(coeffs[i]));
  if (scale === 0) return new Float64Array(0);
  while (first < coeffs.length && Math.abs(coeffs[first]) <= 1e-14 * scale) first++;
  const degree = coeffs.length - 1 - first;
  if (degree < 1) return new Float64Array(0);
  const lead = coeffs[first];
  if (degree === 1) return new Float64Array([-coeffs[first + 1] / lead]);
  // Companion matrix: first row −c[1..n]/c[0], ones on the subdiagonal.
  const companion = new Float64Array(degree * degree);
  for (let j = 0; j < degree; j++) companion[j] = -coeffs[first + 1 + j] / lead;
  for (let i = 1; i < degree; i++) companion[i * degree + i - 1] = 1;
  const eig = generalEigenvalues(companion, degree);
  if (!eig) return new Float64Array(0);
  const trimmed = Array.prototype.slice.call(coeffs, first) as number[];
  const roots: number[] = [];
  for (let i = 0; i < degree; i++) {
    if (Math.abs(eig.imag[i]) > imagTolerance * (1 + Math.abs(eig.real[i]))) continue;
    roots.push(polishRoot(trimmed, eig.real[i]));
  }
  return Float64Array.from(roots.sort((a, b) => a - b));
}

/** A few Newton steps, kept only while they reduce |p|. */
function polishRoot(coeffs: ArrayLike<number>, x0: number): number {
  let x = x0;
  let [value, derivative] = evaluateWithDerivative(coeffs, x);
  for (let iter = 0; iter < 8 && value !== 0 && derivative !== 0; iter++) {
    const next = x - value / derivative;
    const [nextValue, nextDerivative] = evaluateWithDerivative(coeffs, next);
    if (!(Math.abs(nextValue) < Math.abs(value))) break;
    x = next;
    value = nextValue;
    derivative = nextDerivative;
  }
  return x;
}
