/**
 * @module One pyramid level of PatchMatch (patchmatch.ts): each pixel's plane, its photometric
 * cost and the cost it is compared by (with a planar prior's share), updated by red–black
 * propagation and random refinement.
 */
import { createRng, gaussian, type Rng } from "../../math/random.js";
import { depthEdgeMask, frontalPlaneMask } from "./depth-edges.js";
import { createKernel, MAX_COST, releaseKernel, type CostKernel } from "./kernel.js";
import type { NativePlanes } from "./native-planes.js";
import type { NativeWindows } from "./native-window.js";
import type { PatchMatchInput, PatchMatchOutput, SourceCamera } from "./patchmatch-types.js";
import { agreesWithPrior, priorDepthAt, priorPenalty, type PriorRaster } from "./planar-prior.js";
import type { PinholeGrey } from "./undistort.js";
import { fillWindow, windowShape, type WindowShape } from "./window.js";

/** Cost (1 − NCC) above which a pixel of a seeded level is searched as on the coarsest level. */
const RESEARCH_COST = 0.3;

/** Neighbours of the opposite checkerboard colour: the 4 adjacent and 4 at distance 5 (Gipuma's fast pattern). */
const NEIGHBOURS: ReadonlyArray<readonly [number, number]> = [
  [-1, 0], [1, 0], [0, -1], [0, 1], [-5, 0], [5, 0], [0, -5], [0, 5],
];

export class PatchMatchState {
  private readonly width: number;
  private readonly height: number;
  private readonly margin: number;
  private readonly depth: Float32Array;
  private readonly normal: Float32Array;
  /** Photometric cost of each pixel's plane, and the cost it is compared by (plus the prior's share). */
  private readonly photo: Float32Array;
  private readonly cost: Float32Array;
  private prior: PriorRaster | null = null;
  private readonly kernel: CostKernel;
  /** 1/(2σ_colour²) of the bilateral weight. */
  private readonly colourScale: number;
  /** The window, and the narrower one of textured pixels on a refining level (null: none; PatchMatchParams.texturedWindow). */
  private readonly wide: WindowShape;
  private readonly narrow: WindowShape | null;
  /** Weighted grey variance from which a pixel takes the narrow window, and the lower one of the pixels `lowered` marks. */
  private readonly minNarrowVariance: number;
  private readonly minLoweredNarrowVariance: number;
  /** Per pixel, 1 where the lower variance holds: near a depth edge of the seeded planes and/or on a plane facing the camera (TexturedWindow.edge, .frontal); null: neither test. */
  private lowered: Uint8Array | null = null;
  /** The shape whose unclamped offsets the kernel's window holds (so an interior pixel need not write them). */
  private offsetsOf: WindowShape | null = null;
  private readonly rng: Rng;
  private readonly rayScratch = new Float64Array(3);
  /** Scratch normals of randomNormal and perturbNormal (one per sweep step was most of PatchMatch's garbage). */
  private readonly randomScratch = new Float64Array(3);
  private readonly perturbScratch = new Float64Array(3);
  private evaluations = 0;
  /** Pixels (of the figure box) `lowered` marks. */
  private edgePixels = 0;
  /** Per pixel, the sweep (numbered from 1 on this level) in which its plane last changed; 0: not since it was set. */
  private readonly changedIn: Int32Array;
  private sweepCount = 0;
  /**
   * The current window is flat (kernel.windowIsFlat): every plane scores MAX_COST there, so no
   * plane is scored. Nothing else changes: a flat pixel's plane never changed anyway (no
   * hypothesis beats MAX_COST), and the random draws are made as before. A studio's black
   * backdrop and an overexposed sky are mostly flat.
   */
  private flatWindow = false;
  /**
   * Per checkerboard colour: its pixels' planes were set (initialize, initializeFrom) but not yet
   * scored. The first sweep of that colour scores each plane with the window it loads anyway, so
   * every pixel's window is built once less per level (its bilateral weights are 49 exp each);
   * nothing reads another pixel's cost, so the costs and the planes come out the same.
   */
  private readonly unscored = [false, false];
  /** Windows clear of the border built in the dense addon (./native-window.ts), or null: all in buildWindow. */
  private readonly nativeWindows: NativeWindows | null;
  /** Plane updates in the dense addon (./native-planes.ts) at the pixels without a prior triangle, or null: all in TypeScript. */
  private readonly nativePlanes: NativePlanes | null;
  /** fillWindow's 1/Σw, mean and variance. */
  private readonly windowStats = new Float64Array(3);
  /** Per pixel, how many of the leading sources its cost takes (PatchMatchInput.addedSourceBoxes); null: all of them everywhere. */
  private readonly sourcesAt: Uint8Array | null;

