// DebugPosition: where a debug view of a run stands, as one value (running, paused, liveLine,
// pastTick, pastLine, pastHit, end, recording, moving). The adapter stores one (session-core.ts)
// and answers each DAP move by a `switch` on it (session-moves.ts); host events and the session's
// own moves are pure transitions here. The kinds and the transition table are in
// docs/design/time-travel-and-positions.md. answersMove is the one place that decides whether a
// host event answers this session's move (by its moment id, protocol/moment-ids.ts, else by kind).
//
// Invariants: a past position always knows its present, except `recording` (an opened recording
// has none); `pastLine.live` is the live line stop held (null only when not known); a transition
// never invents a stop.

import type { DeadlockStop, SourcePosition, StopReason } from '../../protocol/host-protocol';
import { LOOP_THREAD_ID } from './dap-mapping';

/**
 * Why a stop is shown: the host's reasons, 'goto' for a past tick someone moved the views to, 'end' for a
 * recorded run's end.
 */
export type ShownReason = StopReason | 'goto' | 'end';

/** A stop as the debugger shows it. */
export interface PositionStop {
  /** Set when the stop is on a line (mid-tick): steps go by line there. */
  line?: SourcePosition;
  reason: ShownReason;
  tick: number;
  taskId: number | undefined;
  threadId: number;
  description: string;
  /** A Deadlock stop's report (the host's paused event's). */
  deadlock?: DeadlockStop;
}

/** Where a move forward out of the past comes back to. */
export type Present =
  | { kind: 'running' }
  | { kind: 'stopped'; stop: PositionStop }
  | { kind: 'end'; stop: PositionStop };

/**
 * How a move in time of this session is shown: a step, a tick moved to, or a recorded stop landed on (in the
 * live stop's reason).
 */
export type TravelReason = 'step' | 'goto' | StopReason;

/** A move of this session under way, by what it waits for from the host. */
export type Move =
  /**
   * A seek (seekTick): its `viewedTick` lands it, shown as `reason` on `threadId` (`said`: the recording's
   * words for that tick).
   */
  | { waits: 'seek'; reason: TravelReason; threadId: number; said?: string }
  /**
   * A search of the past for a breakpoint's hit (pastBreakpointHit): its `viewedTick` follows the hit's tick;
   * its answer shows the hit.
   */
  | { waits: 'search' }
  /**
   * A line move from a hit shown (lineStep / lineStepBack there): its `viewedTick` follows the line's tick,
   * its `paused` (pastLine) shows the line.
   */
  | { waits: 'hitLine' }
  /** A line move through the past lines of a live line stop: its `paused` (pastLine) shows the line. */
  | { waits: 'pastLine' }
  /**
   * Back from a past line to the live line stop held (seekTick to the present): its `paused` shows it, in its
   * own reason.
   */
  | { waits: 'liveStop'; live: PositionStop }
  /**
   * A line step of the live program held on a line (lineStep at liveLine): the program runs on, its next
   * live `paused` lands it (however long it runs: Pause may ask for it meanwhile).
   */
  | { waits: 'liveLine' };

export type DebugPosition =
  | { kind: 'running' }
  | { kind: 'paused'; stop: PositionStop }
  | { kind: 'liveLine'; stop: PositionStop }
  /** `stop`: the stop shown at the tick (null while a move is under way). */
  | { kind: 'pastTick'; tick: number; stop: PositionStop | null; present: Present }
  /** `stop`: the past line shown (null while a move is under way); `live`: the live line stop held. */
  | { kind: 'pastLine'; stop: PositionStop | null; live: PositionStop | null }
  /** `stop`: the hit, or a line reached from it (null while a move is under way). */
  | { kind: 'pastHit'; tick: number; stop: PositionStop | null; present: Present }
  | { kind: 'end'; stop: PositionStop }
  | { kind: 'recording'; tick: number; ticks: number; stop: PositionStop | null }
  /**
   * `from`: the position the move left (shown again if the move is refused); `stop`: what is shown meanwhile
   * (a search keeps the stop shown); `moment`: the id the move's requests carry (none: a move that did not
   * name itself).
   */
  | {
      kind: 'moving';
      move: Move;
      from: Exclude<DebugPosition, { kind: 'moving' }>;
      stop: PositionStop | null;
      moment?: string;
    };

