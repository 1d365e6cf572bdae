/** A worker module that fails while loading, before it can serve a task. */
throw new Error("broken worker: cannot load");
