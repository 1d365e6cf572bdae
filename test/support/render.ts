/**
 * @module Deterministic ray-casting renderer of procedurally textured scenes with known cameras.
 *
 * Tests of features, matching, SfM and dense stereo need images with exact ground truth. Each
 * scene is a handful of analytic primitives (planes, boxes, a sphere, a cylinder); the texture
 * is a *solid* texture (a function of the world point, not of the view), so every view sees the
 * same surface pattern, as a real textured object would. Shading is Lambertian under one
 * directional light plus ambient (view-independent, so photo-consistency holds exactly).
 *
 * Conventions (compute/scene/camera.ts): world +Z up, camFromWorld x_cam = R·X + t with OpenCV
 * axes (x right, y down, z forward); pixel (0,0) has its centre at (0.5, 0.5).
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";

export interface RenderedView {
  name: string;
  width: number;
  height: number;
  /** RGB, 3 bytes per pixel, row-major. */
  rgb: Uint8Array;
  /** Depth along the camera z axis at each pixel centre; 0 = background. */
  depth: Float32Array;
  /** 3×3 row-major intrinsics (focal, principal point at the image centre). */
  K: Float64Array;
  /** camFromWorld rotation (3×3 row-major) and translation. */
  R: Float64Array;
  t: Float64Array;
}

export interface RenderOptions {
  scene: "object" | "facade";
  views: number;
  width: number;
  height: number;
  seed: number;
  /** Size of the object region in world units (default 1). */
  radius?: number;
  /** Angle between neighbouring ring cameras in degrees ("object"; default min(360/views, 15)). */
  stepDegrees?: number;
  /** Sub-samples per pixel side for anti-aliasing (default 2, i.e. 2×2). */
  supersample?: number;
  /** Amplitude of the uniform sensor noise in grey levels (default 2). */
  noise?: number;
}

export interface RenderedScene {
  views: RenderedView[];
  sceneRadius: number;
  center: [number, number, number];
  /** n points (3·n floats) sampled uniformly by area on the true surfaces of the scene. */
  samplePoints(n: number): Float64Array;
}

// ---------------------------------------------------------------------------------------------
// Primitives. Each intersect() returns the ray parameter of the nearest hit with tMin < t < tMax
// (or Infinity) and writes the world-frame unit normal into `normalOut`.

export interface Primitive {
  /** Base colour (0..1 per channel) multiplied by the texture. */
  colour: [number, number, number];
  /** Share of the brightness the texture modulates (default 0.85; a plain surface is ~0.1). */
  contrast?: number;
  /** Period of the texture along world x in units of the radius (a tiled, repeating surface). */
  periodX?: number;
  /**
   * Paint instead of the solid texture: the reflectance (0..1) at world point (x, y, z), which
   * multiplies `colour` (a painted survey target's black and white quarters).
   */
  paint?: (x: number, y: number, z: number) => number;
  intersect(o: Float64Array, d: Float64Array, tMax: number, normalOut: Float64Array): number;
  area(): number;
  /** A uniformly distributed point on the surface from two uniform numbers in [0,1). */
  sample(a: number, b: number, c: number, out: Float64Array, offset: number): void;
}

const EPS = 1e-9;

/** Axis-aligned rectangle in the plane `axis = value`, visible from the side `facing` (±1). */
export function rectangle(axis: 0 | 1 | 2, value: number, facing: 1 | -1, lo: [number, number], hi: [number, number], colour: [number, number, number]): Primitive {
  const u = axis === 0 ? 1 : 0;
  const v = axis === 2 ? 1 : 2;
  return {
    colour,
    intersect(o, d, tMax, n) {
      if (d[axis] * facing >= -EPS) return Infinity; // seen from behind or edge-on
      const t = (value - o[axis]) / d[axis];
      if (t <= EPS || t >= tMax) return Infinity;
      const pu = o[u] + t * d[u];
      const pv = o[v] + t * d[v];
      if (pu < lo[0] || pu > hi[0] || pv < lo[1] || pv > hi[1]) return Infinity;
      n[0] = n[1] = n[2] = 0;
      n[axis] = facing;
      return t;
    },
    area: () => (hi[0] - lo[0]) * (hi[1] - lo[1]),
    sample(a, b, _c, out, k) {
      out[k + axis] = value;
      out[k + u] = lo[0] + a * (hi[0] - lo[0]);
      out[k + v] = lo[1] + b * (hi[1] - lo[1]);
    },
  };
}

