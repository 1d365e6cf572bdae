// Tells `cloudflare:workers` (env, exports) the shape of this Worker.
declare namespace Cloudflare {
  interface Env extends import("./env.js").Env {}
  interface GlobalProps {
    mainModule: typeof import("./index.js");
  }
}
