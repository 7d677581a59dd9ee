// LineWalks: a move made of line moves (a value's change looked for line by line,
// session-changes.ts): the walk moves one line at a time (LineWalkStep), each landed before the
// next, and the views show only where it ends.
//
// Invariants: the stops on the way are dropped from the held events (only the walk's end is
// shown); the walk is answered once it has ended (move-answers.ts), a refusal it throws is the
// request's error with the line it had reached shown; a line move's landing is waited for at most
// LINE_LANDING_MS, and a move refused on the way leaves the position it left.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { onContinued, refused } from './debug-position';
import { MOVE_LANDING_MS, type SessionCore } from './session-core';
import type { MoveAnswers } from './move-answers';

/**
 * One line move of a walk (LineWalks.walkLines): 'line' once landed on a line, else where it could not go;
 * `lines` back in one replay (the host's lineStepBack `lines`: within the step of the line shown).
 */
export type LineWalkStep = (
  kind: 'back' | 'over' | 'into',
  lines?: number,
) => Promise<'line' | 'present' | 'suspension' | 'off'>;

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

export class LineWalks {
  constructor(
    private readonly core: SessionCore,
    private readonly answers: MoveAnswers,
  ) {}

  /**
   * A move made of line moves (a value's change looked for line by line, session-changes.ts): `walk` moves
   * through `step`, each landed before the next, and the views show only where it ends (the stops on the
   * way are dropped). Answered once it has ended; a refusal it throws is the request's error, the line it
   * had reached shown.
   */
  walkLines(response: DebugProtocol.Response, threadId: number, walk: (step: LineWalkStep) => Promise<void>): void {
    const pos = this.core.position;
    if (pos.kind === 'moving') {
      this.answers.refuseDuringMove(response, pos);
      return;
    }
    this.core.serve(response, async () => {
      this.core.requireHost();
      this.core.requestedThread = threadId;
      await this.answers.answerOnceMoved(response, () => walk((kind, lines) => this.lineWalkStep(kind, lines)));
    });
  }

  /** One line move of a walk (walkLines): where it landed, once the position has settled there. */
  private async lineWalkStep(
    kind: 'back' | 'over' | 'into',
    lines = 1,
  ): Promise<'line' | 'present' | 'suspension' | 'off'> {
    this.dropStepsShown();
    const host = this.core.requireHost();
    const pos = this.core.position;
    const onLine =
      pos.kind === 'liveLine' || pos.kind === 'pastLine' || pos.kind === 'pastHit' || pos.kind === 'recording';
    if (!onLine || pos.stop?.line === undefined) return 'off';
    // The walk follows its task: another task's breakpoint hit on the way does not stop its steps.
    const task = pos.stop.taskId === undefined ? {} : { task: pos.stop.taskId };
    if (pos.kind === 'liveLine' && kind !== 'back') {
      // The live run goes on by one line of the task: its `paused` says where.
      const epoch = this.core.epoch;
      this.core.resumed();
      this.core.moveTo(onContinued(pos));
      await host.endpoint.request('lineStep', { kind, ...task });
      await this.settle(() => this.core.position.kind !== 'running' && this.core.epoch > epoch + 1);
      return this.core.position.kind === 'liveLine' && this.core.currentStop?.line !== undefined ? 'line' : 'off';
    }
    const waits = pos.kind === 'liveLine' || pos.kind === 'pastLine' ? 'pastLine' : 'hitLine';
    const moment = this.answers.startMove({ waits });
    const landing =
      kind === 'back'
        ? await host.endpoint.request('lineStepBack', lines > 1 ? { moment, lines } : { moment })
        : (await host.endpoint.request('lineStep', { kind, moment, ...task })).landing;
    if (landing !== undefined && landing.landed !== 'line') {
      // Off the task's lines (before its first, or past its last): where it was.
      if (landing.landed === 'present') {
        // Past the task's last recorded line from a hit's: the present is sought, as a step from there does
        // (line-moves.ts); from a live stop's past line, the host shows that stop again itself.
        if (waits === 'hitLine') await this.answers.seekInstead({ reason: 'step', threadId: pos.stop.threadId }, null);
        await this.settle(() => this.core.position.kind !== 'moving', 2_000);
      }
      if (this.core.position.kind === 'moving') this.core.moveTo(refused(this.core.position));
      // A loop breakpoint's hit on the way (the live run stops after its tick): off the lines.
      return landing.landed === 'tick' ? 'off' : landing.landed;
    }
    // The start of the task: the walk stops on its first line again (said in the landing's note), nothing before.
    const atStart = landing?.landed === 'line' && landing.atStart === true;
    try {
      await this.settle(() => this.core.position.kind !== 'moving', atStart ? 2_000 : LINE_LANDING_MS);
    } catch (e) {
      if (!atStart) throw e;
    }
    if (this.core.position.kind === 'moving') this.core.moveTo(refused(this.core.position));
    if (atStart) return 'suspension';
    return this.core.currentStop?.line !== undefined ? 'line' : 'off';
  }

  /** The stops of the walk's steps so far are not shown (only its end is): dropped from the held events. */
  dropStepsShown(): void {
    if (this.core.heldEvents !== null)
      this.core.heldEvents = this.core.heldEvents.filter(
        (e) => e.event !== 'stopped' && e.event !== 'continued' && !SAYS_PAST_LINE.test(outputOf(e)),
      );
  }

  /** Waits (at most `ms`) until `done` holds: a landing's event follows its request's answer. */
  private async settle(done: () => boolean, ms = MOVE_LANDING_MS): Promise<void> {
    const until = Date.now() + ms;
    while (!done()) {
      if (Date.now() > until) throw new Error('the host answered a line move but never showed where it landed');
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}