  /** `refining`: the level is seeded from a coarser one (its textured pixels may take the narrow window). */
  constructor(private readonly input: PatchMatchInput, refining = false) {
    const { width, height, params } = input;
    this.width = width;
    this.height = height;
    // Windows are clamped at the image border, so only a one-pixel margin is left unestimated.
    this.margin = 1;
    const n = width * height;
    this.depth = new Float32Array(n);
    this.normal = new Float32Array(3 * n);
    this.photo = new Float32Array(n).fill(MAX_COST);
    this.cost = new Float32Array(n).fill(MAX_COST);
    this.changedIn = new Int32Array(n);
    this.colourScale = 1 / (2 * params.sigmaColor ** 2);
    this.wide = windowShape(params.windowRadius, params.windowStep, params.windowPattern, params.sigmaSpatial);
    const textured = refining ? params.texturedWindow : undefined;
    // The spatial weight's σ follows the window's reach, as the wide window's (solve-cluster.ts).
    this.narrow = textured ? windowShape(params.windowRadius, textured.step, params.windowPattern, params.windowRadius * textured.step) : null;
    this.minNarrowVariance = textured ? textured.minStd ** 2 : Infinity;
    const lowerStds = [textured?.edge?.minStd, textured?.frontal?.minStd].filter((v): v is number => v !== undefined);
    this.minLoweredNarrowVariance = textured && lowerStds.length ? Math.min(...lowerStds, textured.minStd) ** 2 : this.minNarrowVariance;
    this.kernel = createKernel(params.kernel, this.wide.spatialWeight.length);
    input.sources.forEach((s, j) => this.kernel.setSource(j, s.grey, s.width, s.height));
    input.sources.forEach((s, j) => this.kernel.setPlaneParts(j, planeParts(input, s)));
    this.nativeWindows = this.kernel.nativeWindows?.(input, this.colourScale, this.narrow ? [this.wide, this.narrow] : [this.wide]) ?? null;
    this.rng = createRng(params.seed);
    this.sourcesAt = input.addedSourceBoxes?.length ? sourcesPerPixel(input, input.addedSourceBoxes) : null;
    const { depth, normal, photo, cost, changedIn, sourcesAt, margin } = this;
    const { focal, cx, cy, depthMin, depthMax } = input;
    const level = { depth, normal, photo, cost, changedIn, sourcesAt, width, height, margin, sources: input.sources.length, bestK: params.bestK, focal, cx, cy, depthMin, depthMax };
    this.nativePlanes = this.kernel.nativePlanes?.(level) ?? null;
  }

  /** The addon's plane updates, where they run at this pixel: not where its prior's share needs Math.exp. */
  private nativePlanesAt(p: number): NativePlanes | null {
    return this.prior && this.prior.triangleOf[p] >= 0 ? null : this.nativePlanes;
  }

  initialize(): void {
    for (let row = this.margin; row < this.height - this.margin; row++) {
      for (let col = this.margin; col < this.width - this.margin; col++) {
        this.randomHypothesis(col, row, row * this.width + col);
      }
    }
    this.unscored.fill(true);
  }

