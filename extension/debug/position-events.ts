// PositionEvents: the host's events that move where the debugger stands (paused, continued,
// viewedTick) and this session's landings (a hit found in the past, the end of a recorded
// run), each shown as DAP `stopped` / `continued` events. Whoever moved the views (this
// session, the panel's scrubber, another debug session) the stop shown follows the host.
//
// Each event is a transition of the stored position (debug-position.ts); whether it answers
// this session's move under way is decided by answersMove alone (by the moment id the event echoes).
//
// Invariants: a stop is shown once per landing; a past line or tick shows another moment's
// tasks (the mirror is cleared, never mixed with the present's); events of another run
// (runId) or while launching are ignored.

import { ContinuedEvent, Event } from '@vscode/debugadapter';
import { DEADLOCK_EVENT } from './custom-requests';
import type { BreakpointHitLanding, HostEvents } from '../../protocol/host-protocol';
import { idOf } from '../../protocol/moment-ids';
import { LOOP_THREAD_ID } from './dap-mapping';
import {
  answersMove,
  aside,
  atEnd,
  backToPresent,
  landedInPast,
  onContinued,
  onPaused,
  onViewedTick,
  presentOf,
  settled,
  viewedTickOf,
  type DebugPosition,
  type SettledPosition,
} from './debug-position';
import type { SessionCore } from './session-core';
import {
  endHint,
  endStop,
  loopStoppedEvent,
  movedElsewhere,
  pastTickLabel,
  stoppedEvent,
  stoppedEventOf,
  type StopInfo,
} from './stop-events';

export class PositionEvents {
  constructor(private readonly core: SessionCore) {}

  /**
   * The host's `paused`: a live stop, a past line (of a live line stop, or of a hit shown), or the answer of
   * this session's move.
   */
  onPaused(b: HostEvents['paused']): void {
    // The hold at entry during launch is the adapter's own; release() decides what to show.
    if (this.core.phase === 'launching' || this.core.phase === 'restarting') return;
    const pos = this.core.position;
    const base = settled(pos);
    const pastLine = b.pastLine === true;
    const answer = answersMove(pos, { event: 'paused', pastLine, ...idOf(b.moment) });
    if (pastLine && (base.kind === 'pastHit' || (base.kind === 'recording' && base.stop?.line !== undefined))) {
      // A line reached by a step from the hit shown (or from a line reached so): shown like the hit.
      this.showHitLine(b);
      return;
    }
    const stop = this.core.stopOf(b);
    const threadId = stop.threadId;
    // A past line's breakpoint is no live stop (the live stops are kept for Reverse Continue).
    if (pastLine) {
      // Said below.
    } else if (b.reason === 'breakpoint' && b.line !== undefined) this.core.lineStopTicks.add(b.tick);
    else if (b.reason === 'breakpoint' || b.reason === 'exception' || b.reason === 'cancelled')
      this.core.stopTicks.set(b.tick, { threadId, reason: b.reason, said: b.description });
    if (!answer && (base.kind === 'pastTick' || base.kind === 'pastHit')) {
      // The present stopped while the views show a past tick: kept for the way back.
      this.core.moveTo(onPaused(pos, stop, false));
      this.core.output(
        `Coroscope: the run stopped (${b.reason}) at tick ${b.tick}; the views show tick ${base.tick}, replayed: Continue goes forward to the present`,
      );
      return;
    }
    // Back at the live line stop from its past lines: shown as it was (its own reason).
    if (
      answer &&
      pos.kind === 'moving' &&
      pos.move.waits === 'liveStop' &&
      b.line !== undefined &&
      pos.move.live.tick === b.tick
    )
      stop.reason = pos.move.live.reason;
    this.core.invalidate();
    // The move's answer lands where it left from; any other stop goes on the move's way (onPaused of a move under way).
    this.core.moveTo(answer ? onPaused(base, stop, pastLine) : onPaused(pos, stop, pastLine));
    // A past line: the console says which tick (an earlier step's too, a step back from the task's first line
    // of its step: and why there), as at a hit's lines.
    if (pastLine) this.core.output(`Coroscope: ${b.description}`);
    this.core.tasks.paused = true;
    // A URL-failed stop names its URL (a task's failure does not, whatever its error's words).
    this.core.failedUrl = b.reason === 'exception' ? (b.url ?? null) : null;
    let text: string | undefined;
    if (b.reason === 'exception' || b.reason === 'cancelled') {
      const tb = b.taskId !== undefined ? this.core.exceptions.get(b.taskId) : this.core.callbackFailure;
      text = tb !== undefined && tb !== null ? tb.error : b.reason === 'cancelled' ? 'CancelledError' : b.description;
    }
    // The host's description is long ("Task #2 "worker-1" suspended at …"): VS Code shows a
    // stop's description beside the thread's name, so it goes to the console instead.
    if (!pastLine && (b.reason === 'breakpoint' || b.reason === 'exception' || b.reason === 'cancelled'))
      this.core.output(`Coroscope: ${b.description}`);
    this.core.flushThreadEvents();
    const stopped = stoppedEvent(stop.reason, threadId, b.deadlock !== undefined ? 'Deadlock' : text);
    if (b.deadlock !== undefined) {
      // The Call Stack says the cycle beside the thread; the extension shows a notification.
      stopped.body.description = b.description;
      this.core.output(b.deadlock.details);
      this.core.sendEvent(new Event(DEADLOCK_EVENT, { summary: b.deadlock.summary, details: b.deadlock.details }));
    }
    this.core.sendEvent(stopped);
    this.core.tasksChanged();
  }

