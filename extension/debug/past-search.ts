// PastSearch: what the moves in time ask of the recording: the tick shown now, the ticks a
// (reverse) continue may land on, a task's lane, a line breakpoint's hit found by replay
// (the host's pastBreakpointHit), and the bounds of the past (towardPresent, forwardFrom).
//
// Invariants: asks only (no events); a search is a move under way (debug-position.ts
// 'moving', waiting for the hit's tick) until it answers, then the position it left.

import type { BreakpointHitLanding, HostMethods, TimelineLane } from '../../protocol/host-protocol';
import { LOOP_THREAD_ID } from './dap-mapping';
import { forwardFrom, presentStop, refused, settled, startMove } from './debug-position';
import type { SessionCore, PastStop } from './session-core';
import type { SessionBreakpoints } from './session-breakpoints';
import { message } from './stop-events';

export class PastSearch {
  constructor(
    private readonly core: SessionCore,
    private readonly breakpoints: SessionBreakpoints,
  ) {}

  /**
   * The tick forward steps count from: at a hit or a past line shown (mid-tick), the tick before its own (its
   * tick's end is still ahead).
   */
  forwardFrom(now: number): number {
    return forwardFrom(settled(this.core.position), now);
  }

  /**
   * A tick forward from the past, or the present (null) when the recording has nothing before the present's
   * own stop.
   */
  towardPresent(tick: number | null): number | null {
    const present = presentStop(this.core.position)?.tick ?? null;
    if (tick === null || tick > this.core.recordedTicks || (present !== null && tick >= present)) return null;
    return tick;
  }

  /** The task's lane of the recording's timeline. */
  async laneOf(taskId: number, command: string): Promise<TimelineLane> {
    const tl = await this.core.requireHost().endpoint.request('timeline', { taskId });
    this.core.recordedTicks = tl.ticks;
    const lane = tl.lanes.find((l) => l.taskId === taskId);
    if (lane === undefined) throw new Error(`${command}: task #${taskId} is not in the recording`);
    return lane;
  }

  /**
   * Ticks a reverse continue (or a continue from the past) may land on, with how each is shown
   * when the recording says more than its tick: the stops this session saw, the task failures
   * (cancels) recorded while their exception filter is set, and the URLs the crawl recorded as
   * failed while `urlFailed` is (the first of a tick, as the live run stops on it).
   */
  async stopCandidates(): Promise<Map<number, PastStop | null>> {
    const tl = await this.core.requireHost().endpoint.request('timeline', {});
    this.core.recordedTicks = tl.ticks;
    const ticks = new Map<number, PastStop | null>(this.core.stopTicks);
    // A task's failure or cancel: shown as the live run stops on it, on its task's thread.
    for (const m of tl.marks) {
      if (
        ticks.has(m.tick) ||
        !(
          (m.kind === 'exception' && this.breakpoints.exceptionBreaks.taskFailed) ||
          (m.kind === 'cancel' && this.breakpoints.exceptionBreaks.taskCancelled)
        )
      )
        continue;
      ticks.set(
        m.tick,
        m.taskId === undefined ? null : { threadId: m.taskId, reason: m.kind === 'cancel' ? 'cancelled' : 'exception' },
      );
    }
    if (this.breakpoints.exceptionBreaks.urlFailed === true) {
      // The live run stops on a failed URL as on an exception (the host's urlFailed stop).
      for (const f of tl.urlFailures ?? [])
        if (!ticks.has(f.tick))
          ticks.set(f.tick, { threadId: f.taskId ?? LOOP_THREAD_ID, reason: 'exception', said: f.description });
    }
    return ticks;
  }

  /** The tick shown now: a past tick, a hit's, a finished run's end, or the present's tick. */
  async momentShown(): Promise<number> {
    const pos = settled(this.core.position);
    switch (pos.kind) {
      case 'pastTick':
      case 'pastHit':
      case 'recording':
        return pos.tick;
      case 'end':
      case 'liveLine':
        return pos.stop.tick;
      case 'pastLine':
        if (pos.stop !== null) return pos.stop.tick;
        break;
      case 'running':
      case 'paused':
        break;
    }
    await this.core.refreshTasks();
    return this.core.tasks.tick;
  }

  /**
   * Asks the host for a line breakpoint's hit in the past (its viewedTick, when it moves the views, is this
   * search's).
   */
  async searchHit(
    direction: 'back' | 'forward',
    tick: number,
    bounds: {
      floor?: number;
      ceiling?: number;
      logpointHit?: HostMethods['pastBreakpointHit']['params']['logpointHit'];
    },
  ): Promise<BreakpointHitLanding> {
    // The search is a move under way: the views may follow it to the hit's tick (its viewedTick), the stop
    // shown stays until it answers.
    const moment = this.core.momentIds.next();
    this.core.moveTo(startMove(this.core.position, { waits: 'search' }, moment));
    try {
      return await this.core
        .requireHost()
        .endpoint.request('pastBreakpointHit', { direction, tick, ...bounds, moment });
    } catch (e) {
      if (/not recorded/.test(message(e)))
        throw new Error(
          `${direction === 'back' ? 'Reverse Continue' : 'Continue'} needs a recorded run: launch with record (${message(e)})`,
        );
      throw e;
    } finally {
      const pos = this.core.position;
      if (pos.kind === 'moving' && pos.move.waits === 'search') this.core.moveTo(refused(pos));
    }
  }
}
