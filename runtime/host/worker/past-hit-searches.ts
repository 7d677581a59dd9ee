// Runs on a runtime host's line debugger worker thread. PastHitSearches: the client's searches of
// the past for hits, replayed by a line replay host (the stop's at a line stop, else the hit
// replay host): pastBreakpointHit (Reverse Continue, or Continue from a past hit, to a breakpoint's
// hit), pastLogpointHits (every hit of the logpoints so far), and the hit a forward step from a
// past line runs on to (ranOnToHit). The worker owns one and routes those requests to it.
//
// Invariants: a search's replay host holds none of this host's checkpoints being built meanwhile
// (whileScanning); a search forward from a live line stop ends at that stop (its tick's later hits
// are the present's); the views follow to the hit's tick as a live stop's would.

import type {
  ArmedBreakpoint,
  BreakpointHitLanding,
  HitBound,
  HostMethods,
  PastLineLanding,
  Timeline,
  ViewedMoment,
} from '../../../protocol/host-protocol';
import { parseHostRequest } from '../../../protocol/host-requests';
import { idOf } from '../../../protocol/moment-ids';
import type { ReplayHostMethods } from '../../../protocol/replay-host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { BreakpointSplit } from './breakpoint-split';
import type { ClientViews } from './client-views';
import type { LineDebugger } from './line-debugger';
import { liveBound, type LineReplayHost } from './line-replay-host';
import type { MainThreadLink } from './main-thread-link';
import type { PastView } from './past-view';
import type { ReplayHosts } from './replay-hosts';
import { hostOf, showsLine, type ReplayRole } from './worker-position';
import { armedLogpoint, hitsNeedTickTimes, logpointHitsOf } from '../shared/logpoint-hits';

export class PastHitSearches {
  constructor(
    private readonly dbg: LineDebugger,
    private readonly view: PastView,
    private readonly replays: ReplayHosts,
    private readonly breakpoints: BreakpointSplit,
    private readonly client: ClientViews,
    private readonly main: MainThreadLink,
  ) {}

  /**
   * Reverse Continue (or Continue from a past hit) to a line breakpoint's hit, replayed: the
   * line stop's replay host, else the hit replay host of the recording so far.
   */
  pastBreakpointHit(params: unknown): Promise<BreakpointHitLanding> {
    return this.whileScanning(() => this.findBreakpointHit(params));
  }

  /**
   * Logpoints in the past: every hit of the logpoints over the recording so far (at a line stop, the ticks
   * before it), replayed in the line stop's replay host, else the hit replay host; with each hit's task, the
   * time its tick began and its message.
   */
  pastLogpointHits(params: unknown): Promise<HostMethods['pastLogpointHits']['result']> {
    return this.whileScanning(() => this.listLogpointHits(params));
  }

  /**
   * `scan`, a replay host's scan of the past, with this host's checkpoints not built meanwhile (its main
   * thread told, not waited for: it may be busy replaying, or held at a line stop).
   */
  private async whileScanning<T>(scan: () => Promise<T>): Promise<T> {
    const hold = (on: boolean): void => void this.main.ask('holdCheckpoints', { hold: on }).catch(() => undefined);
    hold(true);
    try {
      return await scan();
    } finally {
      hold(false);
    }
  }

