/** A worker that ends its thread without a word when asked (as a module that cannot run would). */
import { serveTasks } from "../../../compute/util/pool.js";

serveTasks((task: { exit: boolean }) => {
  if (task.exit) process.exit(3);
  return { value: "ok" };
});
