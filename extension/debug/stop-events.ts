// The `stopped` events the debug adapter sends and the words around them: how a stop (live,
// replayed, the end of a recorded run) is said to VS Code. Pure: no state, no host.
//
// Invariants: every stop is sent with allThreadsStopped (the loop stops every task with it),
// except the loop thread's own label event (loopStoppedEvent), which keeps the focus where it is.

import { StoppedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { StopReason } from '../../protocol/host-protocol';
import { LOOP_THREAD_ID } from './dap-mapping';
import { endStopAt, type PositionStop, type ShownReason } from './debug-position';

/** A stop shown (on a line: the host's main thread is stopped there, steps go by line). */
export type StopInfo = PositionStop;

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Short descriptions (VS Code shows them beside the thread's name); none: VS Code's own "Paused on step". */
const STOP_DESCRIPTIONS: Partial<Record<StopReason, string>> = {
  breakpoint: 'Paused on breakpoint',
  exception: 'Paused on exception',
  cancelled: 'Paused on task cancelled',
};

/** A `stopped` event: every task stops with the loop (allThreadsStopped). */
export function stoppedEvent(reason: ShownReason, threadId: number, text?: string): DebugProtocol.StoppedEvent {
  const ev = new StoppedEvent(
    reason === 'cancelled' ? 'exception' : reason,
    threadId,
    text,
  ) as DebugProtocol.StoppedEvent;
  ev.body.allThreadsStopped = true;
  const description =
    reason === 'goto' ? 'Paused at a replayed tick' : reason === 'end' ? undefined : STOP_DESCRIPTIONS[reason];
  if (description !== undefined) ev.body.description = description;
  return ev;
}

/**
 * The loop thread's own `stopped` (focus left where it is) when a stop is shown on a task's
 * thread: VS Code keeps only the reason of the threads a stop is not on, so the loop's row
 * would go on saying the moment it was stopped at before (the run's end, another tick).
 */
export function loopStoppedEvent(reason: ShownReason, description: string): DebugProtocol.StoppedEvent {
  const ev = stoppedEvent(reason, LOOP_THREAD_ID);
  ev.body.allThreadsStopped = false;
  ev.body.preserveFocusHint = true;
  ev.body.description = description;
  return ev;
}

/** How a stop at a past tick is labelled on its thread, and on the loop's. */
export function pastTickLabel(tick: number, ticks: number): string {
  return `At tick ${tick} of ${ticks} (replayed)`;
}

/** The `stopped` event of a stop shown again (the end's says what the end is). */
export function stoppedEventOf(stop: StopInfo): DebugProtocol.StoppedEvent {
  const ev = stoppedEvent(stop.reason, stop.threadId);
  if (stop.reason === 'end') ev.body.description = stop.description;
  return ev;
}

/**
 * The stop a finished recorded run shows at its end (its last tick), on the loop's thread; what to do there
 * is said in the console (endHint).
 */
export function endStop(tick: number): StopInfo {
  return endStopAt(tick);
}

/** What the end of a recorded run offers, for the console. */
export function endHint(tick: number): string {
  return `the run finished at tick ${tick}: Step Back or Reverse Continue to look at its past; Continue or Stop ends the session`;
}

/**
 * A move this session did not ask for (the panel's scrubber, another view's step): shown with
 * preserveFocusHint, so VS Code updates the Call Stack without opening the moment's source
 * in the active editor group, which is the panel's while the user drags its scrubber.
 */
export function movedElsewhere(ev: DebugProtocol.StoppedEvent, elsewhere: boolean): DebugProtocol.StoppedEvent {
  if (elsewhere) ev.body.preserveFocusHint = true;
  return ev;
}
