/** @module Worker thread of the matching stage: serves pair.ts's tasks. */
import { serveTasks } from "../../util/pool.js";
import { matchTask, type PairResult, type PairTask } from "./pair.js";

serveTasks<PairTask, PairResult>(matchTask);
