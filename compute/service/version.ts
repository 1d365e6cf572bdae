/**
 * @module The compute service's version: reported by its health endpoint, and part of every
 * task's content digest (task-digest.ts), so a result computed by another version is never
 * reused. Raise it with any change to what a task computes.
 */
export const VERSION = "0.1.0";
