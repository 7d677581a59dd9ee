// Emitter: a list of listeners for one kind of value, without `vscode` (the run registry,
// the runs and the run session are used by the debug adapter and by tests as they are).
//
// Invariants: listeners hear values in the order they were added; one listener's failure
// never keeps the others from hearing the value; a listener added or removed while a value
// is being delivered takes effect from the next value on.

export type Listener<T> = (value: T) => void;

export class Emitter<T> {
  private list: Array<Listener<T>> = [];

  /** Adds a listener; returns the function that removes it. */
  on(listener: Listener<T>): () => void {
    this.list.push(listener);
    return () => {
      this.list = this.list.filter((x) => x !== listener);
    };
  }

  fire(value: T): void {
    for (const l of this.list.slice()) {
      try {
        l(value);
      } catch {
        // One listener's failure must not starve the others.
      }
    }
  }
}
