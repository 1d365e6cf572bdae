/**
 * @module A real glTF viewer, headless: three.js (GLTFLoader, PLYLoader) in Chromium from
 * `@sparticuz/chromium` (WebGL through SwiftShader), driven by puppeteer-core. Renders a model
 * file from a camera given as OpenCV intrinsics and pose, exactly as a user's viewer would
 * show it: glTF colour rules (sRGB textures, linear COLOR_0), the file's own materials
 * (KHR_materials_unlit honoured), three's default sRGB output. Pixels the model does not
 * cover come back with alpha 0.
 *
 * Nothing is fetched from the network: a loopback HTTP server serves the page, three.js from
 * node_modules and the model files.
 */
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { repoRoot } from "./datasets.js";

/** A pinhole camera: pixel intrinsics at the render size and camFromWorld (OpenCV axes). */
export interface RenderCamera {
  width: number;
  height: number;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  /** Row-major 3×3 and translation: x_cam = R·X + t, x right, y down, z forward. */
  R: ArrayLike<number>;
  t: ArrayLike<number>;
}

export interface RenderedImage {
  width: number;
  height: number;
  /** RGBA, top row first; alpha 0 where nothing was drawn. */
  rgba: Uint8Array;
}

const PAGE = `<!doctype html><html><body style="margin:0;background:#000">
<script type="importmap">{"imports":{"three":"/three/build/three.module.js","three/addons/":"/three/examples/jsm/"}}</script>
<script type="module" src="/render.js"></script></body></html>`;

/**
 * The page script: loads a model, sets a camera from K and camFromWorld, renders once into a
 * transparent canvas and returns the pixels. three's camera looks down −z with +y up, so the
 * OpenCV camera frame is flipped in y and z; the projection matrix is built from K so an
 * off-centre principal point is respected (OpenGL clip space, y up).
 */
const RENDER_SCRIPT = `
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { PLYLoader } from "three/addons/loaders/PLYLoader.js";
const cache = new Map();
async function load(url) {
  if (cache.has(url)) return cache.get(url);
  let object;
  if (url.endsWith(".ply")) {
    const geometry = await new PLYLoader().loadAsync(url);
    object = new THREE.Mesh(geometry, new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide }));
  } else {
    object = (await new GLTFLoader().loadAsync(url)).scene;
  }
  cache.set(url, object);
  return object;
}
window.renderView = async (url, cam) => {
  const object = await load(url);
  const scene = new THREE.Scene();
  scene.add(object);
  // Lit materials (a file without KHR_materials_unlit) see a white ambient light of
  // intensity π, under which a white Lambertian surface renders white (three's physically
  // based lights divide by π).
  scene.add(new THREE.AmbientLight(0xffffff, Math.PI));
  const renderer = new THREE.WebGLRenderer({ antialias: true, alpha: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(cam.width, cam.height);
  renderer.setClearColor(0x000000, 0);
  const camera = new THREE.PerspectiveCamera();
  const near = cam.near, far = cam.far, w = cam.width, h = cam.height;
  camera.projectionMatrix.set(
    2 * cam.fx / w, 0, 1 - 2 * cam.cx / w, 0,
    0, 2 * cam.fy / h, 2 * cam.cy / h - 1, 0,
    0, 0, -(far + near) / (far - near), -2 * far * near / (far - near),
    0, 0, -1, 0);
  camera.projectionMatrixInverse.copy(camera.projectionMatrix).invert();
  // worldFromCamera (three's axes) = [Rᵀ · diag(1, −1, −1) | C], C = −Rᵀt.
  const R = cam.R, t = cam.t;
  const C = [0, 1, 2].map((k) => -(R[k] * t[0] + R[3 + k] * t[1] + R[6 + k] * t[2]));
  const m = new THREE.Matrix4().set(
    R[0], -R[3], -R[6], C[0],
    R[1], -R[4], -R[7], C[1],
    R[2], -R[5], -R[8], C[2],
    0, 0, 0, 1);
  camera.matrixAutoUpdate = false;
  camera.matrix.copy(m);
  camera.matrixWorld.copy(m);
  camera.matrixWorldInverse.copy(m).invert();
  renderer.render(scene, camera);
  const gl = renderer.getContext();
  const pixels = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  renderer.dispose();
  renderer.forceContextLoss();
  // readPixels starts at the bottom row; flip to top row first, and send as base64.
  const flipped = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) flipped.set(pixels.subarray((h - 1 - y) * w * 4, (h - y) * w * 4), y * w * 4);
  let text = "";
  for (let i = 0; i < flipped.length; i += 0x8000) text += String.fromCharCode.apply(null, flipped.subarray(i, i + 0x8000));
  return btoa(text);
};
window.ready = true;
`;

/** Serves the page, three.js and registered model files on a loopback port. */
class ModelServer {
  private readonly files = new Map<string, string>();
  private readonly server = http.createServer((req, res) => void this.serve(req.url ?? "/", res));
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** A URL path for `file` (its extension kept, so the page picks the loader). */
  add(file: string): string {
    for (const [url, known] of this.files) if (known === file) return url;
    const url = `/models/${this.files.size}${path.extname(file)}`;
    this.files.set(url, file);
    return url;
  }

  private async serve(url: string, res: http.ServerResponse): Promise<void> {
    const clean = decodeURIComponent(url.split("?")[0]);
    try {
      if (clean === "/") return send(res, "text/html", PAGE);
      if (clean === "/render.js") return send(res, "text/javascript", RENDER_SCRIPT);
      const model = this.files.get(clean);
      if (model) return send(res, "application/octet-stream", await readFile(model));
      const threeRoot = path.join(repoRoot, "node_modules", "three");
      const file = path.resolve(threeRoot, "." + clean.replace(/^\/three/, ""));
      if (clean.startsWith("/three/") && file.startsWith(threeRoot)) return send(res, "text/javascript", await readFile(file));
      res.statusCode = 404;
      res.end();
    } catch {
      res.statusCode = 404;
      res.end();
    }
  }

  close(): void {
    this.server.close();
  }
}

function send(res: http.ServerResponse, type: string, body: string | Buffer): void {
  res.setHeader("Content-Type", type);
  res.end(body);
}

export class ThreeRenderer {
  private constructor(private readonly browser: Browser, private readonly page: Page, private readonly server: ModelServer) {}

  static async launch(): Promise<ThreeRenderer> {
    const server = new ModelServer();
    await server.start();
    const browser = await puppeteer.launch({
      executablePath: await chromium.executablePath(),
      args: [...chromium.args, "--use-gl=angle", "--use-angle=swiftshader", "--disable-background-networking", "--disable-component-update"],
      headless: true,
    });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.port}/`);
    await page.waitForFunction("window.ready === true", { timeout: 60_000 });
    return new ThreeRenderer(browser, page, server);
  }

  /** Renders a .glb/.gltf (or a .ply mesh, drawn white) from `camera`; near/far in model units. */
  async render(file: string, camera: RenderCamera, near: number, far: number): Promise<RenderedImage> {
    const url = this.server.add(file);
    const cam = { width: camera.width, height: camera.height, fx: camera.fx, fy: camera.fy, cx: camera.cx, cy: camera.cy, R: Array.from(camera.R), t: Array.from(camera.t), near, far };
    const base64 = (await this.page.evaluate((u, c) => (window as unknown as { renderView: (u: string, c: unknown) => Promise<string> }).renderView(u, c), url, cam)) as string;
    return { width: camera.width, height: camera.height, rgba: new Uint8Array(Buffer.from(base64, "base64")) };
  }

  async close(): Promise<void> {
    await this.browser.close();
    this.server.close();
  }
}