/** A position that is not a move under way. */
export type SettledPosition = Exclude<DebugPosition, { kind: 'moving' }>;

export const RUNNING: DebugPosition = { kind: 'running' };

/** A live stop: on a line, or between ticks. */
export function liveStop(stop: PositionStop): DebugPosition {
  return stop.line !== undefined ? { kind: 'liveLine', stop } : { kind: 'paused', stop };
}

/** The stop shown now (null: running, or a move under way). */
export function shownStop(pos: DebugPosition): PositionStop | null {
  return pos.kind === 'running' ? null : pos.stop;
}

/** Whether the views show a moment before the present (an opened recording's ticks before its last too). */
export function isPast(pos: DebugPosition): boolean {
  switch (pos.kind) {
    case 'pastTick':
    case 'pastLine':
    case 'pastHit':
      return true;
    case 'recording':
      return pos.tick < pos.ticks;
    case 'moving':
      return isPast(pos.from);
    default:
      return false;
  }
}

/** Where a move forward out of this position comes back to (null: an opened recording, which has none). */
export function presentOf(pos: DebugPosition): Present | null {
  switch (pos.kind) {
    case 'running':
      return { kind: 'running' };
    case 'paused':
    case 'liveLine':
      return { kind: 'stopped', stop: pos.stop };
    case 'pastLine':
      return pos.live !== null ? { kind: 'stopped', stop: pos.live } : { kind: 'running' };
    case 'pastTick':
    case 'pastHit':
      return pos.present;
    case 'end':
      return { kind: 'end', stop: pos.stop };
    case 'recording':
      return null;
    case 'moving':
      return presentOf(pos.from);
  }
}

/** The present's stop (null: the run is running, or there is no present). */
export function presentStop(pos: DebugPosition): PositionStop | null {
  const present = presentOf(pos);
  return present === null || present.kind === 'running' ? null : present.stop;
}

/** Whether anything comes after the moment shown (false at a finished run's end, an opened recording's last tick). */
export function canStepForward(pos: DebugPosition): boolean {
  if (pos.kind === 'moving') return canStepForward(pos.from);
  if (pos.kind === 'end') return false;
  if (pos.kind === 'recording') return pos.tick < pos.ticks;
  return true;
}

/**
 * Whether a step back has somewhere to go: the moment shown is after the recording's first tick (running: it
 * is asked of the host).
 */
export function canStepBack(pos: DebugPosition): boolean {
  const stop = shownStop(pos);
  const tick = pos.kind === 'pastTick' || pos.kind === 'pastHit' || pos.kind === 'recording' ? pos.tick : stop?.tick;
  return tick === undefined || tick > 1 || stop?.line !== undefined;
}

/** Whether steps go by line here (a live line stop, a past line of one, a hit's line). */
export function stepsByLine(pos: DebugPosition): boolean {
  return (pos.kind === 'liveLine' || pos.kind === 'pastLine' || pos.kind === 'pastHit') && pos.stop?.line !== undefined;
}

/**
 * The tick forward steps count from: at a hit or a past line (mid-tick) the tick before its own, whose end is
 * still ahead.
 */
export function forwardFrom(pos: DebugPosition, now: number): number {
  return pos.kind === 'pastHit' || pos.kind === 'pastLine' ? now - 1 : now;
}

// --- transitions ---------------------------------------------------------------------------

/**
 * The host's `paused`: the live run stopped (kept as the present while the past is shown), or a past line was
 * reached.
 */
export function onPaused(pos: DebugPosition, stop: PositionStop, pastLine: boolean): DebugPosition {
  if (pos.kind === 'moving') {
    // Not the move's answer (answersMove): the move goes on, from where the host now stands; a live stop is
    // shown meanwhile.
    const from = settled(onPaused(pos.from, stop, pastLine));
    return { ...pos, from, stop: from.kind === 'pastTick' || from.kind === 'pastHit' ? pos.stop : shownStop(from) };
  }
  if (pastLine && pos.kind === 'pastHit') return { kind: 'pastHit', tick: stop.tick, stop, present: pos.present };
  // A line reached from a hit shown in a recording (or a finished run attached to): the recording at that line's tick.
  if (pastLine && pos.kind === 'recording') return { kind: 'recording', tick: stop.tick, ticks: pos.ticks, stop };
  switch (pos.kind) {
    case 'pastTick':
    case 'pastHit':
      return { ...pos, present: { kind: 'stopped', stop } };
    case 'recording':
      return pos;
    default:
      if (!pastLine) return liveStop(stop);
      return {
        kind: 'pastLine',
        stop,
        live: pos.kind === 'liveLine' ? pos.stop : pos.kind === 'pastLine' ? pos.live : null,
      };
  }
}

