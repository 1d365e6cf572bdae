import { serveTasks } from "../../../compute/util/pool.js";

serveTasks<{ values: Float64Array; fail?: boolean }, Float64Array>(({ values, fail }) => {
  if (fail) throw new Error("asked to fail");
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] * values[i];
  return { value: out, transfer: [out.buffer] };
});
