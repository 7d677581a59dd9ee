// Runs on a live runtime host's line debugger worker thread. WorkerPosition: what of the past the
// worker's line replay hosts show (live, pastTick, pastLine, stepBefore, pastHit), the host-side
// mirror of the adapter's DebugPosition; whether the thread is held is LineDebugger.isStopped.
// Kinds and transitions: docs/design/line-debugging.md, "The worker's position".
//
// Invariants: a position on the stop's replay host (all but `live` and pastHit on 'search') has
// that host holding a live stop (dropped when the stop's past is forgotten); the hit replay host
// only ever shows pastHit; transitions are pure.

import type { BreakpointHitLanding, PastLineLanding } from '../../../protocol/host-protocol';

/**
 * Which replay host shows the past: the live line stop's, or the hit searches' (no line stop: a finished run,
 * a loop-level stop).
 */
export type ReplayRole = 'stop' | 'search';

export type WorkerPosition =
  | { readonly kind: 'live' }
  | { readonly kind: 'pastTick'; readonly tick: number }
  /**
   * The moment's queries (snapshot, ...) are the replay host's: its traced replay of the walk, or of a search
   * from the line that found nothing (which stops on the line again, its moment shown: HitScan's marker stop).
   */
  | { readonly kind: 'pastLine' }
  | { readonly kind: 'stepBefore' }
  | { readonly kind: 'pastHit'; readonly on: ReplayRole };

export const LIVE: WorkerPosition = { kind: 'live' };

/** The replay host showing the position (null: live). */
export function hostOf(pos: WorkerPosition): ReplayRole | null {
  switch (pos.kind) {
    case 'live':
      return null;
    case 'pastHit':
      return pos.on;
    default:
      return 'stop';
  }
}

/** A past line is shown (the replay host is stopped on it): the line requests are its. */
export function showsLine(pos: WorkerPosition): boolean {
  return pos.kind === 'pastLine' || pos.kind === 'stepBefore' || pos.kind === 'pastHit';
}

/**
 * Line moves from here are walks anchored at a hit (pastHitLine): a hit's lines, or an earlier step of the
 * stop's task.
 */
export function walksFromHit(pos: WorkerPosition): boolean {
  return pos.kind === 'stepBefore' || pos.kind === 'pastHit';
}

/**
 * The moment's queries (snapshot, taskDetail, ...) are the stop's replay host's: a past tick viewed, or a
 * past line of it whose moment it replayed.
 */
export function momentReplayed(pos: WorkerPosition): boolean {
  switch (pos.kind) {
    case 'pastTick':
    case 'stepBefore':
    case 'pastLine':
      return true;
    case 'pastHit':
      return pos.on === 'stop';
    default:
      return false;
  }
}

/**
 * A past tick viewed is left (a move of the stop's walk starts, a newer stop in the same tick): nothing else
 * changes.
 */
export function leaveTick(pos: WorkerPosition): WorkerPosition {
  return pos.kind === 'pastTick' ? LIVE : pos;
}

/**
 * A move of the live stop's own walk (pastLine) landed: on a line of the stop's tick, of an earlier step (a
 * tick of its own), or off the lines.
 */
export function afterStopWalk(landing: PastLineLanding): WorkerPosition {
  if (landing.landed !== 'line') return LIVE;
  return landing.tick !== undefined ? { kind: 'stepBefore' } : { kind: 'pastLine' };
}

/**
 * A move of a walk anchored at a hit (pastHitLine) landed; from an earlier step of the stop's task, a line of
 * the stop's own step (no tick) is the stop's walk again.
 */
export function afterHitWalk(from: WorkerPosition, landing: PastLineLanding): WorkerPosition {
  if (landing.landed !== 'line') return LIVE;
  if (from.kind === 'stepBefore') return landing.tick === undefined ? { kind: 'pastLine' } : from;
  return from;
}

/**
 * A breakpoint search on replay host `on` answered: a hit is shown; none found, the line shown before stays,
 * its moment shown again (the search stopped on it again); else live.
 */
export function afterSearch(from: WorkerPosition, on: ReplayRole, landing: BreakpointHitLanding): WorkerPosition {
  if (landing.landed === 'line') return { kind: 'pastHit', on };
  if (landing.landed === 'none' && showsLine(from)) return from;
  return LIVE;
}

/** A seek of the stop's replay host (after leaving any line shown: `from`): a past tick, or (null) the present. */
export function afterSeek(from: WorkerPosition, tick: number | null): WorkerPosition {
  return tick === null ? leaveTick(from) : { kind: 'pastTick', tick };
}

/** Replay host `role` forgot its stop's past, or ended: what it showed is gone. */
export function dropped(pos: WorkerPosition, role: ReplayRole): WorkerPosition {
  return hostOf(pos) === role ? LIVE : pos;
}
