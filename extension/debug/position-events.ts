// PositionEvents: the host's events that move where the debugger stands (paused, continued,
// viewedTick) and this session's landings (a hit found in the past, the end of a recorded
// run), each shown as DAP `stopped` / `continued` events. Whoever moved the views (this
// session, the panel's scrubber, another debug session) the stop shown follows the host.
//
// Invariants: a stop is shown once per landing; a past line or tick shows another moment's
// tasks (the mirror is cleared, never mixed with the present's); events of another run
// (runId) or while launching are ignored.

import { ContinuedEvent } from '@vscode/debugadapter';
import type { BreakpointHitLanding, HostEvents } from '../../protocol/host-protocol';
import { LOOP_THREAD_ID } from './dap-mapping';
import type { SessionCore } from './session-core';
import { endHint, endStop, loopStoppedEvent, pastTickLabel, stoppedEvent, stoppedEventOf, type StopInfo } from './stop-events';

/** How the host describes a URL-failed stop (runtime/host/main-thread/run.ts, onStatistic). */
const FAILED_URL = /failed to fetch (\S+?): /;

export class PositionEvents {
  constructor(private readonly core: SessionCore) {}

  onPaused(b: HostEvents['paused']): void {
    // The hold at entry during launch is the adapter's own; release() decides what to show.
    if (this.core.phase === 'launching' || this.core.phase === 'restarting') return;
    if (b.pastLine === true && this.core.pastHit !== null) {
      // A line reached by a step from the hit shown (or from a line reached so): shown like the hit.
      this.showHitLine(b);
      return;
    }
    const stop = this.core.stopOf(b);
    const threadId = stop.threadId;
    if (b.reason === 'breakpoint' && b.line !== undefined) this.core.lineStopTicks.add(b.tick);
    else if (b.reason === 'breakpoint' || b.reason === 'exception' || b.reason === 'cancelled') this.core.stopTicks.set(b.tick, { threadId, reason: b.reason, said: b.description });
    if (this.core.viewedTick !== null) {
      // The present stopped while the views show a past tick: kept for the way back.
      this.core.presentStop = stop;
      this.core.output(`Coroscope: the run stopped (${b.reason}) at tick ${b.tick}; the views show tick ${this.core.viewedTick}, replayed: Continue goes forward to the present`);
      return;
    }
    this.core.invalidate();
    if (b.pastLine !== true) {
      // A live stop (the one held, shown again, or a new one): no past line of it is shown.
      const back = this.core.continuedToLive;
      this.core.continuedToLive = null;
      this.core.liveLineStop = null;
      if (back !== null && b.line !== undefined && back.line !== undefined && back.tick === b.tick) stop.reason = back.reason;
    }
    // Onto a past line or back from one: the tasks are another moment's (a whole table of it, not a delta).
    if ((b.pastLine === true) !== this.core.onPastLine) {
      this.core.onPastLine = b.pastLine === true;
      this.core.tasks.clear();
    }
    // A past line: the console says which tick (an earlier step's too, a step back from the task's first line of its step: and why there), as at a hit's lines.
    if (b.pastLine === true) this.core.output(`Coroscope: ${b.description}`);
    this.core.currentStop = stop;
    this.core.tasks.paused = true;
    // The host's URL-failed stop says "… failed to fetch <url>: <error>".
    const failed = b.reason === 'exception' ? FAILED_URL.exec(b.description) : null;
    this.core.failedUrl = failed !== null ? failed[1]! : null;
    let text: string | undefined;
    if (b.reason === 'exception' || b.reason === 'cancelled') {
      const tb = b.taskId !== undefined ? this.core.exceptions.get(b.taskId) : this.core.callbackFailure;
      text = tb !== undefined && tb !== null ? tb.error : b.reason === 'cancelled' ? 'CancelledError' : b.description;
    }
    // The host's description is long ("Task #2 "worker-1" suspended at …"): VS Code shows a
    // stop's description beside the thread's name, so it goes to the console instead.
    if (b.reason === 'breakpoint' || b.reason === 'exception' || b.reason === 'cancelled') this.core.output(`Coroscope: ${b.description}`);
    this.core.flushThreadEvents();
    this.core.sendEvent(stoppedEvent(stop.reason, threadId, text));
    this.core.tasksChanged();
  }

  onContinued(): void {
    if (this.core.phase !== 'running') return;
    if (this.core.viewedTick !== null) {
      // The present runs on; the views stay at the past tick.
      this.core.presentStop = null;
      return;
    }
    if (this.core.currentStop !== null) {
      this.core.resumed();
      this.core.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
    }
    this.core.tasks.paused = false;
    this.core.tasksChanged();
  }

