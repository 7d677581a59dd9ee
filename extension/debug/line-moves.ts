// LineMoves: the moves by line: a step of the live program held on a line (the worker's lineStep),
// steps through the past lines of that stop (the line replay), Step Back at a line, and steps by
// line from a breakpoint hit shown in the past (pastHitLine). The line landed on is shown by the
// host's `paused` of the move's moment (position-events.ts).
//
// Invariants: each is a move in time answered once moved (move-answers.ts); off the task's lines
// (before its first line, after its last) the move goes on as a seek (seekInstead) to the task's
// previous suspension or the present, said in the console; a run not recorded is refused.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { basename } from 'node:path';
import type { PastLineLanding, TimelineLane } from '../../protocol/host-protocol';
import { previousSuspension } from './time-travel';
import { CALLBACK_THREAD_ID, LOOP_THREAD_ID } from './dap-mapping';
import type { SessionCore } from './session-core';
import type { PastSearch } from './past-search';
import type { MoveAnswers } from './move-answers';
import { message } from './stop-events';

export class LineMoves {
  constructor(
    private readonly core: SessionCore,
    private readonly past: PastSearch,
    private readonly answers: MoveAnswers,
  ) {}

  /**
   * A line step of the live program held on a line: a move (the position `moving` until the live stop it
   * comes to), answered once the host has taken it (before its `paused`, held meanwhile).
   */
  stepLiveLine(
    response: DebugProtocol.Response,
    threadId: number,
    kind: 'over' | 'into' | 'out',
    oneTask = false,
  ): void {
    this.core.serve(response, async () => {
      const host = this.core.requireHost();
      const task = this.limitedTo(oneTask, threadId);
      this.core.requestedThread = threadId === CALLBACK_THREAD_ID ? LOOP_THREAD_ID : threadId;
      const moment = this.answers.startMove({ waits: 'liveLine' });
      await this.answers.answerOnceMoved(response, async () => {
        await host.endpoint.request('lineStep', { kind, moment, ...task });
      });
    });
  }

  /**
   * Through the past lines of the live line stop (the replay host's lineStep, answered once landed): a move
   * in time.
   */
  stepPastLine(
    response: DebugProtocol.Response,
    threadId: number,
    kind: 'over' | 'into' | 'out',
    oneTask = false,
  ): void {
    this.core.serve(response, async () => {
      const host = this.core.requireHost();
      const task = this.limitedTo(oneTask, threadId);
      this.core.requestedThread = threadId;
      const moment = this.answers.startMove({ waits: 'pastLine' });
      await this.answers.answerOnceMoved(response, async () => {
        const { landing } = await host.endpoint.request('lineStep', { kind, moment, ...task });
        if (landing?.landed === 'tick') await this.toLoopHit(landing);
      });
    });
  }

  /**
   * A line move limited to one task (DAP `singleThread`, "Follow This Task"): the task of the line stopped on,
   * whose step it is (as `lineStep` names it); {} when not limited.
   */
  private limitedTo(oneTask: boolean, threadId: number): { task?: number } {
    if (!oneTask) return {};
    const task = this.core.currentStop?.taskId ?? threadId;
    return task < LOOP_THREAD_ID ? { task } : {};
  }

  /**
   * A forward step stopped at a loop breakpoint's hit on its way: the live run stopped after that tick, on the
   * hit task's thread, so the views go there (a seek), in the live stop's words.
   */
  private async toLoopHit(landing: Extract<PastLineLanding, { landed: 'tick' }>): Promise<void> {
    await this.answers.seekInstead(
      { reason: 'breakpoint', threadId: landing.taskId, said: landing.description },
      landing.tick,
    );
  }

  /**
   * At a stop on a line (a live one, or a past line shown): the line the task ran before,
   * replayed by the host's line replay (lineStepBack; its `paused` shows it); before the task's
   * first line of this step, the last line it ran of these frames' functions in an earlier step
   * (the host's walk into the step before, as from a hit: its `paused` too), and only when
   * there is none, its previous suspension (a seek, as from a tick). The run must be recorded:
   * asked first (its timeline), so a refusal is this request's error.
   */
  stepBackAtLine(response: DebugProtocol.Response, threadId: number): void {
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
      const moment = this.answers.startMove({ waits: 'pastLine' });
      await this.answers.answerOnceMoved(response, async () => {
        const landing = await host.endpoint.request('lineStepBack', { moment });
        if (landing.landed === 'line' && landing.atStart === true)
          throw atStartRefusal(landing.task ?? (await this.core.labelOf(taskId)), landing);
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
        await this.answers.seekInstead({ reason: 'step', threadId }, tick);
      });
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
  stepAtHit(
    response: DebugProtocol.Response,
    threadId: number,
    move: 'back' | 'over' | 'into' | 'out',
    oneTask = false,
  ): void {
    this.core.serve(response, async () => {
      const stop = this.core.currentStop!;
      const host = this.core.requireHost();
      const taskId = stop.taskId ?? threadId;
      const task = this.limitedTo(oneTask, threadId);
      const lane =
        move === 'back' && taskId < LOOP_THREAD_ID
          ? await this.past.laneOf(taskId, 'Step Back').catch(() => null)
          : null;
      this.core.requestedThread = stop.threadId;
      const moment = this.answers.startMove({ waits: 'hitLine' });
      await this.answers.answerOnceMoved(response, async () => {
        const landing =
          move === 'back'
            ? await host.endpoint.request('lineStepBack', { moment })
            : (await host.endpoint.request('lineStep', { kind: move, moment, ...task })).landing;
        if (landing?.landed === 'line' && landing.atStart === true)
          throw atStartRefusal(landing.task ?? (await this.core.labelOf(taskId)), landing);
        if (landing === undefined || landing.landed === 'line') return;
        if (landing.landed === 'tick') return this.toLoopHit(landing);
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
        await this.answers.seekInstead({ reason: 'step', threadId: stop.threadId }, tick);
      });
    });
  }
}

/**
 * Step Back from the very first line of a task's first step: nothing of it ran before, so the move is
 * refused saying so (the host's walk is on that line again; the stop shown stays).
 */
function atStartRefusal(task: string, landing: Extract<PastLineLanding, { landed: 'line' }>): Error {
  const where = landing.line === null ? '' : ` (${basename(landing.line.file)}:${landing.line.line})`;
  return new Error(
    `Step Back: ${task} is at its first line${where}: nothing of it ran before. Reverse Continue goes to earlier breakpoint hits`,
  );
}
