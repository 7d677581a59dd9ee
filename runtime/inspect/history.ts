// TaskHistory: a bounded record of finished tasks (their last summary: state, outcome, who
// created and who cancelled them), so a client still sees a task after it is done, up to
// `capacity` of them; the oldest are evicted first.
//
// Invariants: at most `capacity` entries; each task id at most once (a second add replaces
// the first); `add` returns the ids it evicted so a snapshot can announce them as removed.
// Holds summaries only, never the Task objects themselves (finished tasks stay collectable).

export class TaskHistory<S extends { readonly id: number }> {
  private readonly entries = new Map<number, S>();

  constructor(readonly capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new RangeError(`capacity must be an integer >= 0, got ${String(capacity)}`);
  }

  /** Records a finished task's summary; returns the ids evicted to make room. */
  add(summary: S): number[] {
    this.entries.delete(summary.id);
    this.entries.set(summary.id, summary);
    const evicted: number[] = [];
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
      evicted.push(oldest.value);
    }
    return evicted;
  }

  get(id: number): S | undefined {
    return this.entries.get(id);
  }

  has(id: number): boolean {
    return this.entries.has(id);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Oldest first. */
  list(): S[] {
    return [...this.entries.values()];
  }

  clear(): void {
    this.entries.clear();
  }
}