  /** Score the planes no sweep has scored yet (a level left without sweeps). */
  private scoreUnscored(): void {
    if (!this.unscored[0] && !this.unscored[1]) return;
    const { margin, width, height } = this;
    for (let row = margin; row < height - margin; row++) {
      for (let col = margin; col < width - margin; col++) {
        if (!this.unscored[(row + col) & 1]) continue;
        this.loadWindow(col, row);
        this.score(col, row, row * width + col);
      }
    }
    this.unscored.fill(false);
  }

  /** Use a prior from now on: the current planes are scored again with its share. */
  setPrior(raster: PriorRaster): void {
    this.scoreUnscored();
    this.prior = raster;
    const { width, height } = this;
    for (let p = 0; p < width * height; p++) {
      this.cost[p] = this.photo[p] >= MAX_COST ? MAX_COST : this.photo[p] + this.priorShare(p % width, Math.floor(p / width), p, this.depth[p], this.normal[3 * p], this.normal[3 * p + 1], this.normal[3 * p + 2]);
    }
  }

  /** Score the pixel's current plane (photometric cost and the compared cost). */
  private score(col: number, row: number, p: number): void {
    const d = this.depth[p];
    const nx = this.normal[3 * p];
    const ny = this.normal[3 * p + 1];
    const nz = this.normal[3 * p + 2];
    const photo = this.hypothesisCost(col, row, d, nx, ny, nz);
    this.photo[p] = photo;
    this.cost[p] = photo >= MAX_COST ? MAX_COST : photo + this.priorShare(col, row, p, d, nx, ny, nz);
  }

  private priorShare(col: number, row: number, p: number, d: number, nx: number, ny: number, nz: number): number {
    if (!this.prior) return 0;
    const { focal, cx, cy } = this.input;
    return priorPenalty(this.prior, p, (col + 0.5 - cx) / focal, (row + 0.5 - cy) / focal, d, nx, ny, nz, this.input.params.planarPrior!);
  }

  /**
   * Seed every pixel from the coarser level: the coarse pixel's plane (same camera frame, so the
   * same plane) intersected with this pixel's ray; a random hypothesis where the coarse level has
   * none or the intersection leaves the depth range.
   */
  initializeFrom(coarse: PatchMatchOutput, coarseView: PinholeGrey): void {
    const { width, height, margin } = this;
    const { focal, cx, cy, depthMin, depthMax } = this.input;
    const scaleX = coarseView.width / width;
    const scaleY = coarseView.height / height;
    for (let row = margin; row < height - margin; row++) {
      for (let col = margin; col < width - margin; col++) {
        const p = row * width + col;
        const cc = Math.min(coarseView.width - 1, Math.floor((col + 0.5) * scaleX));
        const cr = Math.min(coarseView.height - 1, Math.floor((row + 0.5) * scaleY));
        const q = cr * coarseView.width + cc;
        const dq = coarse.depth[q];
        const nx = coarse.normal[3 * q];
        const ny = coarse.normal[3 * q + 1];
        const nz = coarse.normal[3 * q + 2];
        // ρ = n·X of the coarse pixel's point; the fine depth is ρ / (n·ray).
        const rho = dq * (nx * ((cc + 0.5 - coarseView.cx) / coarseView.focal) + ny * ((cr + 0.5 - coarseView.cy) / coarseView.focal) + nz);
        const denom = nx * ((col + 0.5 - cx) / focal) + ny * ((row + 0.5 - cy) / focal) + nz;
        const d = rho / denom;
        if (dq > 0 && denom < -1e-6 && d > 0.5 * depthMin && d < 2 * depthMax) {
          this.depth[p] = d;
          this.normal[3 * p] = nx;
          this.normal[3 * p + 1] = ny;
          this.normal[3 * p + 2] = nz;
        } else {
          this.randomHypothesis(col, row, p);
        }
      }
    }
    this.unscored.fill(true);
    const textured = this.input.params.texturedWindow;
    if (textured && this.minLoweredNarrowVariance < this.minNarrowVariance) {
      const planes = { ...this.input, depth: this.depth, normal: this.normal };
      const nearEdge = textured.edge ? depthEdgeMask(planes, this.wide.reach, textured.edge.depth, this.margin) : null;
      const frontal = textured.frontal ? frontalPlaneMask(planes, textured.frontal.minCosine, this.margin) : null;
      if (nearEdge && frontal) for (let p = 0; p < nearEdge.length; p++) nearEdge[p] &= frontal[p];
      this.lowered = nearEdge ?? frontal;
      this.edgePixels = this.lowered ? countOnes(this.lowered, this.input.figureBox, this.width) : 0;
    }
  }