  /** The host's `continued`: the live run goes on (behind the past shown, which stays). */
  onContinued(): void {
    if (this.core.phase !== 'running') return;
    const shown = this.core.currentStop;
    const before = this.core.position.kind;
    this.core.moveTo(onContinued(this.core.position));
    if (before !== 'pastTick' && before !== 'pastHit' && before !== 'moving' && shown !== null) {
      this.core.resumed();
      this.core.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
    }
    if (before === 'pastTick' || before === 'pastHit') return;
    this.core.tasks.paused = false;
    this.core.tasksChanged();
  }

  /** Every view of the run now shows a past tick (or the present again): this session shows it as a stop. */
  onViewedTick(b: HostEvents['viewedTick']): void {
    if (b.runId !== this.core.runId || !this.core.showsRun()) return;
    // A line within a tick (a past line or hit while a line stop holds the run): this session shows the line
    // itself, by its `paused` or its search's answer.
    if (b.line === true) return;
    // The replay of a tick shown has landed or failed: never a move (the host told the move before, replayed:
    // false, and
    // drops a landing once the views moved on); this session's stacks are asked with locals, which wait for the replay.
    if (b.replayed === true || b.replayError !== undefined) return;
    this.core.recordedTicks = b.ticks;
    const pos = this.core.position;
    const mine = answersMove(pos, { event: 'viewedTick', tick: b.tick, ...idOf(b.moment) });
    // The views follow this session's search to the hit's tick (its answer shows the hit), or a line move
    // from a hit to the line's tick (its `paused` shows the line).
    if (mine && pos.kind === 'moving' && pos.move.waits !== 'seek') return;
    const move = mine && pos.kind === 'moving' && pos.move.waits === 'seek' ? pos.move : null;
    const base = settled(pos);
    if (this.core.phase === 'atEnd' && (b.tick === null ? base.kind === 'recording' : b.tick >= b.ticks)) {
      // The last tick of a finished run is its end; so is the present of a recording (a finished run attached
      // to has no other).
      this.core.moveTo(base);
      this.core.tasks.clear();
      this.showEnd(move === null);
      return;
    }
    if (b.tick === null) {
      if (viewedTickOf(base) === null) {
        // Not in the past (a past line's present is the live stop it holds: its `paused` says so).
        if (move !== null) this.core.moveTo(base);
        return;
      }
      this.backToPresent(base, move === null, pos);
      return;
    }
    // Entering the past, or moving in it (this session's seek, or another view's: the panel's scrubber). The
    // present is kept (debug-position.ts onViewedTick).
    this.core.invalidate();
    this.core.tasks.clear();
    const threadId = move?.threadId ?? this.core.currentStop?.threadId ?? LOOP_THREAD_ID;
    const reason = move?.reason ?? 'goto';
    const said = move?.said;
    const stop: StopInfo = {
      reason,
      tick: b.tick,
      taskId: threadId < LOOP_THREAD_ID ? threadId : undefined,
      threadId,
      description: said ?? `tick ${b.tick} of ${b.ticks}, replayed from the recording`,
    };
    this.core.moveTo(aside(pos, mine, onViewedTick(base, b.tick, b.ticks, false, stop)));
    this.core.tasks.paused = true;
    this.core.output(
      said !== undefined
        ? `Coroscope: ${said}, at tick ${b.tick} of ${b.ticks} (replayed from the recording)`
        : `Coroscope: tick ${b.tick} of ${b.ticks} (replayed from the recording)`,
    );
    this.core.flushThreadEvents();
    const stopped = stoppedEvent(
      reason,
      threadId,
      reason === 'exception' ? said : reason === 'cancelled' ? 'CancelledError' : undefined,
    );
    // A recorded stop landed on says it as the live stop did ('Paused on breakpoint'); a tick moved to, which tick.
    if (reason === 'step' || reason === 'goto') stopped.body.description = pastTickLabel(b.tick, b.ticks);
    this.core.sendEvent(movedElsewhere(stopped, move === null));
    // The loop's row says the tick viewed too (not the end, or the moment it was stopped at before).
    if (threadId !== LOOP_THREAD_ID) this.core.sendEvent(loopStoppedEvent(reason, pastTickLabel(b.tick, b.ticks)));
    this.core.tasksChanged();
  }