/** The host's `continued`: the live run goes on (behind the past shown, which stays). */
export function onContinued(pos: DebugPosition): DebugPosition {
  switch (pos.kind) {
    case 'moving':
      // The present runs on behind a past shown; from a live stop, the move's own doing (its answer says
      // where it lands).
      return pos.from.kind === 'pastTick' || pos.from.kind === 'pastHit'
        ? { ...pos, from: settled(onContinued(pos.from)) }
        : pos;
    case 'pastTick':
    case 'pastHit':
      return { ...pos, present: { kind: 'running' } };
    case 'end':
    case 'recording':
      return pos;
    default:
      return RUNNING;
  }
}

/** Back out of the past to the present: the run going on, its live stop, or the end. */
export function backToPresent(pos: DebugPosition): DebugPosition {
  if (pos.kind === 'moving') return backToPresent(pos.from);
  const present = presentOf(pos);
  if (present === null) return pos;
  switch (present.kind) {
    case 'running':
      return RUNNING;
    case 'stopped':
      return liveStop(present.stop);
    case 'end':
      return { kind: 'end', stop: present.stop };
  }
}

/**
 * The host's `viewedTick`: every view shows `tick` (null: the present). `finished`: the run has
 * ended (then its last tick is its end); `shown`: the stop the session shows at that tick.
 */
export function onViewedTick(
  pos: DebugPosition,
  tick: number | null,
  ticks: number,
  finished: boolean,
  shown: PositionStop | null,
): DebugPosition {
  if (pos.kind === 'moving') return onViewedTick(pos.from, tick, ticks, finished, shown);
  if (pos.kind === 'recording')
    return tick === null ? pos : { kind: 'recording', tick: Math.min(tick, ticks), ticks, stop: shown };
  if (tick === null) return isPast(pos) ? backToPresent(pos) : pos;
  const present = presentOf(pos) ?? { kind: 'running' };
  if (finished && tick >= ticks)
    return present.kind === 'end'
      ? { kind: 'end', stop: present.stop }
      : pos.kind === 'end'
        ? pos
        : { kind: 'end', stop: shown ?? endStopAt(ticks) };
  return { kind: 'pastTick', tick, stop: shown, present };
}

/**
 * The host's `finished`, when the session stays at the run's end: the end is the present (shown now unless
 * the past is).
 */
export function onFinished(pos: DebugPosition, end: PositionStop): DebugPosition {
  switch (pos.kind) {
    case 'moving':
      return { ...pos, from: settled(onFinished(pos.from, end)) };
    case 'pastTick':
    case 'pastHit':
      return { ...pos, present: { kind: 'end', stop: end } };
    case 'pastLine':
    case 'running':
    case 'paused':
    case 'liveLine':
      return { kind: 'end', stop: end };
    case 'end':
    case 'recording':
      return pos;
  }
}

/**
 * Where `next` (what an event made of the position) leaves this session: its own move's answer
 * (`mine`) or no move under way, `next` itself; another view's move while this session's is
 * under way, the move goes on from `next` (its own answer, named by its id, lands it later).
 */
export function aside(pos: DebugPosition, mine: boolean, next: DebugPosition): DebugPosition {
  if (mine || pos.kind !== 'moving') return next;
  return { ...pos, from: settled(next) };
}

/**
 * This session's search found a breakpoint's hit in the past (a line, `hit`) or moved to a tick: the views
 * land there, the present kept.
 */
export function landedInPast(pos: DebugPosition, tick: number, stop: PositionStop | null, hit: boolean): DebugPosition {
  if (pos.kind === 'moving') return landedInPast(pos.from, tick, stop, hit);
  if (pos.kind === 'recording') return { kind: 'recording', tick, ticks: pos.ticks, stop };
  const present = presentOf(pos) ?? { kind: 'running' };
  return hit ? { kind: 'pastHit', tick, stop, present } : { kind: 'pastTick', tick, stop, present };
}

/**
 * A launch or restart: a new run, so nothing of the last one is kept (its past shown, its hit,
 * its live line stop, its end): the position starts over from running.
 */
