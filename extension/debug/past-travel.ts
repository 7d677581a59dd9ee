// PastTravel: the moves through the recorded past by tick and by breakpoint search: Continue
// from the past (to the next stop this session saw, recorded failure or replayed hit, else the
// present), Reverse Continue (the latest of them before the moment shown) and travelTo (every
// view of the run to a tick, the host's seekTick). What they ask of the recording is
// past-search.ts; the lane arithmetic is time-travel.ts.
//
// Invariants: each is answered once moved (move-answers.ts); a move that finds nowhere to go is
// refused with its reason, naming what was looked for; a hit found on a line is shown by
// position-events.ts showHit, a tick by the host's viewedTick of the move's moment.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { BreakpointHitLanding } from '../../protocol/host-protocol';
import { nextOf, previousOf } from './time-travel';
import { presentStop as presentStopOf, viewedTickOf, type TravelReason } from './debug-position';
import { LOOP_THREAD_ID } from './dap-mapping';
import type { PastStop, SessionCore } from './session-core';
import type { SessionBreakpoints } from './session-breakpoints';
import type { PastSearch } from './past-search';
import type { PositionEvents } from './position-events';
import type { MoveAnswers } from './move-answers';
import { stoppedEventOf, type StopInfo } from './stop-events';

export class PastTravel {
  constructor(
    private readonly core: SessionCore,
    private readonly breakpoints: SessionBreakpoints,
    private readonly past: PastSearch,
    private readonly positionEvents: PositionEvents,
    private readonly answers: MoveAnswers,
  ) {}

  /**
   * Continue from the past: to the earliest after the moment shown of the stops this session
   * saw, the exceptions recorded and the hits of the line breakpoints set now (replayed: a line
   * stop in the past), else back to the present.
   */
  continueInPast(response: DebugProtocol.ContinueResponse): void {
    const threadId = this.core.currentStop?.threadId ?? LOOP_THREAD_ID;
    this.core.serve(response, async () => {
      const now = await this.past.momentShown();
      const candidates = await this.past.stopCandidates();
      const from = this.past.forwardFrom(now);
      const next = this.past.towardPresent(nextOf(candidates.keys(), from));
      const present = presentStopOf(this.core.position)?.tick ?? this.core.recordedTicks;
      // Hits up to the next stop's tick come before it; in a live line stop's own tick, the host's search
      // ends at that stop.
      const ceiling = next ?? present;
      const landing =
        ceiling > from ? await this.past.searchHit('forward', now, { ceiling: Math.max(0, ceiling) }) : null;
      if (landing?.landed === 'line') {
        this.core.sendResponse(response);
        this.positionEvents.showHit(landing, threadId);
        return;
      }
      // A loop breakpoint's hit at the present's own tick is the present's stop.
      if (landing?.landed === 'tick' && this.past.towardPresent(landing.tick) !== null) {
        this.landOnSuspensionHit(response, landing);
        return;
      }
      const pos = this.core.position;
      if (next === null && pos.kind === 'pastLine' && pos.live !== null) {
        // From a past line of the live line stop, nothing stops before it: that stop again, as it was (the
        // live program is held there; a second Continue runs it on).
        this.backToLiveLine(response, pos.live);
        return;
      }
      this.landOn(response, threadId, candidates, next);
    });
  }

  /**
   * Leaves the past lines of the live line stop for that stop (the host's seekTick to the present: its
   * `paused` shows it, in its own reason).
   */
  private backToLiveLine(response: DebugProtocol.Response, live: StopInfo): void {
    const host = this.core.requireHost();
    this.core.output(
      `Coroscope: nothing stops between the past line shown and the live stop at tick ${live.tick}: back to the live stop (Continue again runs the program on)`,
    );
    this.core.requestedThread = live.threadId;
    const moment = this.answers.startMove({ waits: 'liveStop', live });
    void this.answers.answerOnceMoved(response, async () => {
      await host.endpoint.request('seekTick', { tick: null, moment });
    });
  }

  /**
   * A hit of a breakpoint on a suspension point, found in the past: the live run stopped after its tick, so
   * the views go there, on its task's thread, in its live words.
   */
  private landOnSuspensionHit(
    response: DebugProtocol.Response,
    landing: Extract<BreakpointHitLanding, { landed: 'tick' }>,
  ): void {
    this.travelTo(response, landing.taskId, 'breakpoint', async () => landing.tick, landing.description);
  }

