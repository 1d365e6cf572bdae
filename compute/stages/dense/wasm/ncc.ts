/**
 * AssemblyScript (v128 SIMD) photometric cost of one plane hypothesis against one source image:
 * 1 − bilaterally weighted NCC over a strided window, the window warped into the source through
 * the plane-induced homography (Schönberger et al., ECCV 2016, eq. 2; Galliani et al., ICCV 2015).
 * Mirrors nccCostReference in ../kernel.ts, which the tests compare it against; four window
 * samples are processed per iteration; the bilinear gather uses one 64-bit load per pixel pair
 * (wasm has no gather instruction).
 *
 * Memory layout (byte addresses, f32 little endian), written by the host:
 *   src: width·height grey values, row-major;  win: dx[n] dy[n] ref[n] weight[n], n % 4 == 0,
 *   then the reference window's own statistics, fixed per pixel and so computed once by the
 *   host rather than per hypothesis and source: 1/Σw, weighted mean and variance of ref; then
 *   the samples' bounding box: min dx, max dx, min dy, max dy.
 * The bounding box's corners are tested first (corners()): a window wholly inside the source
 * skips the per-sample tests of its 13 groups of four samples (7×7 padded to 52).
 * `npm run bench -- kernels` holds this kernel against a native AVX2 build of the same cost.
 * Build: npx asc compute/stages/dense/wasm/ncc.ts -O3 --enable simd --runtime stub
 *        --noAssert -o compute/stages/dense/wasm/ncc.wasm
 */

const MAX_COST: f32 = 2.0;
const MIN_VARIANCE: f32 = 1e-5;

function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

/**
 * Cost of the window centred at (px, py) warped by H (h0..h8, row-major) into the source at
 * `src`. `checked` tests every sample (the plane may pass behind the source camera, the warp may
 * leave the image); the caller clears it once the window's four corners are safely inside.
 */
// @ts-ignore: decorator
@inline
function windowCost(checked: bool, src: usize, width: i32, height: i32, win: usize, n: i32, px: f32, py: f32, h0: f32, h1: f32, h2: f32, h3: f32, h4: f32, h5: f32, h6: f32, h7: f32, h8: f32): f32 {
  const dxP = win;
  const dyP = win + (<usize>n << 2);
  const refP = win + (<usize>n << 3);
  const wP = win + <usize>n * 12;
  const statsP = win + <usize>n * 16;
  const rowBytes = <usize>width << 2;
  const vPx = f32x4.splat(px);
  const vPy = f32x4.splat(py);
  const vH0 = f32x4.splat(h0);
  const vH1 = f32x4.splat(h1);
  const vH2 = f32x4.splat(h2);
  const vH3 = f32x4.splat(h3);
  const vH4 = f32x4.splat(h4);
  const vH5 = f32x4.splat(h5);
  const vH6 = f32x4.splat(h6);
  const vH7 = f32x4.splat(h7);
  const vH8 = f32x4.splat(h8);
  const half = f32x4.splat(0.5);
  const zero = f32x4.splat(0);
  const eps = f32x4.splat(1e-8);
  const one = f32x4.splat(1);
  const maxX = f32x4.splat(<f32>(width - 1));
  const maxY = f32x4.splat(<f32>(height - 1));
  const vW = i32x4.splat(width);
  let ss = zero;
  let sss = zero;
  let srs = zero;
  for (let i = 0; i < n; i += 4) {
    const off = <usize>i << 2;
    const u = f32x4.add(vPx, v128.load(dxP + off));
    const v = f32x4.add(vPy, v128.load(dyP + off));
    const hx = f32x4.add(f32x4.add(f32x4.mul(vH0, u), f32x4.mul(vH1, v)), vH2);
    const hy = f32x4.add(f32x4.add(f32x4.mul(vH3, u), f32x4.mul(vH4, v)), vH5);
    const hz = f32x4.add(f32x4.add(f32x4.mul(vH6, u), f32x4.mul(vH7, v)), vH8);
    if (checked && !i32x4.all_true(f32x4.gt(hz, eps))) return MAX_COST;
    const invZ = f32x4.div(one, hz);
    const sx = f32x4.sub(f32x4.mul(hx, invZ), half);
    const sy = f32x4.sub(f32x4.mul(hy, invZ), half);
    // Written as "inside" tests so that NaN coordinates count as outside.
    if (checked && !i32x4.all_true(v128.and(v128.and(f32x4.ge(sx, zero), f32x4.ge(sy, zero)), v128.and(f32x4.lt(sx, maxX), f32x4.lt(sy, maxY))))) return MAX_COST;
    const fx0 = f32x4.floor(sx);
    const fy0 = f32x4.floor(sy);
    const idx = i32x4.add(i32x4.mul(i32x4.trunc_sat_f32x4_s(fy0), vW), i32x4.trunc_sat_f32x4_s(fx0));
    const p0 = src + (<usize>i32x4.extract_lane(idx, 0) << 2);
    const p1 = src + (<usize>i32x4.extract_lane(idx, 1) << 2);
    const p2 = src + (<usize>i32x4.extract_lane(idx, 2) << 2);
    const p3 = src + (<usize>i32x4.extract_lane(idx, 3) << 2);
    // Each 64-bit load fetches a horizontal pixel pair (left, right); shuffles split them.
    const top01 = v128.load64_lane(p1, v128.load64_zero(p0), 1);
    const top23 = v128.load64_lane(p3, v128.load64_zero(p2), 1);
    const bot01 = v128.load64_lane(p1 + rowBytes, v128.load64_zero(p0 + rowBytes), 1);
    const bot23 = v128.load64_lane(p3 + rowBytes, v128.load64_zero(p2 + rowBytes), 1);
    const a = f32x4.shuffle(top01, top23, 0, 2, 4, 6);
    const b = f32x4.shuffle(top01, top23, 1, 3, 5, 7);
    const c = f32x4.shuffle(bot01, bot23, 0, 2, 4, 6);
    const d = f32x4.shuffle(bot01, bot23, 1, 3, 5, 7);
    const fx = f32x4.sub(sx, fx0);
    const fy = f32x4.sub(sy, fy0);
    const top = f32x4.add(a, f32x4.mul(fx, f32x4.sub(b, a)));
    const bottom = f32x4.add(c, f32x4.mul(fx, f32x4.sub(d, c)));
    const val = f32x4.add(top, f32x4.mul(fy, f32x4.sub(bottom, top)));
    const w = v128.load(wP + off);
    const r = v128.load(refP + off);
    const wv = f32x4.mul(w, val);
    ss = f32x4.add(ss, wv);
    sss = f32x4.add(sss, f32x4.mul(wv, val));
    srs = f32x4.add(srs, f32x4.mul(wv, r));
  }
  const inv = load<f32>(statsP);
  const meanR = load<f32>(statsP, 4);
  const varR = load<f32>(statsP, 8);
  const meanS = hsum(ss) * inv;
  const varS = hsum(sss) * inv - meanS * meanS;
  if (varR < MIN_VARIANCE || varS < MIN_VARIANCE) return MAX_COST;
  const cov = hsum(srs) * inv - meanR * meanS;
  let ncc = cov / Mathf.sqrt(varR * varS);
  ncc = Mathf.max(-1, Mathf.min(1, ncc));
  return 1 - ncc;
}