  /**
   * Update every pixel of one checkerboard colour: propagation, then refinement. A level seeded
   * from a coarser one only polishes: it propagates from the 4 adjacent pixels (the coarse level
   * already spread planes far) and skips the random restart (the coarse level did the global
   * search), so a pixel scores at most 7 hypotheses instead of 12.
   */
  sweep(colour: number, iteration: number, seeded = false): void {
    const { margin, width, height } = this;
    const depthScale = 0.1 * 0.5 ** iteration;
    const normalScale = 0.35 * 0.5 ** iteration;
    const unscored = this.unscored[colour];
    this.unscored[colour] = false;
    this.sweepCount++;
    for (let row = margin; row < height - margin; row++) {
      for (let col = margin + ((row + colour + margin) & 1); col < width - margin; col += 2) {
        // A seeded pixel whose plane still matches badly gets the full search: the coarse level
        // could not resolve it (thin or grazing surfaces such as cobbled ground span a few
        // coarse pixels). Herz-Jesus-P8 at standard: filled depth per view +3–6 points (single
        // scale gains +7–9 at 3.5× the time), for 16 % more hypotheses (36.0 M → 41.7 M) and
        // 6 % more geometrically consistent pixels.
        this.loadWindow(col, row);
        if (unscored) this.score(col, row, row * width + col);
        const full = !seeded || this.photo[row * width + col] > RESEARCH_COST;
        this.propagate(col, row, full ? NEIGHBOURS.length : 4);
        if (this.prior) this.tryPrior(col, row);
        this.refine(col, row, depthScale, normalScale, full);
      }
    }
  }

  /**
   * Propagation alone over one checkerboard colour, from the 4 adjacent pixels whose plane
   * changed in the sweep just before (the other colour's): a pixel none of whose neighbours
   * changed has tried their planes already, and is skipped without loading its window.
   */
  propagateChanges(colour: number): void {
    const { margin, width, height, changedIn } = this;
    const since = this.sweepCount;
    this.sweepCount++;
    for (let row = margin; row < height - margin; row++) {
      for (let col = margin + ((row + colour + margin) & 1); col < width - margin; col += 2) {
        const p = row * width + col;
        const changed =
          (col > margin && changedIn[p - 1] >= since) ||
          (col < width - margin - 1 && changedIn[p + 1] >= since) ||
          (row > margin && changedIn[p - width] >= since) ||
          (row < height - margin - 1 && changedIn[p + width] >= since);
        if (!changed) continue;
        this.loadWindow(col, row);
        this.propagate(col, row, 4, since);
      }
    }
  }