/** Box standing on z = zMin, rotated by `yaw` radians about the vertical through its centre. */
export function box(centre: [number, number], half: [number, number], zRange: [number, number], yaw: number, colour: [number, number, number]): Primitive {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  const lo = [-half[0], -half[1], zRange[0]];
  const hi = [half[0], half[1], zRange[1]];
  const faceAreas = [half[1] * 2 * (zRange[1] - zRange[0]), half[0] * 2 * (zRange[1] - zRange[0]), 4 * half[0] * half[1]];
  return {
    colour,
    intersect(o, d, tMax, n) {
      // Ray in the box frame (rotate by -yaw about z).
      const ox = c * (o[0] - centre[0]) + s * (o[1] - centre[1]);
      const oy = -s * (o[0] - centre[0]) + c * (o[1] - centre[1]);
      const dx = c * d[0] + s * d[1];
      const dy = -s * d[0] + c * d[1];
      const ol = [ox, oy, o[2]];
      const dl = [dx, dy, d[2]];
      let tNear = -Infinity;
      let tFar = Infinity;
      let axisNear = 0;
      let signNear = 1;
      for (let a = 0; a < 3; a++) {
        if (Math.abs(dl[a]) < EPS) {
          if (ol[a] < lo[a] || ol[a] > hi[a]) return Infinity;
          continue;
        }
        let t0 = (lo[a] - ol[a]) / dl[a];
        let t1 = (hi[a] - ol[a]) / dl[a];
        let sign = -1;
        if (t0 > t1) {
          [t0, t1] = [t1, t0];
          sign = 1;
        }
        if (t0 > tNear) {
          tNear = t0;
          axisNear = a;
          signNear = sign;
        }
        tFar = Math.min(tFar, t1);
      }
      if (tNear > tFar || tNear <= EPS || tNear >= tMax) return Infinity;
      const nl = [0, 0, 0];
      nl[axisNear] = signNear;
      n[0] = c * nl[0] - s * nl[1];
      n[1] = s * nl[0] + c * nl[1];
      n[2] = nl[2];
      return tNear;
    },
    // The bottom face rests on the ground and is never seen: five faces.
    area: () => 2 * faceAreas[0] + 2 * faceAreas[1] + faceAreas[2],
    sample(a, b, pick, out, k) {
      const total = 2 * faceAreas[0] + 2 * faceAreas[1] + faceAreas[2];
      let r = pick * total;
      let lx: number;
      let ly: number;
      let lz: number;
      if ((r -= faceAreas[2]) < 0) {
        lx = lo[0] + a * (hi[0] - lo[0]);
        ly = lo[1] + b * (hi[1] - lo[1]);
        lz = hi[2];
      } else if ((r -= 2 * faceAreas[0]) < 0) {
        lx = r + faceAreas[0] < 0 ? lo[0] : hi[0];
        ly = lo[1] + a * (hi[1] - lo[1]);
        lz = lo[2] + b * (hi[2] - lo[2]);
      } else {
        ly = r - faceAreas[1] < 0 ? lo[1] : hi[1];
        lx = lo[0] + a * (hi[0] - lo[0]);
        lz = lo[2] + b * (hi[2] - lo[2]);
      }
      out[k] = centre[0] + c * lx - s * ly;
      out[k + 1] = centre[1] + s * lx + c * ly;
      out[k + 2] = lz;
    },
  };
}

export function sphere(centre: [number, number, number], radius: number, colour: [number, number, number]): Primitive {
  return {
    colour,
    intersect(o, d, tMax, n) {
      const ox = o[0] - centre[0];
      const oy = o[1] - centre[1];
      const oz = o[2] - centre[2];
      const a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      const b = ox * d[0] + oy * d[1] + oz * d[2];
      const cc = ox * ox + oy * oy + oz * oz - radius * radius;
      const disc = b * b - a * cc;
      if (disc < 0) return Infinity;
      const t = (-b - Math.sqrt(disc)) / a;
      if (t <= EPS || t >= tMax) return Infinity;
      n[0] = (ox + t * d[0]) / radius;
      n[1] = (oy + t * d[1]) / radius;
      n[2] = (oz + t * d[2]) / radius;
      return t;
    },
    area: () => 4 * Math.PI * radius * radius,
    sample(a, b, _c, out, k) {
      const z = 2 * a - 1;
      const phi = 2 * Math.PI * b;
      const rho = Math.sqrt(Math.max(0, 1 - z * z));
      out[k] = centre[0] + radius * rho * Math.cos(phi);
      out[k + 1] = centre[1] + radius * rho * Math.sin(phi);
      out[k + 2] = centre[2] + radius * z;
    },
  };
}