/** Pixels (and depth along z) a corner must clear for every sample between the corners to be inside without its own test. */
const CORNER_MARGIN: f32 = 0.01;
const CORNER_MIN_Z: f32 = 1e-3;
const CORNER_OUTSIDE: i32 = 0;
const CORNER_INSIDE: i32 = 1;
const CORNER_UNSURE: i32 = 2;

/**
 * Where the window's bounding box lands: its four corners are samples of the window (clamping at
 * the reference image's border is separable), z is affine in the pixel so positive at the corners
 * means positive inside, and a homography with positive z maps the box to a convex quadrilateral,
 * so corners inside the source image put every sample inside. A corner that fails is a sample
 * that fails: the window costs MAX_COST, as the per-sample tests would say. Corners within
 * CORNER_MARGIN of the border leave the per-sample tests on, against rounding.
 */
// @ts-ignore: decorator
@inline
function corners(width: i32, height: i32, win: usize, n: i32, px: f32, py: f32, h0: f32, h1: f32, h2: f32, h3: f32, h4: f32, h5: f32, h6: f32, h7: f32, h8: f32): i32 {
  const boxP = win + <usize>n * 16 + 12;
  const minDx = load<f32>(boxP);
  const maxDx = load<f32>(boxP, 4);
  const minDy = load<f32>(boxP, 8);
  const maxDy = load<f32>(boxP, 12);
  const u = f32x4.add(f32x4.splat(px), f32x4(minDx, maxDx, minDx, maxDx));
  const v = f32x4.add(f32x4.splat(py), f32x4(minDy, minDy, maxDy, maxDy));
  // The same arithmetic as windowCost's, so a corner gets the coordinates its sample gets there.
  const hx = f32x4.add(f32x4.add(f32x4.mul(f32x4.splat(h0), u), f32x4.mul(f32x4.splat(h1), v)), f32x4.splat(h2));
  const hy = f32x4.add(f32x4.add(f32x4.mul(f32x4.splat(h3), u), f32x4.mul(f32x4.splat(h4), v)), f32x4.splat(h5));
  const hz = f32x4.add(f32x4.add(f32x4.mul(f32x4.splat(h6), u), f32x4.mul(f32x4.splat(h7), v)), f32x4.splat(h8));
  if (!i32x4.all_true(f32x4.gt(hz, f32x4.splat(1e-8)))) return CORNER_OUTSIDE;
  const invZ = f32x4.div(f32x4.splat(1), hz);
  const half = f32x4.splat(0.5);
  const sx = f32x4.sub(f32x4.mul(hx, invZ), half);
  const sy = f32x4.sub(f32x4.mul(hy, invZ), half);
  const zero = f32x4.splat(0);
  const maxX = f32x4.splat(<f32>(width - 1));
  const maxY = f32x4.splat(<f32>(height - 1));
  if (!i32x4.all_true(v128.and(v128.and(f32x4.ge(sx, zero), f32x4.ge(sy, zero)), v128.and(f32x4.lt(sx, maxX), f32x4.lt(sy, maxY))))) return CORNER_OUTSIDE;
  const m = f32x4.splat(CORNER_MARGIN);
  const safe = v128.and(
    v128.and(f32x4.ge(sx, m), f32x4.ge(sy, m)),
    v128.and(v128.and(f32x4.lt(sx, f32x4.sub(maxX, m)), f32x4.lt(sy, f32x4.sub(maxY, m))), f32x4.gt(hz, f32x4.splat(CORNER_MIN_Z))),
  );
  return i32x4.all_true(safe) ? CORNER_INSIDE : CORNER_UNSURE;
}