  /** Try the neighbours' planes (the first `neighbourCount` of NEIGHBOURS; only those changed in sweep `changedSince` or later). */
  private propagate(col: number, row: number, neighbourCount: number, changedSince = 0): void {
    const { width, height, margin, depth, normal } = this;
    const p = row * width + col;
    const native = this.nativePlanesAt(p);
    if (native) {
      // A flat window scores no plane (hypothesisCost), so nothing would change.
      if (!this.flatWindow) native.propagate(col, row, neighbourCount, changedSince, this.sweepCount);
      return;
    }
    const { focal, cx, cy } = this.input;
    const rx = (col + 0.5 - cx) / focal;
    const ry = (row + 0.5 - cy) / focal;
    for (let k = 0; k < neighbourCount; k++) {
      const [dx, dy] = NEIGHBOURS[k];
      const qc = col + dx;
      const qr = row + dy;
      if (qc < margin || qr < margin || qc >= width - margin || qr >= height - margin) continue;
      const q = qr * width + qc;
      if (this.changedIn[q] < changedSince) continue;
      const nx = normal[3 * q];
      const ny = normal[3 * q + 1];
      const nz = normal[3 * q + 2];
      // The neighbour's plane n·X = ρ, intersected with this pixel's ray (rx, ry, 1).
      const rho = depth[q] * (nx * ((qc + 0.5 - cx) / focal) + ny * ((qr + 0.5 - cy) / focal) + nz);
      const denom = nx * rx + ny * ry + nz;
      if (denom > -1e-6) continue;
      const d = rho / denom;
      if (!(d > 0.5 * this.input.depthMin && d < 2 * this.input.depthMax)) continue;
      // Once a plane has spread, most neighbours offer the pixel its own hypothesis again: skip those.
      if (nx === normal[3 * p] && ny === normal[3 * p + 1] && nz === normal[3 * p + 2] && Math.abs(d - depth[p]) <= 1e-6 * d) continue;
      this.tryHypothesis(col, row, p, d, nx, ny, nz);
    }
  }

  /** The pixel's prior plane itself as a hypothesis. */
  private tryPrior(col: number, row: number): void {
    const p = row * this.width + col;
    const t = this.prior!.triangleOf[p];
    if (t < 0) return;
    const { focal, cx, cy, depthMin, depthMax } = this.input;
    const d = priorDepthAt(this.prior!, t, (col + 0.5 - cx) / focal, (row + 0.5 - cy) / focal);
    if (!(d > 0.5 * depthMin && d < 2 * depthMax)) return;
    const planes = this.prior!.planes;
    this.tryHypothesis(col, row, p, d, planes[4 * t], planes[4 * t + 1], planes[4 * t + 2]);
  }

  private refine(col: number, row: number, depthScale: number, normalScale: number, randomRestart: boolean): void {
    const p = row * this.width + col;
    const { rng, normal } = this;
    const d = this.depth[p];
    const nx = normal[3 * p];
    const ny = normal[3 * p + 1];
    const nz = normal[3 * p + 2];
    const perturbedDepth = d * (1 + depthScale * (2 * rng() - 1));
    const n2 = this.perturbNormal(col, row, nx, ny, nz, normalScale);
    const native = this.nativePlanesAt(p);
    if (native) {
      // The same draws in the same order, the hypotheses then tried in the addon in turn.
      const tries = native.hypotheses();
      putPlane(tries, 0, perturbedDepth, nx, ny, nz);
      putPlane(tries, 1, d, n2[0], n2[1], n2[2]);
      putPlane(tries, 2, perturbedDepth, n2[0], n2[1], n2[2]);
      if (randomRestart) {
        const { depthMin, depthMax } = this.input;
        const rn = this.randomNormal(col, row);
        putPlane(tries, 3, depthMin + rng() * (depthMax - depthMin), rn[0], rn[1], rn[2]);
      }
      if (!this.flatWindow) native.tryPlanes(col, row, randomRestart ? 4 : 3, this.sweepCount);
      return;
    }
    this.tryHypothesis(col, row, p, perturbedDepth, nx, ny, nz);
    this.tryHypothesis(col, row, p, d, n2[0], n2[1], n2[2]);
    this.tryHypothesis(col, row, p, perturbedDepth, n2[0], n2[1], n2[2]);
    if (!randomRestart) return;
    const { depthMin, depthMax } = this.input;
    const rn = this.randomNormal(col, row);
    this.tryHypothesis(col, row, p, depthMin + rng() * (depthMax - depthMin), rn[0], rn[1], rn[2]);
  }

