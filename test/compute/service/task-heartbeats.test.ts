import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startTaskHeartbeats } from "../../../compute/service/task-heartbeats.js";

describe("task heartbeats", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("keeps the lease on its own interval while the fraction stands still", () => {
    const sent: number[] = [];
    const beats = startTaskHeartbeats(() => sent.push(Date.now()), { leaseMs: 15_000, progressMs: 2_000 });
    vi.advanceTimersByTime(46_000);
    beats.stop();
    expect(sent.length).toBe(3);
  });

  it("reports a moved fraction at once, and several moves within the interval as one", () => {
    const start = Date.now();
    const sent: number[] = [];
    const beats = startTaskHeartbeats(() => sent.push(Date.now() - start), { leaseMs: 15_000, progressMs: 2_000 });
    vi.advanceTimersByTime(5_000);
    beats.progressed();
    vi.advanceTimersByTime(0);
    expect(sent).toEqual([5_000]);
    // Three moves 0.5 s apart: one report, when 2 s have passed since the last.
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(500);
      beats.progressed();
    }
    vi.advanceTimersByTime(2_000);
    expect(sent).toEqual([5_000, 7_000]);
    // The lease's own beat still comes on its interval, and counts as the last report.
    vi.advanceTimersByTime(8_000 - 2_000 + 500);
    expect(sent).toEqual([5_000, 7_000, 15_000]);
    beats.progressed();
    vi.advanceTimersByTime(0);
    expect(sent).toEqual([5_000, 7_000, 15_000]);
    vi.advanceTimersByTime(2_000);
    expect(sent).toEqual([5_000, 7_000, 15_000, 17_000]);
    beats.stop();
  });

  it("sends nothing once stopped, even a report that was waiting", () => {
    const sent: number[] = [];
    const beats = startTaskHeartbeats(() => sent.push(Date.now()), { leaseMs: 15_000, progressMs: 2_000 });
    beats.progressed();
    vi.advanceTimersByTime(0);
    beats.progressed();
    beats.stop();
    vi.advanceTimersByTime(60_000);
    expect(sent.length).toBe(1);
  });
});