/** Vertical cylinder on the ground with a top cap. */
export function cylinder(base: [number, number], radius: number, height: number, colour: [number, number, number]): Primitive {
  const sideArea = 2 * Math.PI * radius * height;
  const capArea = Math.PI * radius * radius;
  return {
    colour,
    intersect(o, d, tMax, n) {
      let best = Infinity;
      const ox = o[0] - base[0];
      const oy = o[1] - base[1];
      const a = d[0] * d[0] + d[1] * d[1];
      if (a > EPS) {
        const b = ox * d[0] + oy * d[1];
        const disc = b * b - a * (ox * ox + oy * oy - radius * radius);
        if (disc >= 0) {
          const t = (-b - Math.sqrt(disc)) / a;
          const z = o[2] + t * d[2];
          if (t > EPS && t < tMax && z >= 0 && z <= height) {
            best = t;
            n[0] = (ox + t * d[0]) / radius;
            n[1] = (oy + t * d[1]) / radius;
            n[2] = 0;
          }
        }
      }
      if (d[2] < -EPS) {
        const t = (height - o[2]) / d[2];
        const x = ox + t * d[0];
        const y = oy + t * d[1];
        if (t > EPS && t < Math.min(best, tMax) && x * x + y * y <= radius * radius) {
          best = t;
          n[0] = 0;
          n[1] = 0;
          n[2] = 1;
        }
      }
      return best;
    },
    area: () => sideArea + capArea,
    sample(a, b, pick, out, k) {
      if (pick * (sideArea + capArea) < capArea) {
        const rr = radius * Math.sqrt(a);
        out[k] = base[0] + rr * Math.cos(2 * Math.PI * b);
        out[k + 1] = base[1] + rr * Math.sin(2 * Math.PI * b);
        out[k + 2] = height;
      } else {
        out[k] = base[0] + radius * Math.cos(2 * Math.PI * a);
        out[k + 1] = base[1] + radius * Math.sin(2 * Math.PI * a);
        out[k + 2] = height * b;
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Solid texture: multi-octave 3-D value noise (Perlin, SIGGRAPH 1985 style lattice noise with
// trilinear smoothstep interpolation), one field per colour channel, so the pattern has both
// blobs and pixel-scale detail for feature detectors and NCC windows.

function hash3(x: number, y: number, z: number, seed: number): number {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(z, 0x9e3779b1) ^ Math.imul(seed, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

function valueNoise(x: number, y: number, z: number, seed: number): number {
  const xi = Math.floor(x);
  const yi = Math.floor(y);
  const zi = Math.floor(z);
  const fx = x - xi;
  const fy = y - yi;
  const fz = z - zi;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const sz = fz * fz * (3 - 2 * fz);
  let acc = 0;
  for (let corner = 0; corner < 8; corner++) {
    const cx = corner & 1;
    const cy = (corner >> 1) & 1;
    const cz = corner >> 2;
    const w = (cx ? sx : 1 - sx) * (cy ? sy : 1 - sy) * (cz ? sz : 1 - sz);
    acc += w * hash3(xi + cx, yi + cy, zi + cz, seed);
  }
  return acc;
}

/** Texture value in [0,1] at world point p (frequencies in cycles per world unit / radius). */
function fractal(x: number, y: number, z: number, baseFrequency: number, seed: number): number {
  let sum = 0;
  let norm = 0;
  let f = baseFrequency;
  let amp = 1;
  for (let octave = 0; octave < 4; octave++) {
    sum += amp * valueNoise(x * f, y * f, z * f, seed + octave * 101);
    norm += amp;
    f *= 2.13;
    amp *= 0.7;
  }
  // Stretch contrast: sums of octaves cluster around 0.5.
  return Math.min(1, Math.max(0, 0.5 + 1.8 * (sum / norm - 0.5)));
}

// ---------------------------------------------------------------------------------------------
// Scenes and cameras.

export interface SceneDef {
  primitives: Primitive[];
  center: [number, number, number];
  /** Per camera: where it is, what it looks at, and its focal length in image widths (default 1.1). */
  cameras: Array<{ eye: [number, number, number]; target: [number, number, number]; focal?: number }>;
  /** Colour of rays that hit nothing (default a pale sky). */
  background?: [number, number, number];
  /**
   * The primitives camera `index` can see (default all): a large scene culls per view, since
   * every ray tests every primitive it is given.
   */
  primitivesFor?: (index: number) => Primitive[];
}

function objectScene(r: number, views: number, stepDegrees: number): SceneDef {
  const primitives = [
    rectangle(2, 0, 1, [-1.6 * r, -1.6 * r], [1.6 * r, 1.6 * r], [0.85, 0.8, 0.65]),
    box([-0.38 * r, -0.15 * r], [0.25 * r, 0.2 * r], [0, 0.6 * r], 0.4, [0.9, 0.45, 0.3]),
    sphere([0.4 * r, 0.3 * r, 0.36 * r], 0.34 * r, [0.35, 0.6, 0.95]),
    cylinder([0.15 * r, -0.5 * r], 0.18 * r, 0.8 * r, [0.5, 0.9, 0.4]),
  ];
  const center: [number, number, number] = [0, 0, 0.3 * r];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const azimuth = (i * stepDegrees * Math.PI) / 180;
    const elevation = ((i % 2 === 0 ? 30 : 38) * Math.PI) / 180;
    const dist = 3.2 * r;
    cameras.push({
      eye: [center[0] + dist * Math.cos(elevation) * Math.cos(azimuth), center[1] + dist * Math.cos(elevation) * Math.sin(azimuth), center[2] + dist * Math.sin(elevation)],
      target: center,
    });
  }
  return { primitives, center, cameras };
}

function facadeScene(r: number, views: number): SceneDef {
  // A wall in the plane y = 0 facing −y, boxes protruding from it towards the cameras, and the ground.
  const wallColour: [number, number, number] = [0.85, 0.75, 0.6];
  const primitives: Primitive[] = [
    rectangle(1, 0, -1, [-2 * r, 0], [2 * r, 2 * r], wallColour),
    rectangle(2, 0, 1, [-2 * r, -1.2 * r], [2 * r, 0], [0.6, 0.6, 0.55]),
  ];
  const reliefs: Array<[number, number, number, number, number]> = [
    // x centre, z bottom, half width, height, protrusion (all × r)
    [-1.3, 0.3, 0.25, 0.5, 0.25],
    [-0.4, 0.9, 0.35, 0.4, 0.15],
    [0.5, 0.2, 0.3, 0.7, 0.35],
    [1.3, 1.1, 0.25, 0.45, 0.2],
    [0.0, 1.5, 0.6, 0.2, 0.1],
  ];
  reliefs.forEach(([x, z0, hw, h, depth], i) => {
    const colour: [number, number, number] = [0.6 + 0.1 * (i % 3), 0.5 + 0.15 * ((i + 1) % 3), 0.45 + 0.12 * ((i + 2) % 3)];
    primitives.push(box([x * r, -(depth * r) / 2], [hw * r, (depth * r) / 2], [z0 * r, (z0 + h) * r], 0, colour));
  });
  const center: [number, number, number] = [0, -0.15 * r, 1 * r];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const s = views === 1 ? 0 : i / (views - 1) - 0.5;
    cameras.push({ eye: [3 * r * s, -3.4 * r, (1.1 + 0.15 * (i % 2)) * r], target: [0.8 * r * s, 0, 0.9 * r] });
  }
  return { primitives, center, cameras };
}

/** camFromWorld looking from `eye` at `target` with world +Z up (OpenCV axes). */
export function lookAt(eye: [number, number, number], target: [number, number, number]): { R: Float64Array; t: Float64Array } {
  const f = normalize([target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]]);
  const right = normalize(cross(f, [0, 0, 1]));
  const down = cross(f, right);
  const R = new Float64Array([...right, ...down, ...f]);
  const t = new Float64Array(3);
  for (let i = 0; i < 3; i++) t[i] = -(R[3 * i] * eye[0] + R[3 * i + 1] * eye[1] + R[3 * i + 2] * eye[2]);
  return { R, t };
}

function cross(a: number[], b: number[]): [number, number, number] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function normalize(a: number[]): [number, number, number] {
  const n = Math.hypot(a[0], a[1], a[2]);
  return [a[0] / n, a[1] / n, a[2] / n];
}

// ---------------------------------------------------------------------------------------------
// Rendering.

const LIGHT = normalize([0.35, -0.6, 0.72]);

/** The hit's normal, per trace (one buffer: a new one per ray was garbage at millions of rays). */
const hitNormal = new Float64Array(3);

/** Nearest hit along the ray: returns t (Infinity = sky) and, unless `depthOnly`, writes its colour (0..1) into rgbOut. */
function trace(scene: SceneDef, o: Float64Array, d: Float64Array, seed: number, r: number, normal: Float64Array, rgbOut: Float64Array, depthOnly = false): number {
  let best = Infinity;
  let hit = -1;
  const n = hitNormal;
  for (let i = 0; i < scene.primitives.length; i++) {
    const t = scene.primitives[i].intersect(o, d, best, n);
    if (t < best) {
      best = t;
      hit = i;
      normal.set(n);
    }
  }
  // The pixel centre's ray gives the depth only; its colour was overwritten by the subsamples'.
  if (depthOnly) return best;
  if (hit < 0) {
    const sky = scene.background ?? [0.55, 0.7, 0.9];
    rgbOut[0] = sky[0];
    rgbOut[1] = sky[1];
    rgbOut[2] = sky[2];
    return Infinity;
  }
  const period = scene.primitives[hit].periodX;
  const xWorld = (o[0] + best * d[0]) / r;
  const x = period === undefined ? xWorld : xWorld - period * Math.floor(xWorld / period);
  const y = (o[1] + best * d[1]) / r;
  const z = (o[2] + best * d[2]) / r;
  const shade = 0.3 + 0.7 * Math.max(0, normal[0] * LIGHT[0] + normal[1] * LIGHT[1] + normal[2] * LIGHT[2]);
  const colour = scene.primitives[hit].colour;
  const paint = scene.primitives[hit].paint;
  if (paint) {
    const reflectance = paint(o[0] + best * d[0], o[1] + best * d[1], o[2] + best * d[2]);
    for (let ch = 0; ch < 3; ch++) rgbOut[ch] = shade * colour[ch] * reflectance;
    return best;
  }
  const contrast = scene.primitives[hit].contrast ?? 0.85;
  const coarse = fractal(x, y, z, 3, seed + 7);
  for (let ch = 0; ch < 3; ch++) {
    const fine = fractal(x + 17.3 * ch, y - 5.1 * ch, z + 2.7 * ch, 12, seed + 1000 * (ch + 1));
    rgbOut[ch] = shade * colour[ch] * (1 - contrast + contrast * (0.45 * coarse + 0.55 * fine));
  }
  return best;
}

function renderView(def: SceneDef, index: number, options: Omit<RenderOptions, "scene" | "views">, r: number, prefix: string): RenderedView {
  const scene = def.primitivesFor ? { ...def, primitives: def.primitivesFor(index) } : def;
  const { width, height, seed } = options;
  const ss = Math.max(1, Math.round(options.supersample ?? 2));
  const noiseAmp = options.noise ?? 2;
  const focal = (scene.cameras[index].focal ?? 1.1) * width;
  const cx = width / 2;
  const cy = height / 2;
  const { R, t } = lookAt(scene.cameras[index].eye, scene.cameras[index].target);
  const origin = new Float64Array(scene.cameras[index].eye);
  const dir = new Float64Array(3);
  const normal = new Float64Array(3);
  const colour = new Float64Array(3);
  const rgb = new Uint8Array(width * height * 3);
  const depth = new Float32Array(width * height);
  // World ray for pixel position (u, v); the camera-frame direction has z = 1, so t is the depth.
  const setRay = (u: number, v: number): void => {
    const xc = (u - cx) / focal;
    const yc = (v - cy) / focal;
    for (let k = 0; k < 3; k++) dir[k] = R[k] * xc + R[3 + k] * yc + R[6 + k];
  };
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const p = row * width + col;
      setRay(col + 0.5, row + 0.5);
      const tCentre = trace(scene, origin, dir, seed, r, normal, colour, true);
      depth[p] = Number.isFinite(tCentre) ? tCentre : 0;
      const acc = [0, 0, 0];
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          setRay(col + (sx + 0.5) / ss, row + (sy + 0.5) / ss);
          trace(scene, origin, dir, seed, r, normal, colour);
          for (let ch = 0; ch < 3; ch++) acc[ch] += colour[ch];
        }
      }
      for (let ch = 0; ch < 3; ch++) {
        const jitter = noiseAmp * (2 * hash3(col, row, ch, seed * 31 + index) - 1);
        rgb[3 * p + ch] = Math.max(0, Math.min(255, Math.round((255 * acc[ch]) / (ss * ss) + jitter)));
      }
    }
  }
  const K = new Float64Array([focal, 0, cx, 0, focal, cy, 0, 0, 1]);
  return { name: `${prefix}_${String(index).padStart(2, "0")}`, width, height, rgb, depth, K, R, t };
}

