// Shared: loaded by a runtime host's main thread (line-debug-bridge.ts) and its worker thread (line-debug-worker.ts).
//
// The messages of the line debugger's bridge itself, between a runtime host's main thread
// (line-debug-bridge.ts) and its worker thread (line-debug-worker.ts): everything else between
// the two threads is a wire message of the host protocol. Its own module so that the worker's
// bundle (dist/line-debug-worker.js) holds none of the main thread's runtime.

export type BridgeControl =
  | { bridge: 'closed'; reason: string }
  | { bridge: 'disconnect' }
  | { bridge: 'disconnected' }
  /**
   * A live logpoint with a hit condition (`key`, line-breakpoints.ts) counted a hit in tick `tick`: its first
   * tick's hits and the first after it, so the worker knows how many came in the tick it was set in (HitsSince).
   */
  | { bridge: 'logHit'; key: number; tick: number };

export function isBridgeControl(m: unknown): m is BridgeControl {
  return typeof m === 'object' && m !== null && typeof (m as { bridge?: unknown }).bridge === 'string';
}
