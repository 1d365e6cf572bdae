import { describe, expect, it } from "vitest";
import { atMost, WorkerPool, type TaskRunner } from "../../../compute/util/pool.js";

describe("util/pool", () => {
  it("runs tasks on worker threads and reports worker errors per task", async () => {
    const pool = new WorkerPool<{ values: Float64Array; fail?: boolean }, Float64Array>(new URL("./square-worker.ts", import.meta.url), { size: 2 });
    try {
      const results = await Promise.all([1, 2, 3, 4].map((k) => pool.run({ values: new Float64Array([k, k + 1]) })));
      expect(results.map((r) => Array.from(r))).toEqual([[1, 4], [4, 9], [9, 16], [16, 25]]);
      await expect(pool.run({ values: new Float64Array(1), fail: true })).rejects.toThrow(/asked to fail/);
      expect(Array.from(await pool.run({ values: new Float64Array([5]) }))).toEqual([25]);
    } finally {
      await pool.close();
    }
  });

  it("hands each task's progress reports to that task's caller", async () => {
    const pool = new WorkerPool<{ steps: number }, number>(new URL("./progress-worker.ts", import.meta.url), { size: 2 });
    try {
      const seen: number[][] = [[], [], []];
      const answers = await Promise.all([4, 2, 3].map((steps, k) => pool.run({ steps }, [], (f) => seen[k].push(f))));
      expect(answers).toEqual([4, 2, 3]);
      expect(seen).toEqual([[0.25, 0.5, 0.75, 1], [0.5, 1], [1 / 3, 2 / 3, 1]]);
      // Without a callback the reports are dropped.
      expect(await pool.run({ steps: 5 })).toBe(5);
    } finally {
      await pool.close();
    }
  });

  it("fails a task at once when its worker thread exits without an error", async () => {
    const pool = new WorkerPool<{ exit: boolean }, string>(new URL("./exiting-worker.ts", import.meta.url), { size: 1 });
    try {
      expect(await pool.run({ exit: false })).toBe("ok");
      await expect(pool.run({ exit: true })).rejects.toThrow(/worker thread exited \(code 3\)/);
      // No worker is left: what comes next fails too instead of waiting.
      await expect(pool.run({ exit: false })).rejects.toThrow();
    } finally {
      await pool.close();
    }
  });

  it("fails queued tasks when every worker dies while loading its module", async () => {
    const pool = new WorkerPool<unknown, unknown>(new URL("./broken-worker.ts", import.meta.url), { size: 2 });
    try {
      await expect(pool.run({})).rejects.toThrow(/cannot load|exited/);
    } finally {
      await pool.close();
    }
  });

  it("atMost keeps that many of its tasks on a larger runner at once, in order, failures included", async () => {
    const started: number[] = [];
    const finish = new Map<number, (ok: boolean) => void>();
    let running = 0, most = 0;
    const wide: TaskRunner<number, number> = {
      size: 4,
      run: (k) => {
        started.push(k);
        running++;
        most = Math.max(most, running);
        return new Promise<number>((resolve, reject) => finish.set(k, (ok) => { running--; if (ok) resolve(10 * k); else reject(new Error(`task ${k} failed`)); }));
      },
    };
    const narrow = atMost(wide, 2);
    expect(narrow.size).toBe(2);
    const answers = [1, 2, 3, 4, 5].map((k) => narrow.run(k));
    answers[1].catch(() => undefined);
    const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
    await tick();
    expect(started).toEqual([1, 2]);
    finish.get(2)!(false);
    await tick();
    expect(started).toEqual([1, 2, 3]);
    for (const k of [1, 3, 4, 5]) {
      await tick();
      finish.get(k)!(true);
    }
    expect(await Promise.all([answers[0], answers[2], answers[3], answers[4]])).toEqual([10, 30, 40, 50]);
    await expect(answers[1]).rejects.toThrow(/task 2 failed/);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });
});
