import { serveTasks } from "../../../compute/util/pool.js";

/** Reports i / steps for each step, then answers with the number of steps. */
serveTasks<{ steps: number }, number>(({ steps }, report) => {
  for (let i = 1; i <= steps; i++) report(i / steps);
  return { value: steps };
});
