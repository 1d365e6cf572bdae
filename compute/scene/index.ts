export * from "./camera.js";
export * from "./images.js";
export * from "./features.js";
export * from "./matches.js";
export * from "./reconstruction.js";
export * from "./geometry3d.js";
export * from "./report.js";
