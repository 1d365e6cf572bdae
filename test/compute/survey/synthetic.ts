/**
 * @module A synthetic survey site in the model frame of a georeferenced job (x east, y up,
 * z south; metres from OFFSET): a sloping quadrilateral of ground and a flat-roofed box building
 * on it, textured from two pages (a red/yellow checkerboard on the roof, plain green ground) and
 * with vertical walls that carry no texture (blue vertex colours). Everything the survey stage
 * should produce is known in closed form: the ground's plane, the roof's height and footprint,
 * the checker cell of any roof point.
 */
import type { Mesh, TexturedMesh, TexturePage } from "../../../compute/scene/index.js";

export const OFFSET = [500_000, 5_200_000, 400] as const;
export const EPSG = 32632;

/** Ground corners (local easting, local northing), counter-clockwise; not axis-aligned, so the raster's corners are outside it. */
export const GROUND_CORNERS: Array<[number, number]> = [[10, 20], [50, 24], [46, 60], [12, 56]];
/** Ground height above OFFSET[2]: a plane, exact under linear interpolation. */
export const groundUp = (e: number, n: number): number => 0.05 * e + 0.02 * n;
/** The building's footprint (local easting and northing) and its roof's height above OFFSET[2]. */
export const ROOF = { e0: 25, e1: 35, n0: 35, n1: 45, up: 12 };
export const COLOURS = { red: [220, 40, 40], yellow: [240, 220, 60], green: [40, 160, 40], blue: [30, 30, 200], orange: [250, 140, 0] } as const;
/** Checker cells across the roof (each ROOF side / CHECKER_CELLS metres). */
export const CHECKER_CELLS = 4;
const ROOF_PAGE = 64;

/** Colour of the roof's checkerboard at local (e, n): cell (i, j) counted from the north-west corner. */
export function roofColourAt(e: number, n: number): readonly number[] {
  const i = Math.floor(((e - ROOF.e0) / (ROOF.e1 - ROOF.e0)) * CHECKER_CELLS);
  const j = Math.floor(((ROOF.n1 - n) / (ROOF.n1 - ROOF.n0)) * CHECKER_CELLS);
  return (i + j) % 2 === 0 ? COLOURS.red : COLOURS.yellow;
}

function roofPage(): TexturePage {
  const rgb = new Uint8Array(ROOF_PAGE * ROOF_PAGE * 3);
  const cell = ROOF_PAGE / CHECKER_CELLS;
  for (let y = 0; y < ROOF_PAGE; y++) {
    for (let x = 0; x < ROOF_PAGE; x++) rgb.set((Math.floor(x / cell) + Math.floor(y / cell)) % 2 === 0 ? COLOURS.red : COLOURS.yellow, 3 * (y * ROOF_PAGE + x));
  }
  return { width: ROOF_PAGE, height: ROOF_PAGE, rgb };
}

function groundPage(): TexturePage {
  const rgb = new Uint8Array(8 * 8 * 3);
  for (let i = 0; i < 64; i++) rgb.set(COLOURS.green, 3 * i);
  return { width: 8, height: 8, rgb };
}

class MeshBuilder {
  positions: number[] = [];
  colors: number[] = [];
  uvs: number[] = [];
  indices: number[] = [];
  facePage: number[] = [];

  /** A vertex at local (e, n) and height `up` above OFFSET[2], i.e. model (e, up, −n). */
  vertex(e: number, n: number, up: number, colour: readonly number[], u = 0, v = 0): number {
    this.positions.push(e, up, -n);
    this.colors.push(...colour);
    this.uvs.push(u, v);
    return this.positions.length / 3 - 1;
  }

  quad(a: number, b: number, c: number, d: number, page: number): void {
    this.indices.push(a, b, c, a, c, d);
    this.facePage.push(page, page);
  }
}

/**
 * The site as a textured mesh. `roofVertexColour` colours the roof's vertices (the vertex
 * colour path of an untextured ortho); by default they take the checker's red.
 */
export function surveySite(roofVertexColour: readonly number[] = COLOURS.red): TexturedMesh {
  const m = new MeshBuilder();
  const pages = [roofPage(), groundPage()];
  const untextured = pages.length;
  const g = GROUND_CORNERS.map(([e, n]) => m.vertex(e, n, groundUp(e, n), COLOURS.green, (e - 10) / 40, (60 - n) / 40));
  m.quad(g[0], g[1], g[2], g[3], 1);
  const { e0, e1, n0, n1, up } = ROOF;
  // Roof: UV (0, 0) at the north-west corner, u east, v south (v = 0 is the page's top row).
  const roof = [m.vertex(e0, n0, up, roofVertexColour, 0, 1), m.vertex(e1, n0, up, roofVertexColour, 1, 1), m.vertex(e1, n1, up, roofVertexColour, 1, 0), m.vertex(e0, n1, up, roofVertexColour, 0, 0)];
  m.quad(roof[0], roof[1], roof[2], roof[3], 0);
  // Walls from the ground up to the roof, vertical: nothing of them is visible from above.
  const corners: Array<[number, number]> = [[e0, n0], [e1, n0], [e1, n1], [e0, n1]];
  for (let k = 0; k < 4; k++) {
    const [ea, na] = corners[k], [eb, nb] = corners[(k + 1) % 4];
    const wall = [m.vertex(ea, na, groundUp(ea, na), COLOURS.blue), m.vertex(eb, nb, groundUp(eb, nb), COLOURS.blue), m.vertex(eb, nb, up, COLOURS.blue), m.vertex(ea, na, up, COLOURS.blue)];
    m.quad(wall[0], wall[1], wall[2], wall[3], untextured);
  }
  const vertexCount = m.positions.length / 3;
  const mesh: Mesh = {
    vertexCount,
    faceCount: m.indices.length / 3,
    positions: new Float32Array(m.positions),
    colors: new Uint8Array(m.colors),
    normals: new Float32Array(3 * vertexCount),
    indices: new Uint32Array(m.indices),
  };
  return { mesh, uvs: new Float32Array(m.uvs), facePage: new Uint16Array(m.facePage), faceView: new Int32Array(mesh.faceCount).fill(-1), pages };
}

/** Whether local (e, n) lies inside the ground quadrilateral, at least `margin` metres from its edges. */
export function insideGround(e: number, n: number, margin: number): boolean {
  for (let k = 0; k < GROUND_CORNERS.length; k++) {
    const [ax, ay] = GROUND_CORNERS[k], [bx, by] = GROUND_CORNERS[(k + 1) % GROUND_CORNERS.length];
    const length = Math.hypot(bx - ax, by - ay);
    // Signed distance to the left of edge a→b (inside, for a counter-clockwise polygon).
    if (((bx - ax) * (n - ay) - (by - ay) * (e - ax)) / length < margin) return false;
  }
  return true;
}
