// Where a run is, in one set of words for every view of it in the extension process: the Run
// (extension/runs/run.ts), which follows the host's events, and the panel's RunStatus
// (protocol/webview-protocol.ts), which the RunSession keeps and the webview shows. (A debug
// session's own lifecycle, launching to disposed, is the session's, not the run's.)
//
// Invariants: 'starting' lasts from a launch (or an opened recording) until the host answers
// it; 'running' and 'paused' follow the host's events for the current run; 'finished' is the
// run's program having ended (the host stays up, its recording seekable); the host process
// gone is 'hostDied' when nobody asked (it crashed, was killed) and 'ended' when a view did.
// A phase is live from 'starting' to 'paused'; the host is up in every phase but the last two.

export type RunPhase = 'idle' | 'starting' | 'running' | 'paused' | 'finished' | 'hostDied' | 'ended';

export const RUN_PHASES: readonly RunPhase[] = [
  'idle',
  'starting',
  'running',
  'paused',
  'finished',
  'hostDied',
  'ended',
];

const PHASE_SET: ReadonlySet<string> = new Set(RUN_PHASES);

export function isRunPhase(v: unknown): v is RunPhase {
  return typeof v === 'string' && PHASE_SET.has(v);
}

/** True from a launch until the run's program ends (starting, running or paused). */
export function isLivePhase(phase: RunPhase): boolean {
  return phase === 'starting' || phase === 'running' || phase === 'paused';
}

/** True once the run's host process is gone (nothing more can be asked of it). */
export function isHostGone(phase: RunPhase): boolean {
  return phase === 'hostDied' || phase === 'ended';
}
