// Tells `cloudflare:workers` (env, exports) the shape of this Worker.
declare namespace Cloudflare {
  type ProjectEnv = import("./env.js").Env;
  interface Env extends ProjectEnv {}
  interface GlobalProps {
    mainModule: typeof import("./index.js");
  }
}
