// Measuring memory for the comparison: a full garbage collection before each reading, so a
// reading counts what is alive, not what is waiting to be collected.
//
// Node exposes gc() only with --expose-gc. Without it, the flag is set at run time and the
// function is taken from a fresh V8 context (the flag makes V8 install `gc` in contexts created
// afterwards). If even that fails, readings are taken without a collection (noisier, not wrong).

import * as v8 from 'node:v8';
import * as vm from 'node:vm';

let gcFunction: (() => void) | null | undefined;

function findGc(): (() => void) | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  try {
    v8.setFlagsFromString('--expose-gc');
    const fromContext: unknown = vm.runInNewContext('gc');
    if (typeof fromContext === 'function') return fromContext as () => void;
  } catch {
    // No way to force a collection here.
  }
  return null;
}

/** Runs a full collection if possible; returns whether it could. */
export function collectGarbage(): boolean {
  if (gcFunction === undefined) gcFunction = findGc();
  if (gcFunction === null) return false;
  gcFunction();
  return true;
}

/**
 * Bytes of this thread's JavaScript heap alive after a full collection. (Memory held outside
 * the heap, `external`, is left out: it moves by hundreds of KB as native handles of sockets
 * closed earlier are released, which would drown what one fetch costs.)
 */
export function liveHeapBytes(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Megabytes or kilobytes, for people. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / 1024).toFixed(1)} KB`;
}
