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

/**
 * The real roots of c3·x³ + c2·x² + c1·x + c0, ascending, in closed form: the trigonometric
 * form when all three are real, Cardano's otherwise (Numerical Recipes, 3rd ed., §5.6), each
 * polished by Newton's method. The minimal solvers call this thousands of times per image
 * pair, where `realRoots`' companion-matrix eigenvalues cost about ten times more. A
 * complex pair whose imaginary part is below `imagTolerance`·(1 + |Re|) counts as a double
 * real root split by rounding, as in `realRoots`.
 */
export function cubicRealRoots(c3: number, c2: number, c1: number, c0: number, imagTolerance = 1e-8): number[] {
  const scale = Math.max(Math.abs(c3), Math.abs(c2), Math.abs(c1), Math.abs(c0));
  if (Math.abs(c3) <= 1e-14 * scale) return Array.from(realRoots([c3, c2, c1, c0], imagTolerance));
  const a = c2 / c3, b = c1 / c3, c = c0 / c3;
  const q = (a * a - 3 * b) / 9;
  const r = (2 * a * a * a - 9 * a * b + 27 * c) / 54;
  const shift = a / 3;
  const roots: number[] = [];
  if (r * r < q * q * q) {
    const theta = Math.acos(Math.max(-1, Math.min(1, r / Math.sqrt(q * q * q))));
    const m = -2 * Math.sqrt(q);
    roots.push(m * Math.cos(theta / 3) - shift, m * Math.cos((theta + 2 * Math.PI) / 3) - shift, m * Math.cos((theta - 2 * Math.PI) / 3) - shift);
  } else {
    const big = -Math.sign(r || 1) * Math.cbrt(Math.abs(r) + Math.sqrt(r * r - q * q * q));
    const small = big !== 0 ? q / big : 0;
    const real = big + small - shift;
    roots.push(real);
    const pairReal = -(big + small) / 2 - shift;
    if ((Math.sqrt(3) / 2) * Math.abs(big - small) <= imagTolerance * (1 + Math.abs(pairReal))) roots.push(pairReal);
  }
  const monic = [1, a, b, c];
  return roots.map((x) => polishRoot(monic, x)).sort((x, y) => x - y);
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