  private tryHypothesis(col: number, row: number, p: number, d: number, nx: number, ny: number, nz: number): void {
    const photo = this.hypothesisCost(col, row, d, nx, ny, nz);
    if (photo >= MAX_COST) return;
    const c = photo + this.priorShare(col, row, p, d, nx, ny, nz);
    if (c < this.cost[p]) {
      this.cost[p] = c;
      this.photo[p] = photo;
      this.depth[p] = d;
      this.normal[3 * p] = nx;
      this.normal[3 * p + 1] = ny;
      this.normal[3 * p + 2] = nz;
      this.changedIn[p] = this.sweepCount;
    }
  }

  /** Mean of the best K source costs of the plane (depth d at this pixel, normal n). */
  private hypothesisCost(col: number, row: number, d: number, nx: number, ny: number, nz: number): number {
    if (this.flatWindow) return MAX_COST;
    const { focal, cx, cy, params } = this.input;
    this.evaluations++;
    const px = col + 0.5;
    const py = row + 0.5;
    const rho = d * (nx * ((px - cx) / focal) + ny * ((py - cy) / focal) + nz);
    if (!(rho < 0)) return MAX_COST; // the plane must face the camera
    // m = nᵀ·K_r⁻¹, divided by ρ.
    const m0 = nx / focal / rho;
    const m1 = ny / focal / rho;
    const m2 = (nz - (nx * cx) / focal - (ny * cy) / focal) / rho;
    const sources = this.sourcesAt ? this.sourcesAt[row * this.width + col] : this.input.sources.length;
    return this.kernel.planeCost(px, py, m0, m1, m2, params.bestK, sources);
  }

  /**
   * Reference grey values and bilateral weights of the window centred on (col, row), written
   * into the kernel's own window with their statistics; samples that would leave the image are
   * clamped to its border (they repeat edge pixels). This runs once per pixel per sweep, ~20 % of
   * PatchMatch before it wrote in place (`npm run bench -- kernels`, a CPU profile): the offsets
   * are rewritten only at the border, and the sums ride along the weights (the same order as
   * kernel.ts windowStatistics, so the same bits).
   */
  private loadWindow(col: number, row: number): void {
    const minVariance = this.lowered?.[row * this.width + col] ? this.minLoweredNarrowVariance : this.minNarrowVariance;
    if (this.narrow && this.buildWindow(col, row, this.narrow) >= minVariance) return;
    this.buildWindow(col, row, this.wide);
  }

  /** loadWindow with one window shape; returns the window's weighted grey variance. */
  private buildWindow(col: number, row: number, shape: WindowShape): number {
    const { width, height } = this;
    const { reach } = shape;
    const window = this.kernel.windowArrays();
    const inside = col >= reach && row >= reach && col < width - reach && row < height - reach;
    if (inside && this.offsetsOf !== shape) {
      window.dx.set(shape.baseDx);
      window.dy.set(shape.baseDy);
    }
    this.offsetsOf = inside ? shape : null;
    if (inside && this.nativeWindows) {
      // The same bits; NaN: a weight only Math.exp decides, built below.
      const variance = this.nativeWindows.build(shape === this.wide ? 0 : 1, col, row);
      if (variance === variance) {
        this.flatWindow = this.nativeWindows.flat;
        return variance;
      }
    }
    const stats = this.windowStats;
    const variance = fillWindow(this.input, col, row, shape, this.colourScale, window, inside, stats);
    if (inside) this.kernel.windowReady(stats[0], stats[1], variance, -reach, reach, -reach, reach);
    else {
      // The box of the clamped offsets (plain expressions: a closure here was made per border window).
      const minDx = Math.min(width - 1, Math.max(0, col - reach)) - col;
      const maxDx = Math.min(width - 1, Math.max(0, col + reach)) - col;
      const minDy = Math.min(height - 1, Math.max(0, row - reach)) - row;
      const maxDy = Math.min(height - 1, Math.max(0, row + reach)) - row;
      this.kernel.windowReady(stats[0], stats[1], variance, minDx, maxDx, minDy, maxDy);
    }
    this.flatWindow = this.kernel.windowIsFlat();
    return variance;
  }