  /** pastBreakpointHit's search. */
  private async findBreakpointHit(params: unknown): Promise<BreakpointHitLanding> {
    const d = this.dbg;
    const p = parseHostRequest('pastBreakpointHit', params);
    // A logpoint's hit listed (pastLogpointHits): that one logpoint armed, its nth hit of the tick gone to. A
    // Continue (forward) arms the logpoints too: it prints those it runs through, as the live Continue does.
    const armed: ArmedBreakpoint[] =
      p.logpointHit !== undefined
        ? [armedLogpoint(p.logpointHit.logpoint)]
        : p.direction === 'forward'
          ? this.breakpoints.stepArmed()
          : this.breakpoints.armed();
    // Nothing armed: nothing to replay for (a past line shown stays shown).
    if (armed.length === 0) return { landed: 'none', breakpoints: [], from: p.floor ?? 0, to: p.tick };
    const pos = this.view.position;
    let r: LineReplayHost;
    let bound: HitBound = { tick: p.tick };
    const held = d.isStopped();
    if (held) {
      const shown = this.replays.stop;
      r =
        shown !== null && showsLine(pos) && hostOf(pos) === 'stop'
          ? shown
          : await this.replays.ofStop('pastBreakpointHit');
      // A past line shown: the replay host starts from it (it is stopped there).
      bound = { tick: r.stop.tick, taskId: r.stop.taskId, print: r.stop.print };
    } else {
      const shown = this.replays.hitHosts.hitReplay;
      r =
        shown !== null && showsLine(pos) && hostOf(pos) === 'search'
          ? shown
          : await this.replays.hitHosts.hitsFrom(p.tick);
    }
    // A live line stop's tick is open: forward, the search ends at the live stop in it (its hits after the
    // live stop are the present's, not the past's).
    const live = r.hasLiveStop() ? r.stop : null;
    const end = live !== null ? live.tick : r.ticks;
    const ceiling = Math.min(p.ceiling ?? end, end);
    const search: ReplayHostMethods['pastHit']['params'] = {
      direction: p.direction,
      bound,
      floor: p.floor ?? 0,
      ceiling,
      breakpoints: armed,
      ...idOf(p.moment),
    };
    if (p.logpointHit !== undefined) {
      if (p.logpointHit.tick > end)
        throw new ProtocolError(
          `pastBreakpointHit: tick ${p.logpointHit.tick} is not in the recording replayed (ticks 1..${end})`,
          'badTick',
        );
      search.nth = { tick: p.logpointHit.tick, ordinal: p.logpointHit.ordinal };
    } else if (live !== null && p.direction === 'forward' && ceiling === live.tick) search.until = liveBound(live);
    const landing = await this.view.findHit(r, held ? 'stop' : 'search', search);
    // Printed before the views move (to the hit, the loop's stop, or on to a later stop or the present).
    this.client.print(landing.printed ?? []);
    // The views follow to the hit's tick (the live host's own seek; while a line stop holds its main thread,
    // the replay host's moment).
    if (landing.landed === 'line' && d.isStopped())
      this.client.tellViewed(r, landing.tick, p.moment, {
        reason: 'breakpoint',
        description: landing.description,
        ...(landing.taskId !== null ? { taskId: landing.taskId } : {}),
      });
    else if (landing.landed === 'line') {
      this.viewSearchLine(r, landing.tick, p.moment, {
        reason: 'breakpoint',
        description: landing.description,
        ...(landing.taskId !== null ? { taskId: landing.taskId } : {}),
      });
      // A logpoint's hit followed from its list: another logpoint listed while it is shown is scanned by a replay
      // host of its own, started now (not for a breakpoint's hit: no logpoint list is under way).
      if (p.logpointHit !== undefined) this.replays.hitHosts.prepareScan();
    }
    return landing;
  }

  /** pastLogpointHits' scan. */
  private async listLogpointHits(params: unknown): Promise<HostMethods['pastLogpointHits']['result']> {
    const p = parseHostRequest('pastLogpointHits', params);
    const pos = this.view.position;
    const held = this.dbg.isStopped();
    const on = held ? 'stop' : 'search';
    // The replay host holds a line shown there (its frames are the views'): a scan would leave it. The run is
    // scanned by a replay host of its own instead, and the line stays shown: at a live line stop, one of the
    // stop's recording (through the stop); else (a finished run, a recording) of the whole run.
    if (showsLine(pos) && hostOf(pos) === on) {
      const scan = (r: LineReplayHost): Promise<HostMethods['pastLogpointHits']['result']> => this.logHits(r, p);
      return held
        ? this.replays.besideStop('pastLogpointHits', scan)
        : this.replays.hitHosts.scanWith('pastLogpointHits', scan);
    }
    const r = held ? await this.replays.ofStop('pastLogpointHits') : await this.replays.hitHosts.hitsFrom(p.tick ?? 0);
    return this.logHits(r, p);
  }