export function onLaunched(_pos: DebugPosition): DebugPosition {
  return RUNNING;
}

/** An opened recording (or a finished run attached to), shown at `tick` of its `ticks`. */
export function openedRecording(tick: number, ticks: number, stop: PositionStop | null): DebugPosition {
  return { kind: 'recording', tick, ticks, stop };
}

/** The stop a finished recorded run shows at its end (its last tick), on the loop's thread. */
export function endStopAt(tick: number): PositionStop {
  return { reason: 'end', tick, taskId: undefined, threadId: LOOP_THREAD_ID, description: `Finished at tick ${tick}` };
}

/** What a move leaves from: the position itself (a move's `from` when one is under way already). */
export function settled(pos: DebugPosition): SettledPosition {
  return pos.kind === 'moving' ? pos.from : pos;
}

/**
 * This session starts a move named `moment`: under way until the host answers it (answersMove). A search
 * keeps the stop shown; any other move shows none meanwhile.
 */
export function startMove(pos: DebugPosition, move: Move, moment?: string): DebugPosition {
  const moving: DebugPosition = {
    kind: 'moving',
    move,
    from: settled(pos),
    stop: move.waits === 'search' ? shownStop(pos) : null,
  };
  if (moment !== undefined) moving.moment = moment;
  return moving;
}

/**
 * A move under way goes on as another, named `moment` (a line move that must seek after all): the position it
 * left is kept.
 */
export function retarget(pos: DebugPosition, move: Move, moment?: string): DebugPosition {
  if (pos.kind !== 'moving') return startMove(pos, move, moment);
  const next: DebugPosition = { kind: 'moving', move, from: pos.from, stop: null };
  if (moment !== undefined) next.moment = moment;
  return next;
}

/** The host refused the move (or it ended without landing): the position it left, unchanged. */
export function refused(pos: DebugPosition): DebugPosition {
  return settled(pos);
}

/** The end of a recorded run shown (an opened recording: its last tick). */
export function atEnd(pos: DebugPosition, end: PositionStop): DebugPosition {
  const base = settled(pos);
  return base.kind === 'recording'
    ? { kind: 'recording', tick: base.ticks, ticks: base.ticks, stop: end }
    : { kind: 'end', stop: end };
}

/** Whether the end of a finished run is shown (an opened recording's last tick is its end). */
export function isAtEnd(pos: DebugPosition): boolean {
  return pos.kind === 'end' || (pos.kind === 'recording' && pos.tick >= pos.ticks);
}

/** The past tick the views show (null: none; a past line's tick is the present's). */
export function viewedTickOf(pos: DebugPosition): number | null {
  const base = settled(pos);
  return base.kind === 'pastTick' || base.kind === 'pastHit' || base.kind === 'recording' ? base.tick : null;
}

/**
 * A host event that may answer a move: a `paused` (on a past line or not) or a `viewedTick`, with the moment
 * id it echoes (if any).
 */
export type MoveAnswer = ({ event: 'paused'; pastLine: boolean } | { event: 'viewedTick'; tick: number | null }) & {
  moment?: string;
};

/**
 * Whether a host event answers this session's move under way. The one place where that is
 * decided: an event naming a move (its moment id) answers only the move of that id, whoever
 * else moves the views meanwhile; of the move's events, the one of the kind it waits for
 * lands it (a seek's id is on its `viewedTick`, and on the live stop's `paused` shown after it).
 * An event naming none (a host that does not echo ids) is judged by that kind alone (the
 * events come in order on one connection).
 */
export function answersMove(pos: DebugPosition, answer: MoveAnswer): boolean {
  if (pos.kind !== 'moving') return false;
  if (answer.moment !== undefined && answer.moment !== pos.moment) return false;
  const move = pos.move;
  switch (move.waits) {
    case 'seek':
      return answer.event === 'viewedTick';
    case 'search':
      return answer.event === 'viewedTick' && answer.tick !== null;
    case 'hitLine':
      return answer.event === 'paused' ? answer.pastLine : answer.tick !== null;
    case 'pastLine':
      // Another past line, or the live stop again (a step forward off the last past line).
      return answer.event === 'paused';
    case 'liveStop':
    case 'liveLine':
      return answer.event === 'paused' && !answer.pastLine;
  }
}
