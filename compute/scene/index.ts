export * from "./camera.js";
export * from "./images.js";
export * from "./features.js";
export * from "./matches.js";
export * from "./reconstruction.js";
export * from "./dense-outputs.js";
export * from "./report.js";
export * from "./transform.js";