// @ts-ignore: decorator
@inline
function testedCost(src: usize, width: i32, height: i32, win: usize, n: i32, px: f32, py: f32, h0: f32, h1: f32, h2: f32, h3: f32, h4: f32, h5: f32, h6: f32, h7: f32, h8: f32): f32 {
  const where = corners(width, height, win, n, px, py, h0, h1, h2, h3, h4, h5, h6, h7, h8);
  if (where == CORNER_OUTSIDE) return MAX_COST;
  if (where == CORNER_INSIDE) return windowCost(false, src, width, height, win, n, px, py, h0, h1, h2, h3, h4, h5, h6, h7, h8);
  return windowCost(true, src, width, height, win, n, px, py, h0, h1, h2, h3, h4, h5, h6, h7, h8);
}

/** One source's cost: the window's statistics and bounding box follow its samples (see the module comment). */
export function nccCost(src: usize, width: i32, height: i32, win: usize, n: i32, px: f32, py: f32, h0: f32, h1: f32, h2: f32, h3: f32, h4: f32, h5: f32, h6: f32, h7: f32, h8: f32): f32 {
  return testedCost(src, width, height, win, n, px, py, h0, h1, h2, h3, h4, h5, h6, h7, h8);
}

/** Bytes of one source's entry in the table planeCost reads. */
const SOURCE_ENTRY: usize = 112;

/**
 * Cost of one plane hypothesis against every source: the mean of the `bestK` lowest source costs
 * (Gipuma §3.1), with each source's homography H = A + b·mᵀ built here from its fixed part A
 * (K_s·R·K_r⁻¹) and b (K_s·t) and the plane's m = nᵀ·K_r⁻¹/ρ. One call per hypothesis instead
 * of one per source. H is formed in float64 and rounded to float32, and the best costs summed in
 * float64 in the same order, as the TypeScript path does, so both give the same bits.
 *
 * Table at `table`, SOURCE_ENTRY bytes per source: i32 image address, width, height, (pad), then
 * A (9 f64, row-major) and b (3 f64). `scratch`: 8 bytes per source.
 */
export function planeCost(table: usize, sources: i32, win: usize, n: i32, px: f32, py: f32, m0: f64, m1: f64, m2: f64, bestK: i32, scratch: usize): f64 {
  for (let j = 0; j < sources; j++) {
    const e = table + <usize>j * SOURCE_ENTRY;
    const a = e + 16;
    const b0 = load<f64>(a, 72);
    const b1 = load<f64>(a, 80);
    const b2 = load<f64>(a, 88);
    const cost = testedCost(
      <usize>load<i32>(e), load<i32>(e, 4), load<i32>(e, 8), win, n, px, py,
      <f32>(load<f64>(a) + b0 * m0), <f32>(load<f64>(a, 8) + b0 * m1), <f32>(load<f64>(a, 16) + b0 * m2),
      <f32>(load<f64>(a, 24) + b1 * m0), <f32>(load<f64>(a, 32) + b1 * m1), <f32>(load<f64>(a, 40) + b1 * m2),
      <f32>(load<f64>(a, 48) + b2 * m0), <f32>(load<f64>(a, 56) + b2 * m1), <f32>(load<f64>(a, 64) + b2 * m2),
    );
    store<f64>(scratch + (<usize>j << 3), <f64>cost);
  }
  // Selection of the bestK lowest, as meanOfBest in ../kernel.ts.
  const count = min(bestK, sources);
  if (count <= 0) return <f64>MAX_COST;
  let sum: f64 = 0;
  for (let i = 0; i < count; i++) {
    let best = i;
    for (let j = i + 1; j < sources; j++) if (load<f64>(scratch + (<usize>j << 3)) < load<f64>(scratch + (<usize>best << 3))) best = j;
    const value = load<f64>(scratch + (<usize>best << 3));
    store<f64>(scratch + (<usize>best << 3), load<f64>(scratch + (<usize>i << 3)));
    store<f64>(scratch + (<usize>i << 3), value);
    sum += value;
  }
  return sum / <f64>count;
}
