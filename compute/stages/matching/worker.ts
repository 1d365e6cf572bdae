/** @module Worker thread of the matching stage: serves pair.ts's tasks and view-matches.ts's. */
import { serveTasks } from "../../util/pool.js";
import { matchTask, type PairResult, type PairTask } from "./pair.js";
import { viewPairTask, type ViewPairResult, type ViewPairTask } from "./view-matches.js";

serveTasks<PairTask | ViewPairTask, PairResult | ViewPairResult>((task) => ("kind" in task && task.kind === "views" ? viewPairTask(task) : matchTask(task as PairTask)));
