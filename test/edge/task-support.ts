/** @module Test support for tasks: a running job, task specs, and a recorder of the TaskMessages a ReconstructionObject sends. */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { workKey } from "../../shared/storage-keys.js";
import type { TaskMessage, TaskSpec } from "../../shared/tasks.js";
import type { ReconstructionObject } from "../../edge/objects/reconstruction.js";
import { createReconstruction, reconstructionStub, type Created } from "./reconstruction-support.js";

/** A reconstruction whose attempt 1 is processing (as when its coordinator splits work). */
export async function processingReconstruction(): Promise<Created> {
  const created = await createReconstruction();
  const started = await reconstructionStub(created.id).start(1);
  if (!started.accepted) throw new Error(`start refused: ${started.reason}`);
  return created;
}

/** `count` dense-cluster tasks `dense-000`…, their payloads under the attempt's work prefix. */
export function denseSpecs(id: string, count: number, attempt = 1, first = 0): TaskSpec[] {
  return Array.from({ length: count }, (_, i) => {
    const key = `dense-${String(first + i).padStart(3, "0")}`;
    return { key, kind: "dense-cluster" as const, payload_key: workKey(id, attempt, `${key}/payload.bin`) };
  });
}

export interface SentTasks {
  /** Every message handed to the queue, in order. */
  messages: TaskMessage[];
  /** Size of each sendBatch call. */
  batchSizes: number[];
  /** While > 0, sendBatch throws (and counts down). */
  failures: number;
}

/**
 * Replaces the object's TASKS binding with a recorder (nothing reaches the real queue, so no
 * consumer runs behind the test's back). The object instance keeps it until it is evicted.
 */
export async function recordTaskSends(id: string): Promise<SentTasks> {
  const sent: SentTasks = { messages: [], batchSizes: [], failures: 0 };
  const recorder = {
    async send(body: TaskMessage) {
      return recorder.sendBatch([{ body }]);
    },
    async sendBatch(batch: Iterable<MessageSendRequest<TaskMessage>>) {
      const bodies = [...batch].map((m) => m.body);
      if (sent.failures > 0) {
        sent.failures -= 1;
        throw new Error("queue unavailable (test)");
      }
      sent.batchSizes.push(bodies.length);
      sent.messages.push(...bodies);
    },
  };
  await runInDurableObject(reconstructionStub(id), (instance: ReconstructionObject) => {
    const target = instance as unknown as { env: Record<string, unknown> };
    target.env = { ...target.env, TASKS: recorder };
  });
  return sent;
}

/** The time the object's alarm is set for (epoch ms), or null. */
export function alarmAt(id: string): Promise<number | null> {
  return runInDurableObject(reconstructionStub(id), (_instance, state) => state.storage.getAlarm());
}

/** Runs the pending alarm now, as if its time had come; returns the time it was set for. */
export async function fireAlarm(id: string): Promise<number> {
  const at = await alarmAt(id);
  if (at === null) throw new Error("no alarm set");
  if (!(await runDurableObjectAlarm(reconstructionStub(id)))) throw new Error("the alarm did not run");
  return at;
}

/** The job's stored watchdog deadline (epoch ms). */
export function jobDeadline(id: string): Promise<number> {
  return runInDurableObject(reconstructionStub(id), (_instance, state) => state.storage.sql.exec<{ job_deadline: number }>(`SELECT job_deadline FROM alarm_plan`).one().job_deadline);
}

/** Moves a task's lease end (epoch ms), as if time had passed for it. */
export function setLeaseUntil(id: string, key: string, until: number, attempt = 1): Promise<void> {
  return runInDurableObject(reconstructionStub(id), (_instance, state) => {
    state.storage.sql.exec(`UPDATE tasks SET lease_until = ? WHERE attempt = ? AND key = ?`, until, attempt, key);
  });
}
