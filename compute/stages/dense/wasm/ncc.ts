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
 *   host rather than per hypothesis and source: 1/Σw, weighted mean and variance of ref.
 * Build: npx asc compute/stages/dense/wasm/ncc.ts -O3 --enable simd --runtime stub
 *        --noAssert -o compute/stages/dense/wasm/ncc.wasm
 */

const MAX_COST: f32 = 2.0;
const MIN_VARIANCE: f32 = 1e-5;

function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

export function nccCost(src: usize, width: i32, height: i32, win: usize, n: i32, px: f32, py: f32, h0: f32, h1: f32, h2: f32, h3: f32, h4: f32, h5: f32, h6: f32, h7: f32, h8: f32): f32 {
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
    if (!i32x4.all_true(f32x4.gt(hz, eps))) return MAX_COST;
    const invZ = f32x4.div(one, hz);
    const sx = f32x4.sub(f32x4.mul(hx, invZ), half);
    const sy = f32x4.sub(f32x4.mul(hy, invZ), half);
    // Written as "inside" tests so that NaN coordinates count as outside.
    const inside = v128.and(v128.and(f32x4.ge(sx, zero), f32x4.ge(sy, zero)), v128.and(f32x4.lt(sx, maxX), f32x4.lt(sy, maxY)));
    if (!i32x4.all_true(inside)) return MAX_COST;
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
