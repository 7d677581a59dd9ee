// SessionMoves: the DAP move requests (continue, next, stepIn, stepOut, stepBack,
// reverseContinue, pause), each answered by a `switch` on where the debugger stands
// (debug-position.ts): by the live run, by line at a line stop, or through the recorded past
// (the host's seekTick, line replay and breakpoint search).
//
// Invariants: a live execution request is answered before the host is asked (VS Code must see
// the answer before the `stopped` it causes); a move in time is answered only once it has
// moved (answerOnceMoved: its events are held until then); a move that fails is an error
// response shown to the user, the stop shown before is shown again, and no `stopped` or
// `continued` of the move goes out. A move in time is the position `moving` (startMove) until
// the host's answer lands it (position-events.ts); another move meanwhile is refused. Each
// move names its requests with a moment id of the session's own (the host echoes it on the
// events it causes: answersMove). A move the host answered whose landing event never comes is
// given up after moveLandingMs (30 s): the position it left again, its stop shown again.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { RemoteError } from '../../protocol/rpc';
import type { BreakpointHitLanding, TimelineLane } from '../../protocol/host-protocol';
import { frameReturn, laneHasFrames, nextOf, nextSuspension, previousOf, previousSuspension } from './time-travel';
import {
  canStepForward,
  onContinued,
  presentStop as presentStopOf,
  refused,
  retarget,
  startMove,
  viewedTickOf,
  type DebugPosition,
  type Move,
  type TravelReason,
} from './debug-position';
import type { DebugHost } from './debug-host';
import { CALLBACK_THREAD_ID, LOOP_THREAD_ID } from './dap-mapping';
import { ERR_HOST, ERR_NOT_RUNNING, MOVE_LANDING_MS, type PastStop, type SessionCore } from './session-core';
import type { SessionBreakpoints } from './session-breakpoints';
import type { PastSearch } from './past-search';
import type { PositionEvents } from './position-events';
import { message, stoppedEventOf, type StopInfo } from './stop-events';

/** One line move of a walk (SessionMoves.walkLines): 'line' once landed on a line, else where it could not go. */
export type LineWalkStep = (kind: 'back' | 'over' | 'into') => Promise<'line' | 'present' | 'suspension' | 'off'>;

/** How long a walk's line move waits for its landing's `paused` (the host sends it right after its answer). */
const LINE_LANDING_MS = 10_000;

/** How a past line landed on is said in the console (position-events.ts): a walk's lines on the way are not. */
const SAYS_PAST_LINE = /^Coroscope: .* on a past line at /;

function outputOf(e: DebugProtocol.Event): string {
  const body: unknown = e.body;
  return e.event === 'output' && typeof body === 'object' && body !== null && 'output' in body
    ? String(body.output)
    : '';
}

/** Whether the position shows a stop on a line (live, a past line, a hit's). */
function shownLineOf(pos: Exclude<DebugPosition, { kind: 'running' | 'moving' }>): boolean {
  return pos.kind !== 'paused' && pos.stop !== null && pos.stop.line !== undefined;
}

export class SessionMoves {
  constructor(
    private readonly core: SessionCore,
    private readonly breakpoints: SessionBreakpoints,
    private readonly past: PastSearch,
    private readonly positionEvents: PositionEvents,
  ) {}

