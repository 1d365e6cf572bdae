/**
 * @module The camera stress suite's scenes (issue "Cameras you can trust"): captures that
 * each break a different assumption of incremental SfM, rendered with known cameras.
 *
 * - doorway: a flat facade with one deep recessed doorway (homography-dominated pairs, a
 *   small off-plane part that a wrong focal can trade against depth);
 * - ring: a sparse ring of 16 views around a dull object on black (few features, wide angles);
 * - panning: a camera turning almost in place inside a courtyard (rotation, hardly any baseline);
 * - tiled: a facade of identical windows on a repeating wall texture (repeated structure);
 * - twoFocal: one object shot by two cameras of different focal length, same image size, no EXIF;
 * - mixed: a facade sequence with three photos of an unrelated scene mixed in;
 * - courtyard: a closed courtyard seen from its middle with a wide lens;
 * - mural: one flat painted wall and nothing else (every pair a homography);
 * - wideRing: a textured object seen from 8 directions 45° apart (too far apart for plain matching).
 *
 * Each scene names the photos that belong to it (ground truth known) and those that must stay
 * unregistered. World +Z up, distances in units of the scene's radius as in render.ts.
 */
import { box, cylinder, rectangle, renderDefinedScene, renderScene, sphere, type Primitive, type RenderedView, type SceneDef } from "./render.js";

export interface StressScene {
  name: string;
  /** Every photo of the upload, in upload order. */
  views: RenderedView[];
  /** Names of the photos whose cameras are known (all but the unrelated ones). */
  truthNames: Set<string>;
  sceneRadius: number;
}

export interface StressOptions {
  width: number;
  height: number;
  seed: number;
}

const WALL: [number, number, number] = [0.85, 0.75, 0.6];
const GROUND: [number, number, number] = [0.6, 0.6, 0.55];

function along(views: number, i: number): number {
  return views === 1 ? 0 : i / (views - 1) - 0.5;
}

/** A flat wall (y = 0, facing −y) with a doorway 0.7 wide, 1.3 high and 0.9 deep, and the ground. */
function doorwayDef(views: number): SceneDef {
  const half = 0.35;
  const top = 1.3;
  const depth = 0.9;
  const inside: [number, number, number] = [0.7, 0.62, 0.5];
  const primitives: Primitive[] = [
    rectangle(1, 0, -1, [-2, 0], [-half, 2], WALL),
    rectangle(1, 0, -1, [half, 0], [2, 2], WALL),
    rectangle(1, 0, -1, [-half, top], [half, 2], WALL),
    rectangle(1, depth, -1, [-half, 0], [half, top], inside),
    rectangle(0, -half, 1, [0, 0], [depth, top], inside),
    rectangle(0, half, -1, [0, 0], [depth, top], inside),
    rectangle(2, top, -1, [-half, 0], [half, depth], inside),
    rectangle(2, 0, 1, [-half, 0], [half, depth], GROUND),
    rectangle(2, 0, 1, [-2, -1.4], [2, 0], GROUND),
  ];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const s = along(views, i);
    cameras.push({ eye: [2.6 * s, -3.2, 1.0 + 0.12 * (i % 2)], target: [0.7 * s, 0.2, 0.85] });
  }
  return { primitives, center: [0, 0, 0.9], cameras };
}

/**
 * A mural: one flat painted wall (y = 0, facing −y) and nothing else in view, photographed by
 * someone walking past it, each photo aimed at a different part of the wall. Every pair is
 * explained by a homography, so the essential matrix has its planar ambiguity everywhere.
 */
function muralDef(views: number): SceneDef {
  const primitives: Primitive[] = [rectangle(1, 0, -1, [-3, 0], [3, 2.6], [0.8, 0.66, 0.5])];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const s = along(views, i);
    cameras.push({ eye: [2.4 * s, -2.2 - 0.3 * (i % 3), 1.2 + 0.25 * ((i + 1) % 2)], target: [1.2 * s + 0.3 * ((i % 3) - 1), 0, 1.3 - 0.2 * (i % 2)] });
  }
  return { primitives, center: [0, 0, 1.3], cameras };
}

