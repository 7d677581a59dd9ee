// Runs on a live runtime host's line debugger worker thread. HitReplayHosts: the line replay hosts
// of the past with no line stop: the hit replay host (breakpoint searches and logpoint lists of a
// finished run, a recording or a loop-level stop: forked with a recording file's open, else started
// at the first search, or the stop's handed on at the run's end) and a finished run's scan replay
// host beside it (logpoints listed while the hit replay host shows a line: started then).
// ReplayHosts owns it.
//
// Invariants: at most one of each per run, both ended together (with the run, when the client
// goes); what the hit replay host showed is dropped from the worker's position when it ends; one
// started after its end is closed; the scan replay host's uses run one at a time.

import type { RecordingInfo } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import { LineReplayHost, type HostStart } from './line-replay-host';
import type { MainThreadLink } from './main-thread-link';
import type { PastView } from './past-view';

/** A recording file this host opened (openRecording's answer). */
export type OpenedHere = RecordingInfo & { runId: number };

export class HitReplayHosts {
  /** The hit replay host (no line stop), and one being started. */
  private replay: LineReplayHost | null = null;
  private replayStarting: Promise<LineReplayHost> | null = null;
  /** An open of a recording file under way, whose hit replay host was started with it: its request, its answer. */
  private hostOpen: { requestId: number; answer: (opened: OpenedHere | null) => void } | null = null;
  /** A finished run's scan replay host (scans while the hit replay host shows a line), kept warm; its uses. */
  private scanSpare: Promise<LineReplayHost> | null = null;
  private scanQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly hostStart: HostStart | null,
    /** This host is itself a line replay host: it starts none of its own ahead of need. */
    private readonly isLineReplay: boolean,
    private readonly main: MainThreadLink,
    private readonly view: PastView,
    /** The current run as launched or opened here: recorded (its past replayable), finished. */
    private readonly run: () => { readonly recorded: boolean; readonly finished: boolean },
  ) {}

  /** The hit replay host (null: none started). */
  get hitReplay(): LineReplayHost | null {
    return this.replay;
  }

  /**
   * The client asked this host to open recording file `path` (request `requestId`): its hit replay host is
   * forked now, beside the host's own open, and opens the same file (recordingOpened: the host's answer), so
   * a first search or logpoint list finds it loaded. After ReplayHosts.newRun; ended with the run as any hit
   * replay host.
   */
  openingRecording(requestId: number, path: string): void {
    if (this.isLineReplay || this.hostStart === null) return;
    let answer: (opened: OpenedHere | null) => void = () => undefined;
    const opened = new Promise<OpenedHere | null>((resolve) => {
      answer = resolve;
    });
    this.hostOpen = { requestId, answer };
    const starting = LineReplayHost.fork(this.hostStart).then(async (r) => {
      try {
        await r.openSaved(path, opened);
        return r;
      } catch (e) {
        r.close();
        throw e;
      }
    });
    this.becomeHitReplay(starting);
  }

  /** The host answered open request `requestId`: the recording it opened (null: refused). */
  recordingOpened(requestId: number, opened: OpenedHere | null): void {
    const open = this.hostOpen;
    if (open === null || open.requestId !== requestId) return;
    this.hostOpen = null;
    open.answer(opened);
  }

  /** The hit replay host ends, and the scan replay host beside it. */
  end(): void {
    this.endScan();
    // One started with an open not answered yet: told it was not opened (it closes itself).
    this.hostOpen?.answer(null);
    this.hostOpen = null;
    this.view.drop('search');
    this.replay?.close();
    this.replay = null;
    this.replayStarting = null;
  }

  /** A finished run's hit replay host is started now, ahead of its first search (none started yet). */
  startAhead(): void {
    if (this.replay === null && this.replayStarting === null) void this.hitsFrom(0).catch(() => undefined);
  }

  /**
   * The hit replay host of breakpoint searches with no line stop, started at the first use (again when the
   * recording has grown past `tick`).
   */
  async hitsFrom(tick: number): Promise<LineReplayHost> {
    // The followed run's replay host, being given the whole recording as the run finished.
    if (this.replayStarting !== null) await this.replayStarting.catch(() => undefined);
    if (this.replay !== null && !this.replay.isClosed && this.replay.ticks >= tick) return this.replay;
    this.end();
    if (this.hostStart === null)
      throw new ProtocolError('pastBreakpointHit: this host cannot start a replay host', 'replayFailed');
    const starting = (this.replayStarting = this.startWhole(this.hostStart));
    try {
      const started = await starting;
      if (this.replayStarting === starting) this.replay = started;
      else started.close();
      return started;
    } catch (e) {
      if (this.replayStarting === starting) this.replayStarting = null;
      throw e;
    }
  }

  /**
   * `use` of a replay host of its own over the whole recording, for a scan while the hit replay host holds a
   * line shown (pastLogpointHits). A finished run's is kept warm for the next scan (started ahead by
   * prepareScan, its uses one at a time); a run going on (or not recorded) gets one of its own, closed after.
   */
  async scanWith<T>(method: string, use: (r: LineReplayHost) => Promise<T>): Promise<T> {
    if (this.hostStart === null)
      throw new ProtocolError(`${method}: this host cannot start a replay host`, 'replayFailed');
    if (!this.run().finished || !this.run().recorded) {
      const once = await this.startWhole(this.hostStart);
      try {
        return await use(once);
      } finally {
        once.close();
      }
    }
    const job = this.scanQueue.then(async () => {
      let spare = this.scanSpare;
      // None yet, or one that failed to start or has exited: started now.
      const ready = spare === null ? null : await spare.catch(() => null);
      if (ready === null || ready.isClosed) {
        this.endScan();
        this.prepareScan();
        spare = this.scanSpare;
      }
      if (spare === null) throw new ProtocolError(`${method}: this host cannot start a replay host`, 'replayFailed');
      return use(await spare);
    });
    this.scanQueue = job.catch(() => undefined);
    return job;
  }

  /**
   * A finished run's hit replay host shows a logpoint's hit: the scan replay host is started now, ahead
   * of a logpoint listed meanwhile (scanWith), so that list does not wait for its start.
   */
  prepareScan(): void {
    if (this.isLineReplay || this.hostStart === null || !this.run().finished || !this.run().recorded) return;
    if (this.scanSpare !== null) return;
    const starting = this.startWhole(this.hostStart);
    this.scanSpare = starting;
    starting.then(
      (r) => {
        // Ended meanwhile (a new run, the client gone).
        if (this.scanSpare !== starting) r.close();
      },
      () => {
        if (this.scanSpare === starting) this.scanSpare = null;
      },
    );
  }

  /** The scan replay host ends. */
  private endScan(): void {
    const spare = this.scanSpare;
    this.scanSpare = null;
    spare?.then(
      (r) => r.close(),
      () => undefined,
    );
  }

  /** A replay host forked and given the run's whole recording so far. */
  private startWhole(hostStart: HostStart): Promise<LineReplayHost> {
    return LineReplayHost.start(
      hostStart,
      null,
      async (path) =>
        (await this.main.ask('writeReplayCopy', { path })) as { runId: number; ticks: number; midTick: boolean },
    );
  }

  /** `starting` becomes the hit replay host once started, unless ended meanwhile (a new run, the client gone). */
  becomeHitReplay(starting: Promise<LineReplayHost>): void {
    this.replayStarting = starting;
    starting.then(
      (started) => {
        if (this.replayStarting !== starting) return started.close();
        this.replayStarting = null;
        this.replay = started;
      },
      () => {
        if (this.replayStarting === starting) this.replayStarting = null;
      },
    );
  }
}
