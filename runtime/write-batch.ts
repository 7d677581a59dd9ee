// Write batching: sends made during one tick of the loop leave together at the end of that
// tick. Each node:net socket is corked at its first write and uncorked when the tick ends
// (the loop calls flushWrites), or, outside a loop (the chapter's hand-written selector
// loops), in a microtask after the current synchronous run. The peer then wakes once per
// batch instead of once per send, while no write waits longer than one tick.

/** The part of a node:net socket batching uses (a replay's stand-in connection has it too). */
export interface CorkableConnection {
  cork(): void;
  uncork(): void;
  readonly writableCorked: number;
  readonly destroyed: boolean;
}

const corked: CorkableConnection[] = [];
let microtaskQueued = false;

/** Sends everything corked so far. */
export function flushWrites(): void {
  if (corked.length === 0) return;
  for (let i = 0; i < corked.length; i++) {
    const c = corked[i]!;
    if (!c.destroyed) c.uncork();
  }
  corked.length = 0;
}

function flushFromMicrotask(): void {
  microtaskQueued = false;
  flushWrites();
}

/** Corks `conn` until the end of the current tick (or synchronous run). */
export function batchWrite(conn: CorkableConnection): void {
  if (conn.writableCorked > 0) return;
  if (!microtaskQueued) {
    microtaskQueued = true;
    queueMicrotask(flushFromMicrotask);
  }
  conn.cork();
  corked.push(conn);
}
