/** @module The buffers of one bundle-adjustment solve, allocated up front so the iterations allocate nothing. */
import { buildLayout, type Layout } from "./layout.js";
import { allocateNormal, plainArray, type Allocate, type Normal } from "./linearize.js";
import { allocatePcg, type PcgWork } from "./pcg.js";
import { allocateSchur, type SchurWork } from "./schur.js";
import { shareLayout, type SharedArena } from "./shared-arena.js";
import type { Trial } from "./step.js";
import type { TeamSolve } from "./team.js";
import type { BAProblem, Options } from "./types.js";

export interface Workspace {
  layout: Layout;
  normal: Normal;
  schur: SchurWork;
  dense: Float64Array | null;
  /** Scratch of the dense factorisation: non-zero columns of one row. */
  denseColumns: Int32Array;
  pcg: PcgWork | null;
  rhs: Float64Array;
  dR: Float64Array;
  dP: Float64Array;
  trial: Trial;
  trialRotations: Float64Array;
  residualScratch: Float64Array;
  /** The thread team sharing the passes over points and observations, when one is bound. */
  team: TeamSolve | null;
}

/**
 * Above `denseSchurMaxCameras`, a reduced system whose banded order (ordering.ts) keeps the
 * dense factor cheap still takes the dense path: on a survey or a long walk each camera sees a
 * few dozen others, the factor costs ~ n · band² and converges in one solve, whereas
 * block-Jacobi PCG needed 10× the CPU of dense Cholesky already at 300 cameras
 * (docs/decisions.md, "Banded dense Cholesky, not PCG, for large reduced systems"). Bounded by
 * the dense matrix's memory (8 · n² bytes).
 */
function bandedDenseAffordable(layout: Layout, options: Options): boolean {
  return layout.reducedSize <= options.bandedDenseMaxSize && layout.denseCost <= options.bandedDenseMaxCost;
}

/**
 * Buffers of one solve. With a team's `arena`, the arrays the threads read or write are
 * allocated in its shared memory and the layout's arrays are moved there; the problem must
 * then be a shareProblem copy in the same arena.
 */
export function allocateWorkspace(problem: BAProblem, options: Options, arena: SharedArena | null = null): Workspace {
  const layout = buildLayout(problem, options);
  if (arena) shareLayout(layout, arena);
  const allocate: Allocate = arena ? (length) => arena.allocate(Float64Array, length) : plainArray;
  const copy = (values: Float64Array): Float64Array => {
    const out = allocate(values.length);
    out.set(values);
    return out;
  };
  const n = layout.reducedSize;
  const usePcg = layout.freePoseCount > options.denseSchurMaxCameras && !bandedDenseAffordable(layout, options);
  return {
    layout,
    normal: allocateNormal(problem, layout, allocate),
    schur: allocateSchur(problem, layout, allocate),
    dense: usePcg ? null : allocate(n * n),
    denseColumns: new Int32Array(usePcg ? 0 : n),
    pcg: usePcg ? allocatePcg(layout) : null,
    rhs: new Float64Array(n),
    dR: allocate(n),
    dP: allocate(problem.pointCount * 3),
    trial: { poses: copy(problem.poses), intrinsics: copy(problem.intrinsics), points: copy(problem.points) },
    trialRotations: allocate(problem.cameraCount * 9),
    residualScratch: new Float64Array(2),
    team: null,
  };
}

