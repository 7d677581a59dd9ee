// SessionMoves: the DAP move requests (continue, next, stepIn, stepOut, stepBack,
// reverseContinue, pause), each answered by a `switch` on where the debugger stands
// (debug-position.ts): by the live run, by line (line-moves.ts), or through the recorded past
// (past-travel.ts); how a move is answered is move-answers.ts.
//
// Invariants: one `switch` per request over every position kind (no flags beside the position);
// a move asked while another is under way (`moving`) is refused, except Pause during a live line
// step; a forward step at a finished run's end is refused (Continue there ends the session).
// "Follow This Task" and `singleThread` limit Continue, Reverse Continue and Step Over to one task.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { frameReturn, laneHasFrames, nextSuspension, previousSuspension } from './time-travel';
import { canStepForward, type DebugPosition } from './debug-position';
import { LOOP_THREAD_ID } from './dap-mapping';
import { ERR_NOT_RUNNING, type SessionCore } from './session-core';
import type { PastSearch } from './past-search';
import type { MoveAnswers } from './move-answers';
import type { PastTravel } from './past-travel';
import type { LineMoves } from './line-moves';

/** Whether the position shows a stop on a line (live, a past line, a hit's). */
function shownLineOf(pos: Exclude<DebugPosition, { kind: 'running' | 'moving' }>): boolean {
  return pos.kind !== 'paused' && pos.stop !== null && pos.stop.line !== undefined;
}