/** A dull, low-contrast object (box, sphere, cylinder) floating on black, ringed by `views` cameras. */
function ringDef(views: number): SceneDef {
  const dull = (p: Primitive): Primitive => ({ ...p, contrast: 0.45 });
  const primitives = [
    dull(box([-0.35, -0.15], [0.25, 0.2], [0, 0.6], 0.4, [0.85, 0.75, 0.6])),
    dull(sphere([0.4, 0.3, 0.36], 0.34, [0.8, 0.78, 0.7])),
    dull(cylinder([0.1, -0.5], 0.18, 0.8, [0.75, 0.8, 0.7])),
  ];
  const center: [number, number, number] = [0, 0, 0.35];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const azimuth = (2 * Math.PI * i) / views;
    const elevation = ((i % 2 === 0 ? 25 : 35) * Math.PI) / 180;
    const dist = 2.6;
    cameras.push({ eye: [dist * Math.cos(elevation) * Math.cos(azimuth), dist * Math.cos(elevation) * Math.sin(azimuth), center[2] + dist * Math.sin(elevation)], target: center });
  }
  return { primitives, center, cameras, background: [0, 0, 0] };
}

/** A courtyard 6 × 6 with a box and a column in it; the camera turns 80° with 1 % of baseline per step. */
function panningDef(views: number): SceneDef {
  const primitives: Primitive[] = [
    rectangle(1, 3, -1, [-3, 0], [3, 2.5], WALL),
    rectangle(0, 3, -1, [-3, 3], [0, 2.5], [0.75, 0.7, 0.62]),
    rectangle(0, -3, 1, [-3, 3], [0, 2.5], [0.8, 0.72, 0.66]),
    rectangle(2, 0, 1, [-3, -3], [3, 3], GROUND),
    box([1.2, 1.6], [0.4, 0.3], [0, 0.9], 0.3, [0.9, 0.5, 0.35]),
    cylinder([-1.4, 1.9], 0.25, 2.2, [0.55, 0.8, 0.5]),
  ];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const yaw = ((-40 + (80 * i) / Math.max(1, views - 1)) * Math.PI) / 180;
    const eye: [number, number, number] = [0.03 * i, -1.5 + 0.01 * i, 1.3];
    cameras.push({ eye, target: [eye[0] + Math.sin(yaw), eye[1] + Math.cos(yaw), 1.15] });
  }
  return { primitives, center: [0, 1, 1.2], cameras };
}

/**
 * A closed courtyard 7 × 7 (four walls, the ground, a few boxes) seen from its middle: the
 * cameras stand on a circle of radius 1 and look outward, 360° in `views` steps, so each photo
 * overlaps its neighbours and, barely, their neighbours (a sparse capture when `views` is small).
 */
function courtyardDef(views: number): SceneDef {
  const h = 3.5;
  const primitives: Primitive[] = [
    rectangle(1, h, -1, [-h, 0], [h, 2.4], WALL),
    rectangle(1, -h, 1, [-h, 0], [h, 2.4], [0.8, 0.72, 0.66]),
    rectangle(0, h, -1, [-h, 0], [h, 2.4], [0.75, 0.7, 0.62]),
    rectangle(0, -h, 1, [-h, 0], [h, 2.4], [0.7, 0.76, 0.64]),
    rectangle(2, 0, 1, [-h, -h], [h, h], GROUND),
    box([2.2, 1.6], [0.4, 0.3], [0, 0.9], 0.3, [0.9, 0.5, 0.35]),
    box([-2.0, -2.3], [0.5, 0.35], [0, 0.7], -0.4, [0.5, 0.6, 0.85]),
    cylinder([-2.4, 2.1], 0.25, 1.8, [0.55, 0.8, 0.5]),
  ];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const angle = (2 * Math.PI * i) / views;
    const eye: [number, number, number] = [Math.cos(angle), Math.sin(angle), 1.4 + 0.1 * (i % 2)];
    // A phone's wide lens (71° across): neighbours overlap by 68 %, every second photo by 37 %.
    cameras.push({ eye, target: [3 * Math.cos(angle), 3 * Math.sin(angle), 1.0], focal: 0.7 });
  }
  return { primitives, center: [0, 0, 1.2], cameras };
}

