// MoveAnswers: how a move request is answered. A live execution request is answered at once,
// before the host is asked (VS Code must see the answer before the `stopped` it causes); a move
// in time is answered only once it has moved (answerOnceMoved: its events are held until then).
//
// Invariants: a move that fails is an error response, the position it left is taken again
// (debug-position.ts refused) and its stop shown again; no `stopped` or `continued` of it goes
// out, nor anything of a move the session ended during. A move in time is the position `moving`
// (startMove) under a moment id of the session's own until the host's answer lands it; another
// move meanwhile is refused (refuseDuringMove). A landing that never comes is given up after
// moveLandingMs (boundLanding).

import type { DebugProtocol } from '@vscode/debugprotocol';
import { RemoteError } from '../../protocol/rpc';
import { onContinued, refused, retarget, startMove, type DebugPosition, type Move } from './debug-position';
import type { DebugHost } from './debug-host';
import { CALLBACK_THREAD_ID, LOOP_THREAD_ID } from './dap-mapping';
import { ERR_HOST, ERR_NOT_RUNNING, MOVE_LANDING_MS, type SessionCore } from './session-core';
import { message, stoppedEventOf, type StopInfo } from './stop-events';

export class MoveAnswers {
  constructor(private readonly core: SessionCore) {}

  /**
   * Answers a move in time (Step Back, Reverse Continue, a step or continue through the past)
   * only once it has moved: what the session says meanwhile (the landing's `stopped` above all)
   * is held until the success response has gone, as VS Code takes a stop after the answer of
   * the request that made it. A move that fails is the request's error (VS Code shows it): the
   * position the move left is taken again (debug-position.ts refused) and its stop shown again,
   * and no `stopped` or `continued` of the move goes out: never a success that did not move.
   */
  async answerOnceMoved(response: DebugProtocol.Response, move: () => Promise<void>): Promise<void> {
    const outer = this.core.heldEvents !== null;
    if (!outer) this.core.heldEvents = [];
    try {
      await move();
    } catch (e) {
      if (this.endedDuringMove(response, outer)) return;
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
    if (this.endedDuringMove(response, outer)) return;
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
   * The session ended (`terminated` sent) while the move was under way: the move is refused as ended, and
   * nothing of it (its landing's words or stop) goes out after `terminated`: what was held before the end
   * went out ahead of it (SessionCore.sendEvent).
   */
  private endedDuringMove(response: DebugProtocol.Response, outer: boolean): boolean {
    if (!this.core.terminatedSent) return false;
    if (!outer) this.core.heldEvents = null;
    if (this.core.position.kind === 'moving') this.refusedMove();
    this.core.fail(response, ERR_NOT_RUNNING, `${response.command}: the session ended before the move landed`);
    return true;
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
  startMove(move: Move): string {
    const moment = this.core.momentIds.next();
    this.core.resumed();
    this.core.moveTo(startMove(this.core.position, move, moment));
    return moment;
  }

  /**
   * The move under way goes on as a seek to `tick` (null: the present) under a new moment id: a line move that
   * lands off its task's lines, shown as `seek` says once the seek's viewedTick lands it.
   */
  async seekInstead(seek: Omit<Extract<Move, { waits: 'seek' }>, 'waits'>, tick: number | null): Promise<void> {
    const moment = this.core.momentIds.next();
    this.core.moveTo(retarget(this.core.position, { waits: 'seek', ...seek }, moment));
    await this.core.requireHost().endpoint.request('seekTick', { tick, replayed: true, moment });
  }

  /**
   * A move request while one is under way: refused (where the views will stand is known only once the host
   * has answered it).
   */
  refuseDuringMove(response: DebugProtocol.Response, pos: Extract<DebugPosition, { kind: 'moving' }>): void {
    const bound = (this.core.options.moveLandingMs ?? MOVE_LANDING_MS) / 1000;
    this.core.fail(
      response,
      ERR_HOST,
      `${response.command}: another move of this session is under way (waiting for the host: ${pos.move.waits}); try again once it has landed (given up after ${bound} s without its landing)`,
      true,
    );
  }

  /** Answers an execution request at once, then asks the host; a refusal is shown and the stop restored. */
  execute(
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
}