  /**
   * Moves the views to a recorded stop's tick (null: the present), shown on its task's thread and in its
   * words when the recording says them.
   */
  private landOn(
    response: DebugProtocol.Response,
    threadId: number,
    candidates: ReadonlyMap<number, PastStop | null>,
    tick: number | null,
  ): void {
    const stop = tick === null ? null : (candidates.get(tick) ?? null);
    this.travelTo(response, stop?.threadId ?? threadId, stop?.reason ?? 'goto', async () => tick, stop?.said);
  }

  /**
   * Moves every view of the run to a tick (null: the present) that `target` computes from the
   * tick shown now; a refusal (a thrown Error) is the request's error response. The response
   * goes before the host moves (the `stopped` comes with its viewedTick event).
   */
  travelTo(
    response: DebugProtocol.Response,
    threadId: number,
    reason: TravelReason,
    target: (now: number) => Promise<number | null>,
    said?: string,
  ): void {
    this.core.serve(response, async () => {
      // At a stop on a line too: the host's line replay serves the past while the stop holds the thread.
      const stop = this.core.currentStop;
      const host = this.core.requireHost();
      const viewed = viewedTickOf(this.core.position);
      if (viewed === null) await this.core.refreshTasks();
      // At a finished run's end: its last recorded tick (the loop's count may stop short of it).
      const now = viewed ?? (stop?.reason === 'end' ? stop.tick : this.core.tasks.tick);
      const tick = await target(now);
      if (tick === null && viewed === null) throw new Error(`${response.command}: already at the present`);
      // The present is kept by the position (debug-position.ts presentOf): the landing's viewedTick says where.
      const moment = this.answers.startMove(
        said === undefined ? { waits: 'seek', reason, threadId } : { waits: 'seek', reason, threadId, said },
      );
      // Answered once replayed: this session shows the tick's stacks with positions and locals, so it waits
      // for them as it always did.
      await this.answers.answerOnceMoved(response, async () => {
        await host.endpoint.request('seekTick', { tick, replayed: true, moment });
      });
    });
  }

  /**
   * To the latest before the moment shown of: the stops this session saw and the exceptions
   * recorded (a tick), and the hits of the line breakpoints set now, found by replaying the
   * recording with them armed (the host's pastBreakpointHit: a line stop in the past, shown
   * with its frames and locals). Refused, naming the breakpoints, when there is none.
   */
  reverseContinue(response: DebugProtocol.ReverseContinueResponse, args: DebugProtocol.ReverseContinueArguments): void {
    this.core.serve(response, async () => {
      const now = await this.past.momentShown();
      const candidates = await this.past.stopCandidates();
      const tick = previousOf(candidates.keys(), now);
      const landing = await this.past.searchHit('back', now, tick === null ? {} : { floor: tick });
      if (landing.landed === 'line') {
        this.core.sendResponse(response);
        this.positionEvents.showHit(landing, args.threadId);
        return;
      }
      if (landing.landed === 'tick') {
        this.landOnSuspensionHit(response, landing);
        return;
      }
      // Line stops the run made at breakpoints no longer set still count (as their ticks).
      const earlier = previousOf(tick === null ? this.core.lineStopTicks : [tick, ...this.core.lineStopTicks], now);
      if (earlier === null) {
        const armed = landing.breakpoints.map((b) => `${b.file}:${b.line}`);
        const pos = this.core.position;
        if (pos.kind === 'pastHit' && pos.stop !== null) {
          // The replay host stopped on the hit shown again (the search replayed past it): its frames are new.
          const shown = pos.stop;
          this.core.invalidate();
          setImmediate(() => {
            if (this.core.currentStop === shown) this.core.sendEvent(stoppedEventOf(shown));
          });
        }
        const filters = Object.entries(this.breakpoints.exceptionBreaks)
          .filter(([, on]) => on === true)
          .map(([f]) => f);
        const what =
          this.breakpoints.exceptionBreaks.urlFailed === true ? ', an exception or a failed URL' : ' or an exception';
        throw new Error(
          `Reverse Continue: no stop at a breakpoint${what} before tick ${now} in the recording (exception filters: ${filters.length > 0 ? filters.join(', ') : 'none'})${armed.length > 0 ? `, and no hit of the breakpoint${armed.length > 1 ? 's' : ''} at ${armed.join(', ')} before it (replayed)` : ' (no line breakpoint is set)'}`,
        );
      }
      this.landOn(response, args.threadId, candidates, earlier);
    });
  }
}