/** Render `views` views of the chosen scene. Deterministic for given options. */
export function renderScene(options: RenderOptions): RenderedScene {
  const r = options.radius ?? 1;
  const step = options.stepDegrees ?? Math.min(360 / options.views, 15);
  const scene = options.scene === "object" ? objectScene(r, options.views, step) : facadeScene(r, options.views);
  const views: RenderedView[] = [];
  for (let i = 0; i < options.views; i++) views.push(renderView(scene, i, options, r, options.scene));
  return {
    views,
    sceneRadius: r,
    center: scene.center,
    samplePoints: (n) => samplePrimitives(scene.primitives, n, options.seed),
  };
}

/** Render every camera of a scene defined by the caller (primitives, cameras, background). */
export function renderDefinedScene(def: SceneDef, options: Omit<RenderOptions, "scene" | "views"> & { prefix: string; sceneRadius: number }): RenderedScene {
  const r = options.radius ?? 1;
  const views = def.cameras.map((_, i) => renderView(def, i, options, r, options.prefix));
  return { views, sceneRadius: options.sceneRadius, center: def.center, samplePoints: (n) => samplePrimitives(def.primitives, n, options.seed) };
}

/** Render one camera of a caller-defined scene (for callers that spread views over threads). */
export function renderDefinedView(def: SceneDef, index: number, options: Omit<RenderOptions, "scene" | "views"> & { prefix: string }): RenderedView {
  return renderView(def, index, options, options.radius ?? 1, options.prefix);
}