export class SessionMoves {
  constructor(
    private readonly core: SessionCore,
    private readonly past: PastSearch,
    private readonly answers: MoveAnswers,
    private readonly pastTravel: PastTravel,
    private readonly lineMoves: LineMoves,
  ) {}

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
    if (onLine) this.nextRequest(response, { threadId: taskId, singleThread: true });
    else this.stepInRequest(response, { threadId: taskId, singleThread: true });
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
        this.answers.refuseDuringMove(response, pos);
        return;
      case 'end':
      case 'recording':
        if (!canStepForward(pos)) {
          // Nothing comes after a finished run's end: Continue ends the session.
          this.core.sendResponse(response);
          this.core.endSession(this.core.endedOk ?? true);
          return;
        }
        this.pastTravel.continueInPast(response);
        return;
      case 'pastTick':
      case 'pastHit':
        this.pastTravel.continueInPast(response);
        return;
      case 'pastLine':
        // Through the past up to the live line stop held (not known: the live run goes on).
        if (pos.live !== null) this.pastTravel.continueInPast(response);
        else this.answers.execute(response, null, (h) => h.endpoint.request('continue', {}), true);
        return;
      case 'running':
      case 'paused':
      case 'liveLine':
        this.answers.execute(response, null, (h) => h.endpoint.request('continue', {}), true);
        return;
    }
  }

  stepBackRequest(response: DebugProtocol.Response, args: DebugProtocol.StepBackArguments): void {
    const threadId = args.threadId;
    const pos = this.core.position;
    switch (pos.kind) {
      case 'moving':
        this.answers.refuseDuringMove(response, pos);
        return;
      case 'pastHit':
      case 'recording':
        // From a hit's line (a recording's too): the line before it (a hit without a line goes back as a tick).
        if (pos.stop?.line !== undefined) {
          this.lineMoves.stepAtHit(response, threadId, 'back');
          return;
        }
        break;
      case 'liveLine':
      case 'pastLine':
        if (pos.stop?.line !== undefined) {
          this.lineMoves.stepBackAtLine(response, threadId);
          return;
        }
        break;
      case 'running':
      case 'paused':
      case 'pastTick':
      case 'end':
        break;
    }
    this.pastTravel.travelTo(response, threadId, 'step', async (now) => {
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

  /** Reverse Continue: a search of the recorded past from the moment shown (past-travel.ts reverseContinue). */
  reverseContinueRequest(
    response: DebugProtocol.ReverseContinueResponse,
    args: DebugProtocol.ReverseContinueArguments,
  ): void {
    const pos = this.core.position;
    switch (pos.kind) {
      case 'moving':
        this.answers.refuseDuringMove(response, pos);
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
    this.pastTravel.reverseContinue(response, args);
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
    const pause = (): void =>
      this.answers.execute(response, args.threadId, (h) => h.endpoint.request('pause', {}), false);
    switch (pos.kind) {
      case 'moving':
        // A live line step runs the program on: Pause holds it (its `paused` lands the step); any other move
        // is answered by the host's landing alone.
        if (pos.move.waits === 'liveLine') pause();
        else this.answers.refuseDuringMove(response, pos);
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
    oneTask = false,
  ): void {
    const pos = this.core.position;
    switch (pos.kind) {
      case 'moving':
        this.answers.refuseDuringMove(response, pos);
        return;
      case 'end':
      case 'recording':
        // A hit's line in a recording (or a finished run attached to): by line, as from any hit.
        if (pos.kind === 'recording' && pos.stop?.line !== undefined) {
          this.lineMoves.stepAtHit(response, threadId, kind, oneTask);
          return;
        }
        if (this.refusedAtEnd(response, what)) return;
        fromPast();
        return;
      case 'pastHit':
        if (pos.stop?.line !== undefined) this.lineMoves.stepAtHit(response, threadId, kind, oneTask);
        else fromPast();
        return;
      case 'pastTick':
        fromPast();
        return;
      case 'pastLine':
        if (pos.stop?.line !== undefined) this.lineMoves.stepPastLine(response, threadId, kind, oneTask);
        else live();
        return;
      case 'liveLine':
        this.lineMoves.stepLiveLine(response, threadId, kind, oneTask);
        return;
      case 'running':
      case 'paused':
        live();
        return;
    }
  }

  nextRequest(response: DebugProtocol.Response, args: DebugProtocol.NextArguments): void {
    const task = this.oneTaskOf(args);
    const pos = this.core.position;
    // Limited to one task between ticks: its next step, not the loop's next tick.
    if (task !== null && pos.kind !== 'moving' && pos.kind !== 'running' && !shownLineOf(pos)) {
      this.stepInRequest(response, { threadId: task, singleThread: true });
      return;
    }
    this.stepForward(
      response,
      args.threadId,
      'over',
      'Step Over',
      () =>
        this.pastTravel.travelTo(response, args.threadId, 'step', async (now) =>
          this.past.towardPresent(this.past.forwardFrom(now) + 1),
        ),
      () => this.answers.execute(response, args.threadId, (h) => h.endpoint.request('stepTick', {}), true),
      task !== null,
    );
  }

  stepInRequest(response: DebugProtocol.Response, args: DebugProtocol.StepInArguments): void {
    const taskId = args.threadId;
    const oneTask = this.oneTaskOf(args) !== null;
    this.stepForward(
      response,
      taskId,
      'into',
      'Step Into',
      () =>
        this.pastTravel.travelTo(response, taskId, 'step', async (now) =>
          taskId >= LOOP_THREAD_ID
            ? this.past.towardPresent(this.past.forwardFrom(now) + 1)
            : this.past.towardPresent(
                nextSuspension(await this.past.laneOf(taskId, 'Step Into'), this.past.forwardFrom(now)),
              ),
        ),
      () =>
        this.answers.execute(
          response,
          taskId,
          (h) =>
            taskId >= LOOP_THREAD_ID
              ? h.endpoint.request('stepTick', {})
              : h.endpoint.request('stepTask', { taskId, ...(oneTask ? { oneTask } : {}) }),
          true,
        ),
      oneTask,
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
        this.pastTravel.travelTo(response, taskId, 'step', async (now) => {
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
        this.answers.execute(
          response,
          taskId,
          (h) =>
            taskId >= LOOP_THREAD_ID
              ? h.endpoint.request('stepTick', {})
              : h.endpoint.request('stepOut', { taskId, depth }),
          true,
        );
      },
      this.oneTaskOf(args) !== null,
    );
  }
}
