// Runs on a runtime host's line debugger worker thread. LineMoves: the client's line moves
// (lineStep, lineStepBack, lineValuesBack) from wherever the views are: the live line stop (the
// live thread steps; the stop's replay host walks back), a past line the stop's replay host shows,
// or a line walked from a breakpoint hit or an earlier step (PastView.moveAtHit). The worker routes
// them here with the replay host showing a past line, if any.
//
// Invariants: each move answers its request before the views are told where it landed; the live
// thread steps on only after the stop's past has been left and no warm-up of it can start.

import { parseHostRequest } from '../../../protocol/host-requests';
import type { RequestMessage } from '../../../protocol/rpc';
import type { BreakpointSplit } from './breakpoint-split';
import type { ClientViews } from './client-views';
import type { LineDebugger } from './line-debugger';
import type { LineReplayHost } from './line-replay-host';
import type { PastHitSearches } from './past-hit-searches';
import type { PastView } from './past-view';
import type { ReplayHosts } from './replay-hosts';
import { hostOf, walksFromHit } from './worker-position';

export class LineMoves {
  constructor(
    private readonly dbg: LineDebugger,
    private readonly view: PastView,
    private readonly replays: ReplayHosts,
    private readonly breakpoints: BreakpointSplit,
    private readonly client: ClientViews,
    private readonly hitSearches: PastHitSearches,
  ) {}

  /**
   * A line step (over, into, out): from a line walked from a hit or an earlier step, that walk's next line
   * (on past its task's lines, to the next breakpoint hit); from a past line, the stop's replay host's; else
   * the live thread steps.
   */
  async lineStep(m: RequestMessage, past: LineReplayHost | null): Promise<void> {
    const { kind, moment, task } = parseHostRequest('lineStep', m.params);
    const armed = this.breakpoints.stepArmed(task);
    if (past !== null && walksFromHit(this.view.position)) {
      // From a line of an earlier step of the live stop's task, a step that comes to the present shows
      // the live stop (a hit's client shows the present itself).
      const beforeStop = this.view.position.kind === 'stepBefore';
      const on = hostOf(this.view.position) ?? 'search';
      let landing = await this.view.moveAtHit(past, kind, moment, armed, 1, task !== undefined);
      if (landing.landed === 'present' && landing.ranOnFrom !== undefined)
        landing = await this.hitSearches.ranOnToHit(past, on, landing, moment, task);
      await this.hitSearches.followHitLine(landing, past, moment);
      this.client.respond(m.id, { landing });
      return beforeStop ? this.client.showLanding(landing, past, moment) : this.client.showHitLanding(landing, moment);
    }
    if (past !== null) {
      const landing = await this.view.move(past, kind, moment, 1, armed);
      this.client.respond(m.id, {});
      return this.client.showLanding(landing, past, moment);
    }
    // The live thread goes on; the stop it comes to says whether the tick's past stays.
    const replay = this.replays.stop;
    if (replay !== null && replay.hasLiveStop()) await this.view.move(replay, 'leave').catch(() => undefined);
    this.replays.warmUp.cancel();
    this.client.respond(m.id, {});
    await this.dbg.lineStep(kind, task !== undefined);
  }

  /**
   * A step back (`lines` lines): from a line walked from a hit or an earlier step, that walk's; else the stop's
   * replay host's.
   */
  async lineStepBack(m: RequestMessage, past: LineReplayHost | null): Promise<void> {
    const { moment, lines = 1 } = parseHostRequest('lineStepBack', m.params);
    if (past !== null && walksFromHit(this.view.position)) {
      const beforeStop = this.view.position.kind === 'stepBefore';
      const landing = await this.view.moveAtHit(past, 'back', moment, [], lines);
      await this.hitSearches.followHitLine(landing, past, moment);
      this.client.respond(m.id, landing);
      return beforeStop ? this.client.showLanding(landing, past, moment) : this.client.showHitLanding(landing, moment);
    }
    const r = await this.replays.ofStop('lineStepBack');
    const landing = await this.view.move(r, 'back', moment, lines);
    this.client.respond(m.id, landing);
    return this.client.showLanding(landing, r, moment);
  }

  /**
   * The watched values back through the step of the line shown: the live stop's, or, from a hit or a line of an
   * earlier step, that walk's (by the replay host showing it).
   */
  async lineValuesBack(m: RequestMessage, past: LineReplayHost | null): Promise<void> {
    const { watched } = parseHostRequest('lineValuesBack', m.params);
    if (past !== null && walksFromHit(this.view.position))
      return this.client.respond(m.id, await past.valuesBackFromHit(watched));
    const r = await this.replays.ofStop('lineValuesBack');
    return this.client.respond(m.id, await r.valuesBack(watched));
  }
}