  /**
   * Every hit of `p.logpoints` replayed by `r`, in order: through `p.through` if given, else all it holds; of a
   * live line stop's recording, its tick's hits up to the stop too (run before it: the live run printed them).
   */
  private async logHits(
    r: LineReplayHost,
    p: HostMethods['pastLogpointHits']['params'],
  ): Promise<HostMethods['pastLogpointHits']['result']> {
    const live = r.hasLiveStop() ? r.stop : null;
    const ticks = throughAt(live !== null ? live.tick : r.ticks, p.through);
    const until = live !== null && ticks === live.tick ? liveBound(live) : undefined;
    const found = await r.logHits(p.logpoints.map(armedLogpoint), ticks, until);
    // Each hit's time comes with it (its tick's in the replay host's timeline); asked whole only if one lacks it.
    const times =
      ticks > 0 && hitsNeedTickTimes(found) ? ((await r.request('timeline', {})) as Timeline).tickTimes : [];
    const hits = logpointHitsOf(found, p.logpoints, times);
    return { hits, ticks };
  }

  /**
   * A forward step from a past line ran on past its task's lines (its coroutine returned): as the live step
   * runs on, it stops at the first breakpoint hit after the line it left, before the live stop (or the
   * recording's end); none, the present.
   */
  async ranOnToHit(
    r: LineReplayHost,
    on: ReplayRole,
    ran: Extract<PastLineLanding, { landed: 'present' }>,
    moment: string | undefined,
    task?: number,
  ): Promise<PastLineLanding> {
    const { ranOnFrom, ...present } = ran;
    // The logpoints too: they print on the way, as the live step's (the live stop's own included); a step
    // limited to one task stops at that task's hits only.
    const armed = this.breakpoints.stepArmed(task);
    if (ranOnFrom === undefined || armed.length === 0) return present;
    const live = r.hasLiveStop() ? r.stop : null;
    const ceiling = live !== null ? live.tick : r.ticks;
    const search: ReplayHostMethods['pastHit']['params'] = {
      direction: 'forward',
      bound: ranOnFrom,
      floor: 0,
      ceiling,
      breakpoints: armed,
      ...idOf(moment),
    };
    if (live !== null && ceiling === live.tick) search.until = liveBound(live);
    const hit = await this.view.findHit(r, on, search);
    if (hit.landed === 'none' && hit.printed !== undefined) return { ...present, printed: hit.printed };
    if (hit.landed === 'tick') {
      // A loop breakpoint's hit on the way: the live run stopped after its tick (the client seeks there).
      const { tick, taskId, description, printed } = hit;
      return {
        landed: 'tick',
        tick,
        taskId,
        description,
        ...(present.said === undefined ? {} : { said: present.said }),
        ...(printed === undefined ? {} : { printed }),
      };
    }
    if (hit.landed !== 'line') return present;
    const landing: PastLineLanding = { landed: 'line', line: hit.line, tick: hit.tick, breakpoint: hit.description };
    if (hit.taskId !== null) landing.taskId = hit.taskId;
    if (hit.printed !== undefined) landing.printed = hit.printed;
    if (present.said !== undefined) landing.said = present.said;
    return landing;
  }

  /** A line reached from a breakpoint hit, in another tick maybe: the views follow to its tick (as to the hit's). */
  async followHitLine(landing: PastLineLanding, r: LineReplayHost, moment: string | undefined): Promise<void> {
    if (landing.landed !== 'line' || landing.tick === undefined) return;
    if (this.dbg.isStopped()) this.client.tellViewed(r, landing.tick, moment);
    else this.viewSearchLine(r, landing.tick, moment);
  }

  /**
   * No live line stop holds the run: the views are told a line the search's replay host `r` shows, within its
   * tick (with its `stop`), as while a line stop holds it; the moment's queries are `r`'s
   * (LineDebugWorker.route), stopped there, not the main thread's (which would show the tick's end). Leaving
   * it (a seek, the run going on) is the main thread's again.
   */
  private viewSearchLine(
    r: LineReplayHost,
    tick: number,
    moment: string | undefined,
    stop?: ViewedMoment['stop'],
  ): void {
    this.client.tellViewed(r, tick, moment, stop);
  }
}

/** The last tick a list covers: the ticks its replay host holds (`held`), no further than the one asked for. */
function throughAt(held: number, through: number | undefined): number {
  return through === undefined ? held : Math.min(held, through);
}
