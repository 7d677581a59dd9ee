// Runs on a line replay host's main thread (a live host's run never serves these).
//
// ReplayHostServices: what a line replay host's run does for its worker over the replay-host
// protocol: replayLineTick (one tick again with the line debugger on), warmTick (a replay parked ahead of a
// stop's walks), scanTicks (a stretch of
// ticks counting a breakpoint search's hits, hit-scan.ts), and growing the copy as the live run
// goes on (growOpened, growInPlace: run-recording.ts).
//
// Invariants: `tracedLoop` (and `hitScan`) is set only while a traced tick (stretch) runs; traced
// ticks are served in turn with the seeks (RunPast.inTurn), and no moment id names their moment.

import type { ScanTicksParams, ScanTicksResult } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { EventLoop, LoopObserver } from '../../loop';
import { tickTimeMs } from '../../record/run-timeline';
import { HitScan } from '../shared/hit-scan';
import { walkGate } from '../shared/walk-gate';
import type { ReadGrowth } from './recordings';
import type { RunPast } from './run-past';
import type { RunRecording, SavedRecording } from './run-recording';

export class ReplayHostServices {
  /** The replay's loop running a tick for the line replay (replayLineTick): the line debugger may stop in it. */
  tracedLoop: EventLoop | null = null;
  /** A breakpoint search's stretch under way (scanTicks): its hits. */
  hitScan: HitScan | null = null;

  constructor(
    private readonly runId: number,
    private readonly recording: RunRecording,
    private readonly past: RunPast,
  ) {}

  /**
   * The line replay (an opened recording, line-replay-host.ts: a mid-tick one's open tick, or
   * the tick of a breakpoint hit and those after it): runs tick `tick` of a replay once more,
   * with `tracedLoop` set to its loop meanwhile and its moment the viewed one (a past line
   * shown: the other tasks, the graph, the lints as they were on it); resolves once it has run. `gate`: a task
   * whose first step in the tick calls the walk's gate first (walk-gate.ts), where the worker plants the walk.
   */
  async replayLineTick(tick: number, gate: number | null = null): Promise<{ tick: number }> {
    const streams = this.recording.streams;
    const ticks = streams?.ticks ?? 0;
    if (this.recording.openedFrom === null || streams === null || tick < 1 || tick > ticks)
      throw new ProtocolError(
        `replayLineTick: run ${this.runId} is not an opened recording with tick ${tick}`,
        'badTick',
      );
    const rewind = this.past.rewindOf();
    let gated = gate === null;
    const gateObserver: LoopObserver = {
      taskStepStart: (task) => {
        if (gated || task.id !== gate) return;
        gated = true;
        walkGate();
      },
    };
    await this.past.inTurn(() =>
      rewind.traceTick(
        tick,
        (loop, moment) => {
          if (gate !== null) {
            if (loop !== null) loop.addObserver(gateObserver);
            else this.tracedLoop?.removeObserver(gateObserver);
          }
          this.tracedLoop = loop;
          // A moment no seek made (a traced tick): no seek's id names it.
          this.past.showTraced(moment);
        },
        tick - 1,
        undefined,
        true,
      ),
    );
    return { tick };
  }

  /**
   * A forward watch pinned objects of `loop`, the traced tick's replay (line-debug-bridge.ts): the walk's next
   * traced ticks go on in that replay (RunRewind.holdReplay). False: `loop` is not a replay's here.
   */
  holdReplayOf(loop: EventLoop): boolean {
    if (this.recording.openedFrom === null || loop !== this.tracedLoop) return false;
    this.past.rewindOf().holdReplay(loop);
    return true;
  }

  /**
   * A replay parked right after tick `tick` ahead of a line stop's walks (RunRewind.warm: none moved from a tick
   * of `keep`), in turn with the seeks; whether it is parked there.
   */
  async warmTick(tick: number, keep: readonly number[]): Promise<{ parked: boolean }> {
    const ticks = this.recording.streams?.ticks ?? 0;
    if (this.recording.openedFrom === null || tick < 1 || tick > ticks) return { parked: false };
    const rewind = this.past.rewindOf();
    return { parked: await this.past.inTurn(() => rewind.warm(tick, keep)) };
  }

  /**
   * A breakpoint search's stretch in a line replay host (hit-scan.ts): replays ticks from+1 ..
   * to once more with `hitScan` counting the hits on its loop (`tracedLoop`, so the line
   * debugger may stop in it); resolves once it has run, with the hits.
   */
  async scanTicks(params: ScanTicksParams): Promise<ScanTicksResult> {
    const ticks = this.recording.streams?.ticks ?? 0;
    if (this.recording.openedFrom === null || params.from >= params.to || params.to > ticks)
      throw new ProtocolError(
        `scanTicks: run ${this.runId} is not an opened recording with ticks ${params.from + 1}..${params.to}`,
        'badTick',
      );
    const rewind = this.past.rewindOf();
    const scan = new HitScan(params, (tick) => tickTimeMs(rewind.tickTimes(), tick));
    await this.past.inTurn(() =>
      rewind.traceTick(
        params.to,
        (loop, moment, momentAt) => {
          // The suspension breakpoints' check runs on the stretch's loop only.
          if (scan.observer !== null) {
            if (loop !== null) loop.addObserver(scan.observer);
            else scan.loop?.removeObserver(scan.observer);
          }
          this.tracedLoop = loop;
          scan.loop = loop;
          this.hitScan = loop === null ? null : scan;
          // A scan that stops at a hit of tick `to` (or the line shown again): the moment's queries answer
          // for it there (the other tasks as they were on it).
          if (params.stop?.kind === 'nth' || params.stop?.kind === 'marker') {
            this.past.showTraced(moment);
          } else if (params.stop?.kind === 'first') {
            // A forward search's first hit: its tick is known once the scan stops there, and its moment is
            // the viewed one from then (until the stretch has run).
            if (loop === null && scan.stopped) this.past.viewed = null;
            scan.onStop =
              loop === null || momentAt === undefined ? null : (tick) => this.past.showTraced(momentAt(tick));
          }
        },
        params.from,
        scan.observer === null
          ? undefined
          : (loop) =>
              scan.warmUpFrom(loop, (taskId) => this.recording.recordedTasksNow().lastStepBy(taskId, params.from)),
      ),
    );
    return scan.result();
  }

  /**
   * The same live run's recording taken later (RunRecording.growOpened): read from now on, the
   * replays parked along the shorter one (its checkpoints) going on into it rather than starting
   * again. False, nothing changed, when it is not this run's recording grown.
   */
  growOpened(opened: SavedRecording, following = false): boolean {
    if (!this.recording.growOpened(opened, following)) return false;
    this.past.regrow();
    return true;
  }

  /** The copy grown in place by what the live run's recording gained (RunRecording.growInPlace); its ticks now. */
  growInPlace(growth: ReadGrowth, following: boolean): number {
    return this.recording.growInPlace(growth, following);
  }
}