function samplePrimitives(primitives: Primitive[], n: number, seed: number): Float64Array {
  const areas = primitives.map((p) => p.area());
  const total = areas.reduce((a, b) => a + b, 0);
  const out = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    let pick = hash3(i, 1, 2, seed) * total;
    let which = 0;
    while (which < primitives.length - 1 && pick >= areas[which]) pick -= areas[which++];
    primitives[which].sample(hash3(i, 3, 4, seed), hash3(i, 5, 6, seed), hash3(i, 7, 8, seed), out, 3 * i);
  }
  return out;
}

/**
 * Keep the points (3·n floats) that at least `minViews` views see unoccluded: the point projects
 * inside the image and its depth matches the rendered depth there within `relTolerance`.
 */
export function visiblePoints(points: Float64Array, views: RenderedView[], minViews = 2, relTolerance = 0.01): Float64Array {
  const kept: number[] = [];
  for (let i = 0; i < points.length; i += 3) {
    let seen = 0;
    for (const view of views) {
      const { R, t, K } = view;
      const z = R[6] * points[i] + R[7] * points[i + 1] + R[8] * points[i + 2] + t[2];
      if (z <= 0) continue;
      const x = R[0] * points[i] + R[1] * points[i + 1] + R[2] * points[i + 2] + t[0];
      const y = R[3] * points[i] + R[4] * points[i + 1] + R[5] * points[i + 2] + t[1];
      const col = Math.floor((K[0] * x) / z + K[2]);
      const row = Math.floor((K[4] * y) / z + K[5]);
      if (col < 0 || row < 0 || col >= view.width || row >= view.height) continue;
      const d = view.depth[row * view.width + col];
      if (d > 0 && Math.abs(d - z) < relTolerance * z) seen++;
    }
    if (seen >= minViews) kept.push(points[i], points[i + 1], points[i + 2]);
  }
  return new Float64Array(kept);
}

/** Write each view as `<dir>/<name>.jpg` (quality 92) or `.png`; returns the paths in view order. */
export async function writeViewsAsImages(views: RenderedView[], dir: string, format: "jpeg" | "png" = "jpeg"): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (const view of views) {
    const file = path.join(dir, `${view.name}.${format === "jpeg" ? "jpg" : "png"}`);
    const image = sharp(Buffer.from(view.rgb.buffer, view.rgb.byteOffset, view.rgb.byteLength), { raw: { width: view.width, height: view.height, channels: 3 } });
    await (format === "jpeg" ? image.jpeg({ quality: 92 }) : image.png()).toFile(file);
    paths.push(file);
  }
  return paths;
}
