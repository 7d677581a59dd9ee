// Runs on a runtime host's line debugger worker thread (live or line replay host). ClientViews:
// the worker's side of the client pipe (one JSON message per line): answers, events, and what
// the views are told of the past shown while a line stop holds the main thread (`viewedTick`,
// a `paused` with `pastLine`), or the live stop again.
//
// Invariants: every landing on a past line is told, in the same tick too; the present is told
// once (toldPast null: told already); the live stop shown again is its own last `paused`. A
// move's moment id is echoed on every event it causes; what no move asked for carries none.

import type { HostEvents, PastLineLanding, ViewedMoment } from '../../../protocol/host-protocol';
import { idOf } from '../../../protocol/moment-ids';
import type { ResponseMessage } from '../../../protocol/rpc';
import type { StreamTransport } from '../../../protocol/stream-transport';
import type { LineReplayHost } from './line-replay-host';

export class ClientViews {
  /** The live line stop's own `paused`, as the line debugger told it last. */
  livePaused: HostEvents['paused'] | null = null;
  /**
   * The moment the views were told last while a line stop holds the main thread (the tick of a past line, hit
   * or tick the replay host shows; null: the present).
   */
  toldPast: number | null = null;

  constructor(private readonly client: StreamTransport) {}

  send(m: unknown): void {
    this.client.send(m);
  }

  respond(id: number, result: unknown): void {
    this.client.send({ kind: 'response', id, ok: true, result } satisfies ResponseMessage);
  }

  refuse(id: number, e: unknown, code = 'failed'): void {
    this.client.send({
      kind: 'response',
      id,
      ok: false,
      error: { message: e instanceof Error ? e.message : String(e), code },
    } satisfies ResponseMessage);
  }

  event<E extends keyof HostEvents>(event: E, body: HostEvents[E]): void {
    if (event === 'paused') this.livePaused = body as HostEvents['paused'];
    this.client.send({ kind: 'event', event, body });
  }

  /**
   * The views move to the moment `tick` of replay host `r` (null: the present, told once), made by the move
   * named `moment`.
   */
  tellViewed(r: LineReplayHost, tick: number | null, moment?: string, stop?: ViewedMoment['stop']): void {
    if (tick === null && this.toldPast === null) return;
    this.toldPast = tick;
    const body: ViewedMoment = {
      runId: r.runId,
      tick,
      ticks: Math.max(r.ticks, tick ?? 0),
      line: true,
      ...idOf(moment),
    };
    if (stop !== undefined && tick !== null) body.stop = stop;
    this.client.send({ kind: 'event', event: 'viewedTick', body });
  }

  /** A seek of replay host `r` moved the views to `moment` (told as it is). */
  tellSeek(moment: ViewedMoment): void {
    this.toldPast = moment.tick;
    this.client.send({ kind: 'event', event: 'viewedTick', body: moment });
  }

  /** The live stop goes on (continue): the views come back to the present if they were told a past, or `shownPast`. */
  leavePast(r: LineReplayHost | null, shownPast: boolean): void {
    if (r !== null && (shownPast || this.toldPast !== null))
      this.client.send({ kind: 'event', event: 'viewedTick', body: { runId: r.runId, tick: null, ticks: r.ticks } });
    this.toldPast = null;
  }

  /** The live stop shown again (its own `paused`, its reason as the live stop said it), by the move named `moment`. */
  showLiveStop(moment?: string): void {
    if (this.livePaused !== null)
      this.client.send({ kind: 'event', event: 'paused', body: { ...this.livePaused, ...idOf(moment) } });
  }

  /**
   * Shows where a move through the replayed lines of `r`'s live stop landed: a past line (in an earlier step
   * of the task too), or the live stop again.
   */
  showLanding(landing: PastLineLanding, r: LineReplayHost, moment?: string): void {
    this.say(landing);
    if (landing.landed === 'present' && this.livePaused !== null) {
      this.tellViewed(r, null, moment);
      this.showLiveStop(moment);
      return;
    }
    if (landing.landed !== 'line' || !r.hasLiveStop()) return;
    if (landing.tick !== undefined) {
      // In an earlier step (a walk anchored there, as at a hit): the views follow to its tick.
      this.tellViewed(r, landing.tick, moment);
      return this.showHitLine(landing, moment);
    }
    this.tellViewed(r, r.stop.tick, moment);
    const who = this.livePaused?.description.split(' stopped on a line')[0] ?? `task #${r.stop.taskId}`;
    const at = landing.line === null ? '' : ` at ${landing.line.file}:${landing.line.line}`;
    const note = landing.note === undefined ? '' : `: ${landing.note}`;
    // A line holding a breakpoint's hit (the step stopped at it, or landed on it): said as that hit, as live.
    const body: HostEvents['paused'] = {
      reason: landing.breakpoint !== undefined ? 'breakpoint' : 'step',
      tick: r.stop.tick,
      taskId: r.stop.taskId,
      description: landing.breakpoint ?? `${who} on a past line${at} (tick ${r.stop.tick}, replayed)${note}`,
      pastLine: true,
      ...idOf(moment),
    };
    if (landing.line !== null) body.line = landing.line;
    this.client.send({ kind: 'event', event: 'paused', body });
  }

  /**
   * Shows a line reached from a breakpoint hit: a `paused` of that past line (the present and a suspension
   * are the client's to show).
   */
  showHitLanding(landing: PastLineLanding, moment?: string): void {
    this.say(landing);
    this.showHitLine(landing, moment);
  }

  /** The logpoints' messages a move through the past met on its way, printed as the live console.log prints them. */
  print(messages: readonly string[]): void {
    for (const text of messages)
      this.client.send({ kind: 'event', event: 'output', body: { category: 'stdout', text: `${text}\n` } });
  }

  /** What the replay host's line step printed on its way to `landing`, said as the live step says it. */
  private say(landing: PastLineLanding): void {
    if (landing.landed === 'suspension') return;
    this.print(landing.printed ?? []);
    for (const text of landing.said ?? [])
      this.client.send({ kind: 'event', event: 'output', body: { category: 'log', text } });
  }

  /** The `paused` of a past line in a tick of its own (from a hit, or a step before the live stop's). */
  private showHitLine(landing: PastLineLanding, moment?: string): void {
    if (landing.landed !== 'line' || landing.tick === undefined) return;
    const who = landing.task ?? (landing.taskId !== undefined ? `task #${landing.taskId}` : 'the main thread');
    const at = landing.line === null ? '' : ` at ${landing.line.file}:${landing.line.line}`;
    const note = landing.note === undefined ? '' : `: ${landing.note}`;
    // A breakpoint's hit the step stopped at on its way (it ran on past its task's lines): said as that hit.
    const body: HostEvents['paused'] = {
      reason: landing.breakpoint !== undefined ? 'breakpoint' : 'step',
      tick: landing.tick,
      description: landing.breakpoint ?? `${who} on a past line${at} (tick ${landing.tick}, replayed)${note}`,
      pastLine: true,
      ...idOf(moment),
    };
    if (landing.taskId !== undefined) body.taskId = landing.taskId;
    if (landing.line !== null) body.line = landing.line;
    this.client.send({ kind: 'event', event: 'paused', body });
  }
}