  /** Every view of the run now shows a past tick (or the present again): this session shows it as a stop. */
  onViewedTick(b: HostEvents['viewedTick']): void {
    if (b.runId !== this.core.runId || !this.core.showsRun()) return;
    // A line within a tick (a past line or hit while a line stop holds the run): this session shows the line itself, by its `paused` or its search's answer.
    if (b.line === true) return;
    // The replay of a tick shown has landed or failed: never a move (the host told the move before, replayed: false, and
    // drops a landing once the views moved on); this session's stacks are asked with locals, which wait for the replay.
    if (b.replayed === true || b.replayError !== undefined) return;
    this.core.recordedTicks = b.ticks;
    if (this.core.hitMove && b.tick !== null) {
      // The views follow a line move from the hit to its tick; the move's `paused` shows the line.
      this.core.viewedTick = b.tick;
      return;
    }
    if (this.core.hitTravel && b.tick !== null) {
      // The views follow this session's search to the hit's tick; its answer shows the hit (showHit).
      this.core.hitTravel = false;
      if (this.core.viewedTick === null) this.core.presentStop = this.core.liveLineStop ?? this.core.currentStop;
      this.core.viewedTick = b.tick;
      return;
    }
    // Any other move leaves the hit shown.
    this.core.pastHit = null;
    const travel = this.core.travel;
    this.core.travel = null;
    if (this.core.phase === 'atEnd' && b.tick !== null && b.tick >= b.ticks) {
      // The last tick of a finished run (an opened recording's present) is its end.
      this.core.viewedTick = b.tick;
      this.core.presentStop = null;
      this.core.tasks.clear();
      this.showEnd();
      return;
    }
    if (b.tick === null) {
      if (this.core.viewedTick === null) return;
      this.core.liveLineStop = null;
      this.core.viewedTick = null;
      this.core.invalidate();
      this.core.tasks.clear();
      const present = this.core.presentStop;
      this.core.presentStop = null;
      this.core.output(`Coroscope: back to the present${present?.reason === 'end' ? `: ${endHint(present.tick)}` : ''}`);
      if (present !== null) {
        this.core.currentStop = present;
        this.core.tasks.paused = true;
        this.core.sendEvent(stoppedEventOf(present));
        if (present.threadId !== LOOP_THREAD_ID) this.core.sendEvent(loopStoppedEvent(present.reason, `Paused at tick ${present.tick}`));
      } else {
        this.core.currentStop = null;
        this.core.tasks.paused = false;
        this.core.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
      }
      this.core.tasksChanged();
      return;
    }
    // Entering the past from elsewhere (the panel's scrubber): the present's stop is kept (from a past line of a live line stop, that live stop).
    if (this.core.viewedTick === null && travel === null) this.core.presentStop = this.core.liveLineStop ?? this.core.currentStop;
    this.core.viewedTick = b.tick;
    this.core.invalidate();
    this.core.tasks.clear();
    const threadId = travel?.threadId ?? this.core.currentStop?.threadId ?? LOOP_THREAD_ID;
    const reason = travel?.reason ?? 'goto';
    const said = travel?.said;
    this.core.currentStop = { reason, tick: b.tick, taskId: threadId < LOOP_THREAD_ID ? threadId : undefined, threadId, description: said ?? `tick ${b.tick} of ${b.ticks}, replayed from the recording` };
    this.core.tasks.paused = true;
    this.core.output(said !== undefined ? `Coroscope: ${said}, at tick ${b.tick} of ${b.ticks} (replayed from the recording)` : `Coroscope: tick ${b.tick} of ${b.ticks} (replayed from the recording)`);
    this.core.flushThreadEvents();
    const stopped = stoppedEvent(reason, threadId, reason === 'exception' ? said : reason === 'cancelled' ? 'CancelledError' : undefined);
    // A recorded stop landed on says it as the live stop did ('Paused on breakpoint'); a tick moved to, which tick.
    if (reason === 'step' || reason === 'goto') stopped.body.description = pastTickLabel(b.tick, b.ticks);
    this.core.sendEvent(stopped);
    // The loop's row says the tick viewed too (not the end, or the moment it was stopped at before).
    if (threadId !== LOOP_THREAD_ID) this.core.sendEvent(loopStoppedEvent(reason, pastTickLabel(b.tick, b.ticks)));
    this.core.tasksChanged();
  }

  /** Shows the end of the finished run as the stop (currentStop becomes the end's). */
  showEnd(): void {
    const end = endStop(this.core.recordedTicks);
    this.core.invalidate();
    this.core.resumed();
    this.core.currentStop = end;
    this.core.tasks.paused = true;
    this.core.output(`Coroscope: ${endHint(end.tick)}`);
    this.core.flushThreadEvents();
    this.core.sendEvent(stoppedEventOf(end));
    this.core.tasksChanged();
  }

  /** Shows a hit found in the past as a line stop (its frames and locals are the replay host's), the views at its tick. */
  showHit(landing: Extract<BreakpointHitLanding, { landed: 'line' }>, threadId: number): void {
    if (this.core.viewedTick === null && this.core.pastHit === null) this.core.presentStop = this.core.liveLineStop ?? this.core.currentStop;
    this.core.viewedTick = landing.tick;
    this.core.pastHit = { tick: landing.tick };
    this.core.invalidate();
    this.core.tasks.clear();
    const thread = landing.taskId ?? threadId;
    const stop: StopInfo = { reason: 'breakpoint', tick: landing.tick, taskId: landing.taskId ?? undefined, threadId: thread, description: landing.description };
    if (landing.line !== null) stop.line = landing.line;
    this.core.currentStop = stop;
    this.core.tasks.paused = true;
    this.core.output(`Coroscope: ${landing.description}`);
    this.core.flushThreadEvents();
    this.core.sendEvent(stoppedEvent('breakpoint', thread));
    this.core.tasksChanged();
  }

  /** Shows a line reached by a line move from the hit shown: a line stop in the past, the views at its tick. */
  private showHitLine(b: HostEvents['paused']): void {
    const stop = this.core.stopOf(b);
    this.core.pastHit = { tick: b.tick };
    this.core.viewedTick = b.tick;
    this.core.invalidate();
    this.core.tasks.clear();
    this.core.currentStop = stop;
    this.core.tasks.paused = true;
    this.core.output(`Coroscope: ${b.description}`);
    this.core.flushThreadEvents();
    this.core.sendEvent(stoppedEvent('step', stop.threadId));
    if (stop.threadId !== LOOP_THREAD_ID) this.core.sendEvent(loopStoppedEvent('step', pastTickLabel(b.tick, this.core.recordedTicks)));
    this.core.tasksChanged();
  }
}
