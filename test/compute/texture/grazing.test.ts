/**
 * Grazing views in the texture stage (compute/stages/texture/view-scan.ts dropGrazing): a view
 * that sees a face more obliquely than minCosine is kept only for faces that no view sees
 * better, so ground seen from eye height is painted from the photos instead of left untextured,
 * and a wall that a frontal photo shows is never painted from a grazing one.
 */
import { describe, expect, it } from "vitest";
import { dropGrazing, type ViewObservations } from "../../../compute/stages/texture/view-scan.js";

function observations(view: number, faces: number[], grazing: number[]): ViewObservations {
  return {
    view,
    faces: Uint32Array.from(faces),
    quality: Float32Array.from(faces, (f) => 10 + f),
    colours: Float32Array.from(faces.flatMap((f) => [f, 100 + view, 200])),
    grazing: Uint8Array.from(grazing),
  };
}

describe("texture/grazing views", () => {
  it("keeps a grazing view only for the faces that no view sees better, with its quality and colour", () => {
    // Faces 0 and 1: view 0 frontal, view 1 grazing. Face 2: only grazing views. Face 3: view 1 frontal only.
    const { observations: kept, kept: grazingKept } = dropGrazing([observations(0, [0, 1, 2], [0, 0, 1]), observations(1, [0, 1, 2, 3], [1, 1, 1, 0])], 4);
    expect(Array.from(kept[0].faces)).toEqual([0, 1, 2]);
    expect(Array.from(kept[1].faces)).toEqual([2, 3]);
    expect(Array.from(kept[1].quality)).toEqual([12, 13]);
    expect(Array.from(kept[1].colours)).toEqual([2, 101, 200, 3, 101, 200]);
    expect(Array.from(kept[1].grazing)).toEqual([1, 0]);
    expect(grazingKept).toBe(2);
  });

  it("leaves views without grazing observations as they are", () => {
    const frontal = observations(0, [0, 1], [0, 0]);
    const { observations: kept, kept: grazingKept } = dropGrazing([frontal], 2);
    expect(kept[0]).toBe(frontal);
    expect(grazingKept).toBe(0);
  });
});
