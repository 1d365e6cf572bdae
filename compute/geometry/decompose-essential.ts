/** @module Decomposition of an essential matrix into its four (R, t) candidates (Hartley & Zisserman §9.6.2). */
import { mat3Det, svd } from "../math/linalg.js";
import type { RigidTransform } from "./types.js";

/** The four (R, t) = cam2FromCam1 candidates of E: R ∈ {U·W·Vᵀ, U·Wᵀ·Vᵀ}, t = ±u₃ (unit). */
export function decomposeEssential(E: ArrayLike<number>): RigidTransform[] {
  const { U, V } = svd(E, 3, 3);
  // Make U and V proper rotations; E is defined up to sign so flipping either is harmless.
  if (mat3Det(U) < 0) for (let k = 0; k < 9; k++) U[k] = -U[k];
  if (mat3Det(V) < 0) for (let k = 0; k < 9; k++) V[k] = -V[k];
  // W = [[0, −1, 0], [1, 0, 0], [0, 0, 1]]; U·W·Vᵀ = u₂·v₁ᵀ − u₁·v₂ᵀ + u₃·v₃ᵀ (uₖ, vₖ columns).
  const Ra = new Float64Array(9);
  const Rb = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const u1v2 = U[i * 3] * V[j * 3 + 1];
      const u2v1 = U[i * 3 + 1] * V[j * 3];
      const u3v3 = U[i * 3 + 2] * V[j * 3 + 2];
      Ra[i * 3 + j] = u2v1 - u1v2 + u3v3;
      Rb[i * 3 + j] = u1v2 - u2v1 + u3v3;
    }
  }
  const t = new Float64Array([U[2], U[5], U[8]]);
  const minusT = Float64Array.from(t, (v) => -v);
  return [
    { R: Ra, t },
    { R: Ra, t: minusT },
    { R: Rb, t: Float64Array.from(t) },
    { R: Rb, t: Float64Array.from(minusT) },
  ];
}