  private randomHypothesis(col: number, row: number, p: number): void {
    const { depthMin, depthMax } = this.input;
    this.depth[p] = depthMin + this.rng() * (depthMax - depthMin);
    this.normal.set(this.randomNormal(col, row), 3 * p);
  }

  /** A random unit normal facing the camera, at most ~80° from the viewing ray, into randomScratch (overwritten by the next call). */
  private randomNormal(col: number, row: number): Float64Array {
    const ray = this.unitRay(col, row);
    const out = this.randomScratch;
    for (let attempt = 0; attempt < 8; attempt++) {
      const x = gaussian(this.rng);
      const y = gaussian(this.rng);
      const z = gaussian(this.rng);
      const len = Math.hypot(x, y, z);
      let dot = (x * ray[0] + y * ray[1] + z * ray[2]) / len;
      const s = dot > 0 ? -1 / len : 1 / len;
      dot = Math.abs(dot);
      out[0] = x * s;
      out[1] = y * s;
      out[2] = z * s;
      if (dot > 0.17) return out;
    }
    out[0] = -ray[0];
    out[1] = -ray[1];
    out[2] = -ray[2];
    return out;
  }

  /** The normal perturbed, into perturbScratch (overwritten by the next call). */
  private perturbNormal(col: number, row: number, nx: number, ny: number, nz: number, scale: number): Float64Array {
    const ray = this.unitRay(col, row);
    const out = this.perturbScratch;
    out[0] = nx + scale * gaussian(this.rng);
    out[1] = ny + scale * gaussian(this.rng);
    out[2] = nz + scale * gaussian(this.rng);
    const len = Math.hypot(out[0], out[1], out[2]);
    for (let k = 0; k < 3; k++) out[k] /= len;
    // Keep the original when the perturbed normal turns away from the camera.
    if (out[0] * ray[0] + out[1] * ray[1] + out[2] * ray[2] > -0.17) {
      out[0] = nx;
      out[1] = ny;
      out[2] = nz;
    }
    return out;
  }

  private unitRay(col: number, row: number): Float64Array {
    const { focal, cx, cy } = this.input;
    const x = (col + 0.5 - cx) / focal;
    const y = (row + 0.5 - cy) / focal;
    const len = Math.hypot(x, y, 1);
    this.rayScratch[0] = x / len;
    this.rayScratch[1] = y / len;
    this.rayScratch[2] = 1 / len;
    return this.rayScratch;
  }

  /** The level is done: its kernel goes back for the next state to reuse (kernel.ts releaseKernel); nothing may be called after this. */
  release(): void {
    releaseKernel(this.kernel);
  }

  output(): PatchMatchOutput {
    this.scoreUnscored();
    const evaluations = this.evaluations + (this.nativePlanes?.evaluated() ?? 0);
    const out: PatchMatchOutput = { depth: this.depth, normal: this.normal, cost: this.photo, kernel: this.kernel.name, evaluations, edgePixels: this.edgePixels };
    if (this.prior) Object.assign(out, this.priorFigures(this.prior));
    return out;
  }

  /** Which pixels' planes agree with their prior, and how many pixels have one. */
  private priorFigures(prior: PriorRaster): Pick<PatchMatchOutput, "priorAgrees" | "priorPixels"> {
    const { width, height, depth, normal } = this;
    const { focal, cx, cy } = this.input;
    const priorAgrees = new Uint8Array(width * height);
    const [x0, x1, y0, y1] = this.input.figureBox ?? [0, width, 0, height];
    let priorPixels = 0;
    for (let p = 0; p < width * height; p++) {
      if (prior.triangleOf[p] < 0) continue;
      const x = p % width;
      const y = Math.floor(p / width);
      if (x >= x0 && x < x1 && y >= y0 && y < y1) priorPixels++;
      const rx = (x + 0.5 - cx) / focal;
      const ry = (y + 0.5 - cy) / focal;
      if (depth[p] > 0 && agreesWithPrior(prior, p, rx, ry, depth[p], normal[3 * p], normal[3 * p + 1], normal[3 * p + 2], this.input.params.planarPrior!)) priorAgrees[p] = 1;
    }
    return { priorAgrees, priorPixels };
  }
}

