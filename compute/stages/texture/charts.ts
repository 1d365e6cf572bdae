/**
 * @module Texture charts: connected pieces of faces textured from one view. Each chart's
 * vertices are copies of the mesh's (a vertex on a chart boundary gets one copy per chart),
 * so that each copy carries one texture coordinate.
 */
import type { Mesh } from "../../scene/index.js";
import { UNSEEN } from "./select-views.js";

export interface Chart {
  /** View the chart is textured from, or UNSEEN. */
  view: number;
  faces: Uint32Array;
}

export interface ChartedMesh {
  charts: Chart[];
  /** Chart of each face. */
  faceChart: Uint32Array;
  /** Split mesh: per new vertex, the original vertex and the chart it belongs to. */
  sourceVertex: Uint32Array;
  vertexChart: Uint32Array;
  /** 3 per face, into the split vertices (same face order as the input mesh). */
  indices: Uint32Array;
}

/** Connected components of equally labelled faces (flood fill over shared edges). */
export function buildCharts(labels: Uint32Array, adjacency: { offsets: Uint32Array; neighbours: Uint32Array }): { charts: Chart[]; faceChart: Uint32Array } {
  const faceCount = labels.length;
  const faceChart = new Uint32Array(faceCount).fill(UNSEEN);
  const charts: Chart[] = [];
  const stack: number[] = [];
  const members: number[] = [];
  // All unseen faces form one chart: they carry vertex colours, no texture, so no seams to keep.
  const unseen: number[] = [];
  for (let seed = 0; seed < faceCount; seed++) {
    if (faceChart[seed] !== UNSEEN) continue;
    if (labels[seed] === UNSEEN) { unseen.push(seed); continue; }
    const id = charts.length;
    members.length = 0;
    faceChart[seed] = id;
    stack.push(seed);
    while (stack.length > 0) {
      const f = stack.pop()!;
      members.push(f);
      for (let j = adjacency.offsets[f]; j < adjacency.offsets[f + 1]; j++) {
        const g = adjacency.neighbours[j];
        if (faceChart[g] === UNSEEN && labels[g] === labels[seed]) { faceChart[g] = id; stack.push(g); }
      }
    }
    charts.push({ view: labels[seed], faces: Uint32Array.from(members) });
  }
  if (unseen.length > 0) {
    const id = charts.length;
    for (const f of unseen) faceChart[f] = id;
    charts.push({ view: UNSEEN, faces: Uint32Array.from(unseen) });
  }
  return { charts, faceChart };
}

/** Splits the mesh's vertices so that no vertex is shared by two charts. */
export function splitVertices(mesh: Mesh, charts: Chart[], faceChart: Uint32Array): ChartedMesh {
  const indices = new Uint32Array(3 * mesh.faceCount);
  const sourceVertex: number[] = [];
  const vertexChart: number[] = [];
  const copyOf = new Int32Array(mesh.vertexCount).fill(-1);
  for (let c = 0; c < charts.length; c++) {
    const touched: number[] = [];
    for (const f of charts[c].faces) {
      for (let k = 0; k < 3; k++) {
        const v = mesh.indices[3 * f + k];
        if (copyOf[v] < 0) {
          copyOf[v] = sourceVertex.length;
          sourceVertex.push(v);
          vertexChart.push(c);
          touched.push(v);
        }
        indices[3 * f + k] = copyOf[v];
      }
    }
    for (const v of touched) copyOf[v] = -1;
  }
  return { charts, faceChart, sourceVertex: Uint32Array.from(sourceVertex), vertexChart: Uint32Array.from(vertexChart), indices };
}