  /**
   * Answers a move in time (Step Back, Reverse Continue, a step or continue through the past)
   * only once it has moved: what the session says meanwhile (the landing's `stopped` above all)
   * is held until the success response has gone, as VS Code takes a stop after the answer of
   * the request that made it. A move that fails is the request's error (VS Code shows it): the
   * position the move left is taken again (debug-position.ts refused) and its stop shown again,
   * and no `stopped` or `continued` of the move goes out: never a success that did not move.
   */
  private async answerOnceMoved(response: DebugProtocol.Response, move: () => Promise<void>): Promise<void> {
    const outer = this.core.heldEvents !== null;
    if (!outer) this.core.heldEvents = [];
    try {
      await move();
    } catch (e) {
      const held = outer ? [] : (this.core.heldEvents ?? []);
      if (!outer) this.core.heldEvents = null;
      for (const ev of held) if (ev.event !== 'stopped' && ev.event !== 'continued') this.core.emitNow(ev);
      const reason =
        e instanceof RemoteError && e.code === 'superseded'
          ? `${response.command}: another move of the views came first (${message(e)})`
          : message(e);
      this.core.fail(response, ERR_HOST, reason, true);
      const stop = this.refusedMove();
      const host = this.core.host;
      // The stop shown before, again: its frames and variables are asked anew (the move's start forgot them).
      if (stop !== null && host !== null && host.isAlive() && this.core.showsRun())
        this.core.sendEvent(stoppedEventOf(stop));
      return;
    }
    const pos = this.core.position;
    // A seek is answered after its viewedTick (the host's order): one still waited for was not this session's
    // to show (another run's, or a phase that shows none).
    if (pos.kind === 'moving' && pos.move.waits === 'seek') this.core.moveTo(refused(pos));
    // A line move's `paused` follows its answer: waited for, but not forever (a live line step's program
    // runs on as long as it runs: its `paused`, Pause's or the step's, lands it).
    else if (pos.kind === 'moving' && pos.move.waits !== 'liveLine') this.boundLanding(response.command, pos);
    const held = outer ? [] : (this.core.heldEvents ?? []);
    if (!outer) this.core.heldEvents = null;
    this.core.sendResponse(response);
    for (const ev of held) this.core.emitNow(ev);
  }

  /**
   * A move the host answered whose landing event has not come yet (a line move's `paused`):
   * if it has not come within moveLandingMs, the move is given up: the position it left is
   * taken again, its stop shown again, and the console says why (the request was answered
   * already; a move asked meanwhile was refused, saying what it waits for).
   */
  private boundLanding(command: string, pos: Extract<DebugPosition, { kind: 'moving' }>): void {
    const ms = this.core.options.moveLandingMs ?? MOVE_LANDING_MS;
    const timer = setTimeout(() => {
      const now = this.core.position;
      // Landed meanwhile, or another move under way (named otherwise): nothing to give up.
      if (now.kind !== 'moving' || now.moment !== pos.moment || now.move !== pos.move) return;
      this.core.output(
        `Coroscope: ${command}: the host answered but never showed where the move landed (no ${pos.move.waits === 'liveStop' ? 'live stop' : 'past line'} event for move ${pos.moment ?? '(unnamed)'} in ${ms / 1000} s): back where it was`,
        'stderr',
      );
      const stop = this.refusedMove();
      const host = this.core.host;
      if (stop !== null && host !== null && host.isAlive() && this.core.showsRun())
        this.core.sendEvent(stoppedEventOf(stop));
    }, ms);
    timer.unref?.();
  }

  /**
   * The host refused the move under way: the position it left again (an event that landed meanwhile stands);
   * returns the stop to show again.
   */
  private refusedMove(): StopInfo | null {
    this.core.requestedThread = null;
    this.core.moveTo(refused(this.core.position));
    this.core.invalidate();
    return this.core.currentStop;
  }

  /**
   * This session starts a move in time: the position says it is under way, what it waits for, and the moment
   * id its requests carry (returned).
   */
  private startMove(move: Move): string {
    const moment = this.core.momentIds.next();
    this.core.resumed();
    this.core.moveTo(startMove(this.core.position, move, moment));
    return moment;
  }

  /** The move under way goes on as another (a line move that must seek after all), under a new moment id (returned). */
  private retargetMove(move: Move): string {
    const moment = this.core.momentIds.next();
    this.core.moveTo(retarget(this.core.position, move, moment));
    return moment;
  }