/** A wall of 14 identical windows (boxes, the same texture in each) every 0.8 along x. */
function tiledDef(views: number): SceneDef {
  const period = 0.8;
  // The wall's own texture does not repeat (a real wall's stains and joints never do exactly);
  // the windows are identical, texture included, as on a building of one repeated module.
  const primitives: Primitive[] = [rectangle(1, 0, -1, [-2.4, 0], [2.4, 2], WALL), rectangle(2, 0, 1, [-2.4, -1.4], [2.4, 0], GROUND)];
  for (let column = -3; column <= 3; column++) {
    for (const z0 of [0.35, 1.15]) {
      const window = box([column * period, -0.1], [0.3, 0.1], [z0, z0 + 0.55], 0, [0.5, 0.55, 0.65]);
      primitives.push({ ...window, periodX: period });
    }
  }
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const s = along(views, i);
    cameras.push({ eye: [3.2 * s, -3.3, 1.0 + 0.15 * (i % 2)], target: [1.0 * s, 0, 0.95] });
  }
  return { primitives, center: [0, -0.05, 1], cameras };
}

/** The test object ring shot alternately with a 1.0- and a 1.5-width focal length. */
function twoFocalDef(views: number): SceneDef {
  const primitives = [
    rectangle(2, 0, 1, [-1.6, -1.6], [1.6, 1.6], [0.85, 0.8, 0.65]),
    box([-0.38, -0.15], [0.25, 0.2], [0, 0.6], 0.4, [0.9, 0.45, 0.3]),
    sphere([0.4, 0.3, 0.36], 0.34, [0.35, 0.6, 0.95]),
    cylinder([0.15, -0.5], 0.18, 0.8, [0.5, 0.9, 0.4]),
  ];
  const center: [number, number, number] = [0, 0, 0.3];
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const azimuth = (i * 14 * Math.PI) / 180;
    const long = i % 2 === 1;
    const dist = long ? 4.4 : 3.0;
    const elevation = (32 * Math.PI) / 180;
    cameras.push({ eye: [dist * Math.cos(elevation) * Math.cos(azimuth), dist * Math.cos(elevation) * Math.sin(azimuth), center[2] + dist * Math.sin(elevation)], target: center, focal: long ? 1.5 : 1.0 });
  }
  return { primitives, center, cameras };
}

/** The test object ring (twoFocal's) photographed from `views` directions evenly around it: 45° apart at 8. */
function wideRingDef(views: number): SceneDef {
  const { primitives, center } = twoFocalDef(0);
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < views; i++) {
    const azimuth = (2 * Math.PI * i) / views;
    const elevation = ((i % 2 === 0 ? 30 : 36) * Math.PI) / 180;
    const dist = 3.0;
    cameras.push({ eye: [dist * Math.cos(elevation) * Math.cos(azimuth), dist * Math.cos(elevation) * Math.sin(azimuth), center[2] + dist * Math.sin(elevation)], target: center });
  }
  return { primitives, center, cameras };
}

function named(views: RenderedView[]): Set<string> {
  return new Set(views.map((v) => v.name));
}

export const STRESS_SCENES = ["doorway", "ring", "panning", "tiled", "twoFocal", "mixed", "courtyard", "mural", "wideRing"] as const;
export type StressSceneName = (typeof STRESS_SCENES)[number];

export function renderStressScene(name: StressSceneName, options: StressOptions): StressScene {
  const render = (def: SceneDef, sceneRadius: number) => renderDefinedScene(def, { ...options, prefix: name, sceneRadius });
  switch (name) {
    case "doorway": {
      const s = render(doorwayDef(10), 2);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "ring": {
      const s = render(ringDef(16), 1);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "panning": {
      const s = render(panningDef(9), 3);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "tiled": {
      const s = render(tiledDef(10), 2.4);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "twoFocal": {
      const s = render(twoFocalDef(12), 1);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "wideRing": {
      const s = render(wideRingDef(8), 1);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "mural": {
      const s = render(muralDef(10), 2);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "courtyard": {
      const s = render(courtyardDef(16), 3.5);
      return { name, views: s.views, truthNames: named(s.views), sceneRadius: s.sceneRadius };
    }
    case "mixed": {
      const facade = renderScene({ scene: "facade", views: 8, width: options.width, height: options.height, seed: options.seed });
      const unrelated = renderScene({ scene: "object", views: 3, width: options.width, height: options.height, seed: options.seed + 99, stepDegrees: 12 });
      // The unrelated photos come second, fifth and last in the upload, as a user's stray photos would.
      const views = [...facade.views];
      views.splice(1, 0, unrelated.views[0]);
      views.splice(5, 0, unrelated.views[1]);
      views.push(unrelated.views[2]);
      return { name, views, truthNames: named(facade.views), sceneRadius: 2 };
    }
  }
}