/** Ones of a mask inside the box [x0, x1, y0, y1) (absent: the whole mask). */
function countOnes(mask: Uint8Array, box: [number, number, number, number] | undefined, width: number): number {
  const [x0, x1, y0, y1] = box ?? [0, width, 0, mask.length / width];
  let count = 0;
  for (let row = y0; row < y1; row++) for (let col = x0; col < x1; col++) count += mask[row * width + col];
  return count;
}

/**
 * Per pixel of `input`, how many of its leading sources its cost takes: those before the added
 * ones, and the added ones up to the last whose boxes hold the pixel's centre.
 */
export function sourcesPerPixel(input: PatchMatchInput, addedBoxes: NonNullable<PatchMatchInput["addedSourceBoxes"]>): Uint8Array {
  const { width, height, focal, cx, cy } = input;
  const base = input.sources.length - addedBoxes.length;
  const counts = new Uint8Array(width * height).fill(base);
  addedBoxes.forEach((boxes, k) => {
    for (const [x0, x1, y0, y1] of boxes) {
      const col0 = Math.max(0, Math.ceil(x0 * focal + cx - 0.5)), col1 = Math.min(width, Math.ceil(x1 * focal + cx - 0.5));
      const row0 = Math.max(0, Math.ceil(y0 * focal + cy - 0.5)), row1 = Math.min(height, Math.ceil(y1 * focal + cy - 0.5));
      for (let row = row0; row < row1; row++) counts.fill(base + k + 1, row * width + col0, row * width + Math.max(col0, col1));
    }
  });
  return counts;
}

/** Hypothesis k (depth, normal) into the addon's block of hypotheses (native-planes.ts). */
function putPlane(tries: Float64Array, k: number, d: number, nx: number, ny: number, nz: number): void {
  tries[4 * k] = d;
  tries[4 * k + 1] = nx;
  tries[4 * k + 2] = ny;
  tries[4 * k + 3] = nz;
}

/** Source s's fixed homography parts for the kernel: A = K_s·R·K_r⁻¹ (9, row-major) then b = K_s·t (3); H = A + b·mᵀ, m = nᵀ·K_r⁻¹/ρ. */
export function planeParts(ref: PinholeGrey, s: SourceCamera): Float64Array {
  const { focal: f, cx, cy } = ref;
  // K_r⁻¹ = [[1/f, 0, −cx/f], [0, 1/f, −cy/f], [0, 0, 1]];  K_s·R then ·K_r⁻¹.
  const KsR = new Float64Array(9);
  for (let c = 0; c < 3; c++) {
    KsR[c] = s.focal * s.R[c] + s.cx * s.R[6 + c];
    KsR[3 + c] = s.focal * s.R[3 + c] + s.cy * s.R[6 + c];
    KsR[6 + c] = s.R[6 + c];
  }
  const parts = new Float64Array(12);
  for (let r = 0; r < 3; r++) {
    parts[3 * r] = KsR[3 * r] / f;
    parts[3 * r + 1] = KsR[3 * r + 1] / f;
    parts[3 * r + 2] = KsR[3 * r + 2] - (KsR[3 * r] * cx) / f - (KsR[3 * r + 1] * cy) / f;
  }
  parts[9] = s.focal * s.t[0] + s.cx * s.t[2];
  parts[10] = s.focal * s.t[1] + s.cy * s.t[2];
  parts[11] = s.t[2];
  return parts;
}
