// Runs on a live runtime host's line debugger worker thread: the moves that change where it stands.
//
// PastView: the worker's one WorkerPosition (worker-position.ts) and the moves through the past
// that change it, each made on the replay host showing it (line-replay-host.ts): a move of the
// live stop's walk or of a walk anchored at a hit, a breakpoint search, a seek to a past tick.
// Each move asks its replay host, then takes the transition its landing gives.
//
// Invariants: the position changes only here, by the pure transitions of worker-position.ts; a
// move that fails leaves the position as the move had it when it failed (a walk's move leaves a
// past tick first; a search starts from live); a replay host forgetting its stop, or ending,
// drops what it showed (dropped).

import type {
  ArmedBreakpoint,
  BreakpointHitLanding,
  LineStepKind,
  PastLineLanding,
  ViewedMoment,
} from '../../../protocol/host-protocol';
import { idOf } from '../../../protocol/moment-ids';
import type { ReplayHostMethods } from '../../../protocol/replay-host-protocol';
import type { LineReplayHost } from './line-replay-host';
import {
  afterHitWalk,
  afterSearch,
  afterSeek,
  afterStopWalk,
  dropped,
  hostOf,
  leaveTick,
  LIVE,
  showsLine,
  walksFromHit,
  type ReplayRole,
  type WorkerPosition,
} from './worker-position';

export type PastMove = 'back' | 'leave' | LineStepKind;

/** What a move asks of the replay host showing the past (LineReplayHost). */
export type PastHost = Pick<LineReplayHost, 'walkStop' | 'walkFromHit' | 'searchHit' | 'seekPast' | 'runId' | 'ticks'>;

export class PastView {
  private pos: WorkerPosition = LIVE;

  get position(): WorkerPosition {
    return this.pos;
  }

  /**
   * A move through the past lines on `r`, the stop's replay host: back, forward ('over', 'into', 'out'), or
   * 'leave' (the present again). `armed`: the breakpoints a forward step stops at on its way; `oneTask`: a
   * forward step limited to its task (lapsed when the task ends, as live).
   */
  async move(
    r: PastHost,
    move: PastMove,
    moment?: string,
    lines = 1,
    armed: readonly ArmedBreakpoint[] = [],
    oneTask = false,
  ): Promise<PastLineLanding> {
    if (move === 'leave' && !showsLine(this.pos)) return { landed: 'present' };
    if (walksFromHit(this.pos)) return this.moveAtHit(r, move, moment, armed, lines, oneTask);
    this.pos = leaveTick(this.pos);
    const landing = await r.walkStop(move, moment, lines, armed);
    this.pos = afterStopWalk(landing);
    return landing;
  }

  /**
   * A move through the lines of the task of the hit shown on `r` (or of an earlier step of the stop's task):
   * off a line, the hit is no longer shown. `armed`: the breakpoints a forward step stops at on its way; `lines`:
   * a move back of several lines in one replay; `oneTask`: a forward step limited to the walk's task.
   */
  async moveAtHit(
    r: PastHost,
    move: PastMove,
    moment?: string,
    armed: readonly ArmedBreakpoint[] = [],
    lines = 1,
    oneTask = false,
  ): Promise<PastLineLanding> {
    const from = this.pos;
    const landing = await r.walkFromHit(move, moment, armed, lines, oneTask);
    this.pos = afterHitWalk(from, landing);
    return landing;
  }

  /**
   * A search of `r`'s replayed past (`on`: its role) for a breakpoint's hit, from the line shown if any:
   * found, `r` is stopped on it.
   */
  async findHit(
    r: PastHost,
    on: ReplayRole,
    params: ReplayHostMethods['pastHit']['params'],
  ): Promise<BreakpointHitLanding> {
    const from = this.pos;
    // A past line shown stays shown when no hit is found (the replay host stops on it again).
    const shown = showsLine(from) && hostOf(from) === on;
    this.pos = LIVE;
    const landing = await r.searchHit({ ...params, shown });
    this.pos = afterSearch(from, on, landing);
    return landing;
  }

  /**
   * Moves the viewed moment of `r`, the stop's replay host, to a past tick (null: the present), in the live
   * run's words (with the asker's `moment` id).
   */
  async seek(r: PastHost, tick: number | null, moment?: string): Promise<ViewedMoment> {
    await this.move(r, 'leave');
    if (tick === null) this.pos = afterSeek(this.pos, null);
    else {
      await r.seekPast(tick, moment);
      this.pos = afterSeek(this.pos, tick);
    }
    return { runId: r.runId, tick, ticks: r.ticks, ...idOf(moment) };
  }

  /** A newer live stop in the same tick is shown: a past tick viewed is left. */
  leaveTick(): void {
    this.pos = leaveTick(this.pos);
  }

  /** Replay host `role` forgot its stop's past, or ended. */
  drop(role: ReplayRole): void {
    this.pos = dropped(this.pos, role);
  }
}