  /**
   * A move request while one is under way: refused (where the views will stand is known only once the host
   * has answered it).
   */
  private refuseDuringMove(response: DebugProtocol.Response, pos: Extract<DebugPosition, { kind: 'moving' }>): void {
    const bound = (this.core.options.moveLandingMs ?? MOVE_LANDING_MS) / 1000;
    this.core.fail(
      response,
      ERR_HOST,
      `${response.command}: another move of this session is under way (waiting for the host: ${pos.move.waits}); try again once it has landed (given up after ${bound} s without its landing)`,
      true,
    );
  }

  /** Answers an execution request at once, then asks the host; a refusal is shown and the stop restored. */
  private execute(
    response: DebugProtocol.Response,
    threadId: number | null,
    action: (host: DebugHost) => Promise<unknown>,
    resumes: boolean,
  ): void {
    let host: DebugHost;
    try {
      host = this.core.requireHost();
    } catch (e) {
      this.core.fail(response, ERR_NOT_RUNNING, message(e));
      return;
    }
    const previous = this.core.position;
    const previousStop = this.core.currentStop;
    this.core.requestedThread = threadId === CALLBACK_THREAD_ID ? LOOP_THREAD_ID : threadId;
    // The live program goes on: the host's `paused` says where it stops next.
    if (resumes) {
      this.core.resumed();
      this.core.moveTo(onContinued(previous));
    }
    this.core.sendResponse(response);
    action(host).catch((e: unknown) => {
      this.core.output(`Coroscope: ${response.command} failed: ${message(e)}`, 'stderr');
      if (resumes && previousStop !== null && host.isAlive() && this.core.showsRun()) {
        // Nothing moved (refused): the position before, its stop shown again.
        this.core.moveTo(previous);
        this.core.sendEvent(stoppedEventOf(previousStop));
      }
    });
  }

  /**
   * The task "Follow This Task" follows (coroscope/followTask): Continue, Reverse Continue and Step Over
   * move it alone, as with `singleThread` (null: none).
   */
  followedTask: number | null = null;

  /** The task a move with these arguments is limited to (singleThread, or the task followed), or null. */
  oneTaskOf(args: { threadId: number; singleThread?: boolean }): number | null {
    if (args.singleThread === true && args.threadId < LOOP_THREAD_ID) return args.threadId;
    return this.followedTask;
  }

  /**
   * One task, both directions: on (or back) until that task's next (previous) line, at a line stop, or its
   * next (previous) suspension between ticks, whatever other tasks run meanwhile (their breakpoints
   * included). Forward: Step Over at a line (the task's next line, across its suspensions), else Step Into
   * (its next step: the live host's stepTask, the recording's next suspension); back: Step Back.
   */
  oneTask(response: DebugProtocol.Response, taskId: number, direction: 'forward' | 'back'): void {
    if (direction === 'back') {
      this.stepBackRequest(response, { threadId: taskId });
      return;
    }
    const pos = this.core.position;
    const onLine = pos.kind !== 'running' && pos.kind !== 'moving' && shownLineOf(pos);
    if (onLine) this.nextRequest(response, { threadId: taskId });
    else this.stepInRequest(response, { threadId: taskId });
  }

  continueRequest(response: DebugProtocol.ContinueResponse, args?: DebugProtocol.ContinueArguments): void {
    const task = args === undefined ? this.followedTask : this.oneTaskOf(args);
    if (task !== null) {
      response.body = { allThreadsContinued: false };
      this.oneTask(response, task, 'forward');
      return;
    }
    response.body = { allThreadsContinued: true };
    const pos = this.core.position;
    switch (pos.kind) {
      case 'moving':
        this.refuseDuringMove(response, pos);
        return;
      case 'end':
      case 'recording':
        if (!canStepForward(pos)) {
          // Nothing comes after a finished run's end: Continue ends the session.
          this.core.sendResponse(response);
          this.core.endSession(this.core.endedOk ?? true);
          return;
        }
        this.continueInPast(response);
        return;
      case 'pastTick':
      case 'pastHit':
        this.continueInPast(response);
        return;
      case 'pastLine':
        // Through the past up to the live line stop held (not known: the live run goes on).
        if (pos.live !== null) this.continueInPast(response);
        else this.execute(response, null, (h) => h.endpoint.request('continue', {}), true);
        return;
      case 'running':
      case 'paused':
      case 'liveLine':
        this.execute(response, null, (h) => h.endpoint.request('continue', {}), true);
        return;
    }
  }

