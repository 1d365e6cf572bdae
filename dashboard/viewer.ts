/**
 * @module The 3D viewer of a completed reconstruction (three.js, bundled: never from a CDN).
 *
 * Loads the GLB (textured mesh plus one glTF camera node per registered photo, docs/API.md) and, on
 * demand, the PLY point cloud, from the signed links the page carries. Orbit with the mouse,
 * touch or arrow keys, zoom with the wheel or a pinch; the photo cameras are drawn as frusta
 * (a pyramid from the camera centre to an image rectangle, looking down the node's −Z with +Y up,
 * as glTF defines) sized to the model, and can be hidden.
 */
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { PLYLoader } from "three/examples/jsm/loaders/PLYLoader.js";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

/** Frustum depth as a fraction of the model's bounding radius: visible, never dominating. */
const FRUSTUM_DEPTH_OF_RADIUS = 0.12;

function frustaOf(cameras: THREE.PerspectiveCamera[], depth: number): THREE.LineSegments {
  const positions: number[] = [];
  for (const camera of cameras) {
    camera.updateMatrixWorld(true);
    const halfHeight = Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2) * depth;
    const halfWidth = halfHeight * (camera.aspect || 1);
    const apex = new THREE.Vector3().applyMatrix4(camera.matrixWorld);
    const corners = [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([x, y]) => new THREE.Vector3(x * halfWidth, y * halfHeight, -depth).applyMatrix4(camera.matrixWorld));
    for (let i = 0; i < 4; i++) {
      positions.push(...apex.toArray(), ...corners[i].toArray());
      positions.push(...corners[i].toArray(), ...corners[(i + 1) % 4].toArray());
    }
    // A tick on the top edge tells up from down.
    const top = new THREE.Vector3(0, halfHeight * 1.4, -depth).applyMatrix4(camera.matrixWorld);
    positions.push(...corners[2].toArray(), ...top.toArray(), ...top.toArray(), ...corners[3].toArray());
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
  return new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ color: 0xff8c1a }));
}

async function start(container: HTMLElement): Promise<void> {
  const canvas = container.querySelector<HTMLCanvasElement>("canvas")!;
  const status = container.querySelector<HTMLElement>("#viewer-status")!;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x20242b);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 2.2));
  const camera = new THREE.PerspectiveCamera(50, 1, 0.01, 1000);
  const controls = new OrbitControls(camera, canvas);
  controls.listenToKeyEvents(canvas);
  const render = () => renderer.render(scene, camera);
  controls.addEventListener("change", render);

  const resize = () => {
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    renderer.setSize(width, height, false);
    camera.aspect = width / Math.max(1, height);
    camera.updateProjectionMatrix();
    render();
  };
  new ResizeObserver(resize).observe(canvas);

  const gltf = await new GLTFLoader().loadAsync(container.dataset.glb!);
  const model = gltf.scene;
  scene.add(model);
  model.updateMatrixWorld(true);
  const meshes: THREE.Object3D[] = [];
  // Anisotropic filtering: ground and walls seen at a grazing angle sample the texture's
  // mipmaps along their long footprint instead of blurring it (three's default is 1). From a
  // photo's own camera the cobbles at Herz-Jesus-P8's feet went from smeared to visible: the
  // render's gradient energy there 0.74 → 0.89 of the photo's (scratch render, 2026-12-02).
  const anisotropy = renderer.capabilities.getMaxAnisotropy();
  model.traverse((o) => {
    if (!(o as THREE.Mesh).isMesh) return;
    meshes.push(o);
    const map = ((o as THREE.Mesh).material as THREE.MeshBasicMaterial | undefined)?.map;
    if (map) {
      map.anisotropy = anisotropy;
      map.needsUpdate = true;
    }
  });
  const box = new THREE.Box3();
  for (const mesh of meshes) box.expandByObject(mesh);
  const sphere = box.getBoundingSphere(new THREE.Sphere());
  const radius = sphere.radius || 1;
  const cameras = gltf.cameras.filter((c): c is THREE.PerspectiveCamera => (c as THREE.PerspectiveCamera).isPerspectiveCamera);
  const frusta = frustaOf(cameras, radius * FRUSTUM_DEPTH_OF_RADIUS);
  scene.add(frusta);

  // Frame the model and the photo cameras together, seen from the side the photos were taken
  // from (the mean camera position), so the first view shows what the user photographed.
  const scenery = box.clone();
  const centres = cameras.map((c) => new THREE.Vector3().setFromMatrixPosition(c.matrixWorld));
  for (const centre of centres) scenery.expandByPoint(centre);
  const frame = scenery.getBoundingSphere(new THREE.Sphere());
  const meanCamera = centres.reduce((sum, c) => sum.add(c), new THREE.Vector3()).divideScalar(Math.max(1, centres.length));
  const direction = centres.length ? meanCamera.sub(frame.center).normalize() : new THREE.Vector3(0, 0.3, 1).normalize();
  // Close enough that the model fills the view; the outermost cameras may touch its edges.
  const distance = 1.5 * frame.radius;
  camera.position.copy(frame.center).addScaledVector(direction, distance);
  camera.near = frame.radius / 100;
  camera.far = frame.radius * 100;
  controls.target.copy(frame.center);
  controls.update();
  resize();

  let points: THREE.Points | null = null;
  const showGeometry = async (kind: string) => {
    if (kind === "points" && !points && container.dataset.ply) {
      status.textContent = "Loading the point cloud…";
      const geometry = await new PLYLoader().loadAsync(container.dataset.ply);
      const material = new THREE.PointsMaterial({ size: radius / 300, vertexColors: geometry.hasAttribute("color") });
      points = new THREE.Points(geometry, material);
      scene.add(points);
    }
    for (const mesh of meshes) mesh.visible = kind === "mesh";
    if (points) points.visible = kind === "points";
    status.textContent = kind === "points" ? "Point cloud. Drag to orbit, scroll or pinch to zoom." : "Mesh. Drag to orbit, scroll or pinch to zoom.";
    canvas.dataset.showing = kind;
    render();
  };
  for (const radio of container.querySelectorAll<HTMLInputElement>('input[name="geometry"]')) {
    radio.addEventListener("change", () => void showGeometry(radio.value).catch((err: unknown) => (status.textContent = `Could not load: ${String(err)}`)));
  }
  const toggle = container.querySelector<HTMLInputElement>("#show-cameras")!;
  toggle.addEventListener("change", () => {
    frusta.visible = toggle.checked;
    render();
  });
  status.textContent = `Mesh with ${cameras.length} cameras. Drag to orbit, scroll or pinch to zoom.`;
  canvas.dataset.ready = "1";
  canvas.dataset.cameras = String(cameras.length);
}

const container = document.getElementById("viewer");
if (container) {
  start(container).catch((err: unknown) => {
    container.querySelector("#viewer-status")!.textContent = `The viewer could not start: ${String(err)}`;
  });
}
