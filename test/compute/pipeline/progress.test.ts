import { describe, expect, it } from "vitest";
import { ProgressTracker, FIXED_SPARSE_WEIGHTS, type ProgressEvent } from "../../../compute/pipeline/progress.js";

describe("pipeline/progress", () => {
  it("maps stage fractions into one monotone percentage that only reaches 100 at the finish", () => {
    const events: ProgressEvent[] = [];
    const tracker = new ProgressTracker(FIXED_SPARSE_WEIGHTS, (e) => events.push(e));
    tracker.update("ingest", 0.5, 3);
    tracker.update("ingest", 1, 6);
    tracker.update("features", 0.5);
    tracker.update("features", 0.2); // a stage's own estimate going back must not lower the total
    tracker.update("matching", 1);
    tracker.update("sfm", 1);
    tracker.update("export", 1);
    tracker.finish("export", 6);
    const values = events.map((e) => e.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]);
    expect(values[0]).toBe(5); // half of ingest's 10 of 100
    expect(values[2]).toBe(22); // ingest 10 + half of features' 25
    expect(values[3]).toBe(22);
    expect(values.slice(0, -1).every((v) => v < 100)).toBe(true);
    expect(values[values.length - 1]).toBe(100);
    expect(events[events.length - 1].filesProcessed).toBe(6);
    expect(events[2].filesProcessed).toBe(6);
  });

  it("rejects a stage that has no weight in this pipeline", () => {
    const tracker = new ProgressTracker(FIXED_SPARSE_WEIGHTS, () => {});
    expect(() => tracker.update("dense", 0.5)).toThrow(/dense/);
  });
});