  /** Out of the past to its present: the run going on, its live stop held, or the end. */
  private backToPresent(base: SettledPosition, elsewhere: boolean, pos: DebugPosition): void {
    const present = presentOf(base);
    this.core.moveTo(aside(pos, !elsewhere, backToPresent(base)));
    this.core.invalidate();
    this.core.tasks.clear();
    const stop = present === null || present.kind === 'running' ? null : present.stop;
    this.core.output(`Coroscope: back to the present${stop?.reason === 'end' ? `: ${endHint(stop.tick)}` : ''}`);
    if (stop !== null) {
      this.core.tasks.paused = true;
      this.core.sendEvent(movedElsewhere(stoppedEventOf(stop), elsewhere));
      if (stop.threadId !== LOOP_THREAD_ID)
        this.core.sendEvent(loopStoppedEvent(stop.reason, `Paused at tick ${stop.tick}`));
    } else {
      this.core.tasks.paused = false;
      this.core.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
    }
    this.core.tasksChanged();
  }

  /**
   * Shows the end of the finished run as the stop (an opened recording: its last tick); `elsewhere`: another
   * view moved there.
   */
  showEnd(elsewhere = false): void {
    const end = endStop(this.core.recordedTicks);
    this.core.resumed();
    this.core.moveTo(atEnd(this.core.position, end));
    this.core.tasks.paused = true;
    this.core.output(`Coroscope: ${endHint(end.tick)}`);
    this.core.flushThreadEvents();
    this.core.sendEvent(movedElsewhere(stoppedEventOf(end), elsewhere));
    this.core.tasksChanged();
  }

  /**
   * Shows a hit found in the past as a line stop (its frames and locals are the replay host's), the views at
   * its tick.
   */
  showHit(landing: Extract<BreakpointHitLanding, { landed: 'line' }>, threadId: number): void {
    const thread = landing.taskId ?? threadId;
    const stop: StopInfo = {
      reason: 'breakpoint',
      tick: landing.tick,
      taskId: landing.taskId ?? undefined,
      threadId: thread,
      description: landing.description,
    };
    if (landing.line !== null) stop.line = landing.line;
    this.core.invalidate();
    this.core.moveTo(landedInPast(this.core.position, landing.tick, stop, true));
    this.core.tasks.clear();
    this.core.tasks.paused = true;
    this.core.output(`Coroscope: ${landing.description}`);
    this.core.flushThreadEvents();
    this.core.sendEvent(stoppedEvent('breakpoint', thread));
    this.core.tasksChanged();
  }

  /** Shows a line reached by a line move from the hit shown: a line stop in the past, the views at its tick. */
  private showHitLine(b: HostEvents['paused']): void {
    const stop = this.core.stopOf(b);
    this.core.invalidate();
    this.core.moveTo(onPaused(settled(this.core.position), stop, true));
    this.core.tasks.clear();
    this.core.tasks.paused = true;
    this.core.output(`Coroscope: ${b.description}`);
    this.core.flushThreadEvents();
    // A breakpoint's hit a step from the hit stopped at on its way (it ran on past its task's lines).
    const reason = b.reason === 'breakpoint' ? 'breakpoint' : 'step';
    this.core.sendEvent(stoppedEvent(reason, stop.threadId));
    if (stop.threadId !== LOOP_THREAD_ID)
      this.core.sendEvent(loopStoppedEvent(reason, pastTickLabel(b.tick, this.core.recordedTicks)));
    this.core.tasksChanged();
  }
}