  /**
   * Continue from the past: to the earliest after the moment shown of the stops this session
   * saw, the exceptions recorded and the hits of the line breakpoints set now (replayed: a line
   * stop in the past), else back to the present.
   */
  private continueInPast(response: DebugProtocol.ContinueResponse): void {
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
    const moment = this.startMove({ waits: 'liveStop', live });
    void this.answerOnceMoved(response, async () => {
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
  private travelTo(
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
      const moment = this.startMove(
        said === undefined ? { waits: 'seek', reason, threadId } : { waits: 'seek', reason, threadId, said },
      );
      // Answered once replayed: this session shows the tick's stacks with positions and locals, so it waits
      // for them as it always did.
      await this.answerOnceMoved(response, async () => {
        await host.endpoint.request('seekTick', { tick, replayed: true, moment });
      });
    });
  }

  stepBackRequest(response: DebugProtocol.Response, args: DebugProtocol.StepBackArguments): void {
    const threadId = args.threadId;
    const pos = this.core.position;
    switch (pos.kind) {
      case 'moving':
        this.refuseDuringMove(response, pos);
        return;
      case 'pastHit':
      case 'recording':
        // From a hit's line (a recording's too): the line before it (a hit without a line goes back as a tick).
        if (pos.stop?.line !== undefined) {
          this.stepAtHit(response, threadId, 'back');
          return;
        }
        break;
      case 'liveLine':
      case 'pastLine':
        if (pos.stop?.line !== undefined) {
          this.stepBackAtLine(response, threadId);
          return;
        }
        break;
      case 'running':
      case 'paused':
      case 'pastTick':
      case 'end':
        break;
    }
    this.travelTo(response, threadId, 'step', async (now) => {
      if (threadId >= LOOP_THREAD_ID) {
        if (now <= 1) throw new Error('Step Back: the recording starts at tick 1');
        return now - 1;
      }
      const lane = await this.past.laneOf(threadId, 'Step Back');
      const tick = previousSuspension(lane, now);
      if (tick === null)
        throw new Error(
          `Step Back: ${lane.name} (#${threadId}) is at its start (created at tick ${lane.createdTick}): it has no earlier suspension in the recording`,
        );
      return tick;
    });
  }

  /**
   * At a stop on a line (a live one, or a past line shown): the line the task ran before,
   * replayed by the host's line replay (lineStepBack; its `paused` shows it); before the task's
   * first line of this step, the last line it ran of these frames' functions in an earlier step
   * (the host's walk into the step before, as from a hit: its `paused` too), and only when
   * there is none, its previous suspension (a seek, as from a tick). The run must be recorded:
   * asked first (its timeline), so a refusal is this request's error.
   */
  private stepBackAtLine(response: DebugProtocol.Response, threadId: number): void {
    this.core.serve(response, async () => {
      const stop = this.core.currentStop!;
      const host = this.core.requireHost();
      const taskId = stop.taskId ?? threadId;
      // The task's lane: for its previous suspension, at its first line of this step (a task whose first step
      // this is has none yet: its lines replay all the same).
      let lane: TimelineLane | null;
      try {
        lane = await this.past.laneOf(taskId, 'Step Back');
      } catch (e) {
        if (/not recorded/.test(message(e)))
          throw new Error(`Step Back needs a recorded run: launch with record (${message(e)})`);
        if (!/is not in the recording/.test(message(e))) throw e;
        lane = null;
      }
      // From the live stop itself, it is kept while its past lines are shown (debug-position.ts onPaused:
      // pastLine's `live`; Continue comes back to it).
      this.core.requestedThread = threadId;
      const moment = this.startMove({ waits: 'pastLine' });
      await this.answerOnceMoved(response, async () => {
        const landing = await host.endpoint.request('lineStepBack', { moment });
        if (landing.landed !== 'suspension') return;
        const tick = lane === null ? null : previousSuspension(lane, stop.tick);
        // The first line of the task's first step: nothing of it ran before (as Step Back between suspensions
        // says at its first).
        if (tick === null && lane !== null)
          throw new Error(
            `Step Back: ${lane.name} (#${taskId}) is at its start (created at tick ${lane.createdTick}): ${landing.why ?? 'nothing of it ran before'}`,
          );
        if (tick === null) throw new Error(`Step Back: task #${taskId} has no earlier suspension in the recording`);
        if (landing.why !== undefined)
          this.core.output(
            `Coroscope: before ${this.core.nameOf(taskId) ?? `task #${taskId}`}'s first line of its step at tick ${stop.tick}: its previous suspension, at tick ${tick} (${landing.why})`,
          );
        const seek = this.retargetMove({ waits: 'seek', reason: 'step', threadId });
        await host.endpoint.request('seekTick', { tick, replayed: true, moment: seek });
      });
    });
  }

  /**
   * To the latest before the moment shown of: the stops this session saw and the exceptions
   * recorded (a tick), and the hits of the line breakpoints set now, found by replaying the
   * recording with them armed (the host's pastBreakpointHit: a line stop in the past, shown
   * with its frames and locals). Refused, naming the breakpoints, when there is none.
   */
  reverseContinueRequest(
    response: DebugProtocol.ReverseContinueResponse,
    args: DebugProtocol.ReverseContinueArguments,
  ): void {
    const pos = this.core.position;
    switch (pos.kind) {
      case 'moving':
        this.refuseDuringMove(response, pos);
        return;
      case 'running':
      case 'paused':
      case 'liveLine':
      case 'pastTick':
      case 'pastLine':
      case 'pastHit':
      case 'end':
      case 'recording':
        // Back from the moment shown (the live run's is its last recorded tick while it runs).
        this.reverseContinueFrom(response, args);
        return;
    }
  }

  /** Reverse Continue from the moment shown: a search of the recorded past (answered once moved). */
  private reverseContinueFrom(
    response: DebugProtocol.ReverseContinueResponse,
    args: DebugProtocol.ReverseContinueArguments,
  ): void {
    const task = this.oneTaskOf(args);
    if (task !== null) {
      this.oneTask(response, task, 'back');
      return;
    }
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

  /**
   * At a breakpoint hit shown in the past (or a line reached from it): steps by line through
   * its task's replayed lines (the host's lineStep / lineStepBack there, pastHitLine): back to
   * the line before, over / into / out forward past the hit, across the task's suspensions
   * (its next line once resumed). The line is shown by its `paused`; before the task's first
   * line of the step, its previous suspension (a seek); with no later line in the recording,
   * the present.
   */
  private stepAtHit(response: DebugProtocol.Response, threadId: number, move: 'back' | 'over' | 'into' | 'out'): void {
    this.core.serve(response, async () => {
      const stop = this.core.currentStop!;
      const host = this.core.requireHost();
      const taskId = stop.taskId ?? threadId;
      const lane =
        move === 'back' && taskId < LOOP_THREAD_ID
          ? await this.past.laneOf(taskId, 'Step Back').catch(() => null)
          : null;
      this.core.requestedThread = stop.threadId;
      const moment = this.startMove({ waits: 'hitLine' });
      await this.answerOnceMoved(response, async () => {
        const landing =
          move === 'back'
            ? await host.endpoint.request('lineStepBack', { moment })
            : (await host.endpoint.request('lineStep', { kind: move, moment })).landing;
        if (landing === undefined || landing.landed === 'line') return;
        let tick: number | null = null;
        if (landing.landed === 'suspension') {
          tick = lane === null ? null : previousSuspension(lane, stop.tick);
          if (tick === null)
            throw new Error(
              `${this.core.nameOf(taskId) ?? `task #${taskId}`} has no earlier suspension in the recording${landing.why !== undefined ? ` (${landing.why})` : ''}`,
            );
          this.core.output(
            `Coroscope: before ${this.core.nameOf(taskId) ?? `task #${taskId}`}'s first line of its step at tick ${stop.tick}: its previous suspension, at tick ${tick}${landing.why !== undefined ? ` (${landing.why})` : ''}`,
          );
        } else {
          this.core.output('Coroscope: the recording has no later line of this task: back to the present');
        }
        // Off the lines: a past tick, or the present.
        const seek = this.retargetMove({ waits: 'seek', reason: 'step', threadId: stop.threadId });
        await host.endpoint.request('seekTick', { tick, replayed: true, moment: seek });
      });
    });
  }

  /**
   * A move made of line moves (a value's change looked for line by line, session-changes.ts): `walk` moves
   * through `step`, each landed before the next, and the views show only where it ends (the stops on the
   * way are dropped). Answered once it has ended; a refusal it throws is the request's error, the line it
   * had reached shown.
   */
  walkLines(response: DebugProtocol.Response, threadId: number, walk: (step: LineWalkStep) => Promise<void>): void {
    const pos = this.core.position;
    if (pos.kind === 'moving') {
      this.refuseDuringMove(response, pos);
      return;
    }
    this.core.serve(response, async () => {
      this.core.requireHost();
      this.core.requestedThread = threadId;
      await this.answerOnceMoved(response, () => walk((kind) => this.lineWalkStep(kind)));
    });
  }

  /** One line move of a walk (walkLines): where it landed, once the position has settled there. */
  private async lineWalkStep(kind: 'back' | 'over' | 'into'): Promise<'line' | 'present' | 'suspension' | 'off'> {
    // The stops of the steps before are not shown: only the walk's end is.
    if (this.core.heldEvents !== null)
      this.core.heldEvents = this.core.heldEvents.filter(
        (e) => e.event !== 'stopped' && e.event !== 'continued' && !SAYS_PAST_LINE.test(outputOf(e)),
      );
    const host = this.core.requireHost();
    const pos = this.core.position;
    const onLine =
      pos.kind === 'liveLine' || pos.kind === 'pastLine' || pos.kind === 'pastHit' || pos.kind === 'recording';
    if (!onLine || pos.stop?.line === undefined) return 'off';
    if (pos.kind === 'liveLine' && kind !== 'back') {
      // The live run goes on by one line of the task: its `paused` says where.
      const epoch = this.core.epoch;
      this.core.resumed();
      this.core.moveTo(onContinued(pos));
      await host.endpoint.request('lineStep', { kind });
      await this.settle(() => this.core.position.kind !== 'running' && this.core.epoch > epoch + 1);
      return this.core.position.kind === 'liveLine' && this.core.currentStop?.line !== undefined ? 'line' : 'off';
    }
    const moment = this.startMove({
      waits: pos.kind === 'liveLine' || pos.kind === 'pastLine' ? 'pastLine' : 'hitLine',
    });
    const landing =
      kind === 'back'
        ? await host.endpoint.request('lineStepBack', { moment })
        : (await host.endpoint.request('lineStep', { kind, moment })).landing;
    if (landing !== undefined && landing.landed !== 'line') {
      // Off the task's lines (before its first, or past its last): where it was.
      if (landing.landed === 'present') await this.settle(() => this.core.position.kind !== 'moving', 2_000);
      if (this.core.position.kind === 'moving') this.core.moveTo(refused(this.core.position));
      return landing.landed;
    }
    // The start of the task: the walk stops on its first line again (said in the landing's note), nothing before.
    const atStart = landing?.landed === 'line' && landing.note !== undefined && /start of the task/.test(landing.note);
    try {
      await this.settle(() => this.core.position.kind !== 'moving', atStart ? 2_000 : LINE_LANDING_MS);
    } catch (e) {
      if (!atStart) throw e;
    }
    if (this.core.position.kind === 'moving') this.core.moveTo(refused(this.core.position));
    if (atStart) return 'suspension';
    return this.core.currentStop?.line !== undefined ? 'line' : 'off';
  }

  /** Waits (at most `ms`) until `done` holds: a landing's event follows its request's answer. */
  private async settle(done: () => boolean, ms = MOVE_LANDING_MS): Promise<void> {
    const until = Date.now() + ms;
    while (!done()) {
      if (Date.now() > until) throw new Error('the host answered a line move but never showed where it landed');
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** Refuses a forward step at a finished run's end (nothing comes after it); true when refused. */
  private refusedAtEnd(response: DebugProtocol.Response, what: string): boolean {
    if (canStepForward(this.core.position)) return false;
    this.core.fail(
      response,
      ERR_NOT_RUNNING,
      `${what}: the run finished at tick ${this.core.recordedTicks}, nothing comes after it: Step Back or Reverse Continue go into its past, Continue ends the session`,
      true,
    );
    return true;
  }

  pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): void {
    const pos = this.core.position;
    const pause = (): void => this.execute(response, args.threadId, (h) => h.endpoint.request('pause', {}), false);
    switch (pos.kind) {
      case 'moving':
        // A live line step runs the program on: Pause holds it (its `paused` lands the step); any other move
        // is answered by the host's landing alone.
        if (pos.move.waits === 'liveLine') pause();
        else this.refuseDuringMove(response, pos);
        return;
      case 'end':
      case 'recording':
        if (!this.refusedAtEnd(response, 'Pause')) pause();
        return;
      case 'running':
      case 'paused':
      case 'liveLine':
      case 'pastTick':
      case 'pastLine':
      case 'pastHit':
        // The live program is held (or is already: the host answers its tick).
        pause();
        return;
    }
  }

  /**
   * A forward step (next / stepIn / stepOut) by where the debugger stands: refused at the end,
   * by line from a hit's line, by tick or suspension from a past tick (`fromPast`), by line at
   * a stop on a line (live, or through its past lines), else by the live run (`live`).
   */
  private stepForward(
    response: DebugProtocol.Response,
    threadId: number,
    kind: 'over' | 'into' | 'out',
    what: string,
    fromPast: () => void,
    live: () => void,
  ): void {
    const pos = this.core.position;
    switch (pos.kind) {
      case 'moving':
        this.refuseDuringMove(response, pos);
        return;
      case 'end':
      case 'recording':
        // A hit's line in a recording (or a finished run attached to): by line, as from any hit.
        if (pos.kind === 'recording' && pos.stop?.line !== undefined) {
          this.stepAtHit(response, threadId, kind);
          return;
        }
        if (this.refusedAtEnd(response, what)) return;
        fromPast();
        return;
      case 'pastHit':
        if (pos.stop?.line !== undefined) this.stepAtHit(response, threadId, kind);
        else fromPast();
        return;
      case 'pastTick':
        fromPast();
        return;
      case 'pastLine':
        if (pos.stop?.line !== undefined) this.stepPastLine(response, threadId, kind);
        else live();
        return;
      case 'liveLine':
        this.stepLiveLine(response, threadId, kind);
        return;
      case 'running':
      case 'paused':
        live();
        return;
    }
  }

  /**
   * A line step of the live program held on a line: a move (the position `moving` until the live stop it
   * comes to), answered once the host has taken it (before its `paused`, held meanwhile).
   */
  private stepLiveLine(response: DebugProtocol.Response, threadId: number, kind: 'over' | 'into' | 'out'): void {
    this.core.serve(response, async () => {
      const host = this.core.requireHost();
      this.core.requestedThread = threadId === CALLBACK_THREAD_ID ? LOOP_THREAD_ID : threadId;
      const moment = this.startMove({ waits: 'liveLine' });
      await this.answerOnceMoved(response, async () => {
        await host.endpoint.request('lineStep', { kind, moment });
      });
    });
  }

  /**
   * Through the past lines of the live line stop (the replay host's lineStep, answered once landed): a move
   * in time.
   */
  private stepPastLine(response: DebugProtocol.Response, threadId: number, kind: 'over' | 'into' | 'out'): void {
    this.core.serve(response, async () => {
      const host = this.core.requireHost();
      this.core.requestedThread = threadId;
      const moment = this.startMove({ waits: 'pastLine' });
      await this.answerOnceMoved(response, async () => {
        await host.endpoint.request('lineStep', { kind, moment });
      });
    });
  }

  nextRequest(response: DebugProtocol.Response, args: DebugProtocol.NextArguments): void {
    const task = this.oneTaskOf(args);
    const pos = this.core.position;
    // Limited to one task between ticks: its next step, not the loop's next tick.
    if (task !== null && pos.kind !== 'moving' && pos.kind !== 'running' && !shownLineOf(pos)) {
      this.stepInRequest(response, { threadId: task });
      return;
    }
    this.stepForward(
      response,
      args.threadId,
      'over',
      'Step Over',
      () =>
        this.travelTo(response, args.threadId, 'step', async (now) =>
          this.past.towardPresent(this.past.forwardFrom(now) + 1),
        ),
      () => this.execute(response, args.threadId, (h) => h.endpoint.request('stepTick', {}), true),
    );
  }

  stepInRequest(response: DebugProtocol.Response, args: DebugProtocol.StepInArguments): void {
    const taskId = args.threadId;
    this.stepForward(
      response,
      taskId,
      'into',
      'Step Into',
      () =>
        this.travelTo(response, taskId, 'step', async (now) =>
          taskId >= LOOP_THREAD_ID
            ? this.past.towardPresent(this.past.forwardFrom(now) + 1)
            : this.past.towardPresent(
                nextSuspension(await this.past.laneOf(taskId, 'Step Into'), this.past.forwardFrom(now)),
              ),
        ),
      () =>
        this.execute(
          response,
          taskId,
          (h) =>
            taskId >= LOOP_THREAD_ID ? h.endpoint.request('stepTick', {}) : h.endpoint.request('stepTask', { taskId }),
          true,
        ),
    );
  }

  stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    const taskId = args.threadId;
    this.stepForward(
      response,
      taskId,
      'out',
      'Step Out',
      // From a past tick: to the suspension where the current frame has returned (or the task's end), by the
      // recorded frame chains.
      () =>
        this.travelTo(response, taskId, 'step', async (now) => {
          if (taskId >= LOOP_THREAD_ID) return this.past.towardPresent(this.past.forwardFrom(now) + 1);
          const lane = await this.past.laneOf(taskId, 'Step Out');
          if (!laneHasFrames(lane))
            throw new Error(
              `Step Out: the recording of ${lane.name} (#${taskId}) holds no frames (recorded without coroutine tracking, "inspect": false): Step Into goes to its next suspension`,
            );
          return this.past.towardPresent(frameReturn(lane, this.past.forwardFrom(now)));
        }),
      () => {
        // The current frame is the innermost of the chain (depth = chain length - 1).
        const depth = Math.max(0, (this.core.tasks.tasks.get(taskId)?.frames.length ?? 1) - 1);
        this.execute(
          response,
          taskId,
          (h) =>
            taskId >= LOOP_THREAD_ID
              ? h.endpoint.request('stepTick', {})
              : h.endpoint.request('stepOut', { taskId, depth }),
          true,
        );
      },
    );
  }
}
