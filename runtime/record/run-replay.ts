// RunReplay: re-executes a recorded run: the program runs again on a loop built on the replay's
// clock, fed tick by tick the recorded clock readings, socket inputs (stand-in connections: the
// network is never touched) and cancels asked from outside, and recorded again to check it is
// the same run. Use: `const replay = new RunReplay(log, recordedEvents, 'run.corotrace'); const
// loop = new EventLoop({ clock: replay.clock }); replay.attach(loop);`, run the program, then
// `replay.verify()`. Pausing at a tick, growing a live run's replay and mid-tick recordings are
// in docs/design/run-replay.md.
//
// Invariants: the loop never waits while replayed (it asks the replay for each tick); asked for a
// tick the recording does not have, the replay throws ReplayDivergedError: a replay of the wrong
// program fails, never hangs. Inputs are fed just before the tick they arrived before, in their
// order. verify() compares the event logs byte for byte and names the first tick that differs.

import type { EventLoop, TickFeed } from '../loop';
import type { Socket } from '../socket';
import type { Task } from '../task';
import { setOutsideValueTap, type OutsideValue } from '../outside-values';
import { ReplayClock, type RecordingClock } from './record-clocks';
import { ReplayConnection } from './replay-connection';
import { ReplayDivergedError } from './recording-errors';
import type { RunLog } from './run-log';
import { RunRecorder, type RecordedStreams } from './run-recorder';

export interface RunReplayOptions {
  /** As the recording was made (RunRecorderOptions.frames). */
  readonly frames?: boolean;
  /** Pause the loop after this tick (1-based, counted from the recording's start). */
  readonly stopAfterTick?: number;
  /** Called once the loop has paused there. */
  readonly onStop?: (tick: number, loop: EventLoop) => void;
  /**
   * Makes again a cancel asked from outside the loop (default: `task.cancel()`, by no one: the
   * log does not say which tool asked), the `noTask`-th of the log's cancels by no task. A tool
   * that knows who asked in the recorded run (its asked cancels, the CLI's signal) makes it as
   * that one did.
   */
  readonly cancelFromOutside?: (task: Task<unknown>, noTask: number) => void;
}

const NO_READS: readonly number[] = [];

export class RunReplay implements TickFeed {
  /** The clock a replayed loop must be built on (the re-recording's, over the recorded times). */
  readonly clock: RecordingClock;
  private readonly replayClock: ReplayClock;
  private readonly recorder: RunRecorder;
  private readonly sockets: Socket[] = [];
  /**
   * Every replayed task by log number - 1 (weakly: a task the loop has let go is done, and no cancel reaches
   * it), for the cancels from outside.
   */
  private readonly tasks: Array<WeakRef<Task<unknown>>> = [];
  private fed = 0;
  private loop: EventLoop | null = null;
  private stopTick: number | undefined;
  private replayed: RecordedStreams | null = null;
  /** Bytes of the event log found equal to the recording's so far (compare). */
  private checked = 0;
  /** The values the program read in the tick being replayed (RunLog.readsIn: kind, value...), and how many given. */
  private reads: readonly number[] = NO_READS;
  private readsGiven = 0;

  constructor(
    private log: RunLog,
    private recordedEvents: Buffer,
    /** The recording's name, for error messages. */
    private readonly what: string,
    private readonly options: RunReplayOptions = {},
  ) {
    this.replayClock = new ReplayClock(this.gapBefore(0), log.times[0] ?? 0);
    this.recorder = new RunRecorder({
      clock: this.replayClock,
      frames: options.frames,
      connections: (sock, n) => {
        this.sockets[n - 1] = sock;
        const recorded = this.log.sockets[n - 1];
        if (recorded === undefined)
          throw this.diverged(`the replay opened socket #${n}, which the recording never opened`);
        return new ReplayConnection();
      },
      taskNumbered: (task, n) => {
        this.tasks[n - 1] = new WeakRef(task);
      },
      afterTick: (tick) => {
        if (tick === this.stopTick && this.loop !== null) {
          this.loop.pause();
          this.options.onStop?.(tick, this.loop);
        }
      },
    });
    this.clock = this.recorder.clock;
    this.stopTick = options.stopAfterTick;
  }

  /**
   * A replay paused after a tick (stopAfterTick, or an earlier continueTo) goes on and pauses
   * again after `tick`, which must be later than the ticks replayed and at most the recording's.
   */
  continueTo(tick: number): void {
    if (this.loop === null) throw new RangeError('continueTo: the replay is not attached to a loop');
    if (!Number.isInteger(tick) || tick <= this.fed || tick > this.log.times.length)
      throw new RangeError(
        `continueTo: tick ${tick} is not after tick ${this.fed} and within the recording's ${this.log.times.length}`,
      );
    this.stopTick = tick;
    this.loop.resume();
  }

  /**
   * A replay going on to its stop (continueTo, not there yet) stops at `tick` instead: a later
   * one, within the recording, or an earlier one it has not begun to replay yet; false (nothing
   * changed) otherwise.
   */
  retarget(tick: number): boolean {
    if (
      this.stopTick === undefined ||
      !Number.isInteger(tick) ||
      tick === this.stopTick ||
      this.fed >= this.stopTick ||
      tick <= this.fed ||
      tick > this.log.times.length
    )
      return false;
    this.stopTick = tick;
    return true;
  }

  /**
   * The same recording, grown (a live run's, read again later): the replay may go on into its
   * new ticks. It must hold at least the ticks of the current one, with the same bytes (the
   * replayed ticks already checked are not compared again; the new ones are at the next check).
   */
  extend(log: RunLog, recordedEvents: Buffer): void {
    if (log.times.length < this.log.times.length)
      throw new RangeError(
        `extend: a recording of ${log.times.length} ticks does not extend one of ${this.log.times.length}`,
      );
    this.log = log;
    this.recordedEvents = recordedEvents;
  }

  /** Ticks the recording holds. */
  get ticks(): number {
    return this.log.times.length;
  }

  /** Ticks replayed so far. */
  get ticksReplayed(): number {
    return this.fed;
  }

  attach(loop: EventLoop): this {
    this.loop = loop;
    this.recorder.attach(loop);
    // What the program reads from outside the loop is what the recorded run read, in the same order, written
    // again (a read the recording lacks, or of another kind, is read live: the re-recording then differs).
    setOutsideValueTap(loop, {
      replaying: true,
      read: (kind, live) => this.recorder.read(kind, () => this.recordedRead(kind, live)),
    });
    loop.setTickFeed(this);
    // Its tasks get the ids and names the recorded run's had, so every view names them alike; those an
    // open last tick creates (not logged) continue the counters the live run had when it began.
    let created = 0;
    let nextId = 0;
    let unnamed = 0;
    loop.setTaskNumbering({
      next: (named) => {
        const i = created++;
        const { taskIds, taskNames, openTickTasks } = this.log;
        if (i < taskIds.length) return { id: taskIds[i]!, name: taskNames[i]! };
        if (openTickTasks === undefined) return null;
        if (i === taskIds.length) ({ nextId, unnamed } = openTickTasks);
        const id = nextId++;
        return { id, name: named ? '' : `Task-${++unnamed}` };
      },
    });
    return this;
  }

  /** Stops feeding the loop; returns the replayed run's streams. */
  detach(): RecordedStreams {
    if (this.loop !== null) {
      this.loop.clearTickFeed(this);
      this.loop.setTaskNumbering(null);
    }
    this.replayed ??= this.recorder.finish();
    return this.replayed;
  }

  /** loop.TickFeed: the next recorded tick is about to run: its inputs, then its time. */
  nextTick(): void {
    const i = this.fed;
    if (i >= this.log.times.length)
      throw this.diverged(`the replayed run went on after the last recorded tick (${this.log.times.length})`);
    const inputs = this.log.inputsBefore[i]!;
    const cancels = this.log.cancelsBefore[i]!;
    let c = 0;
    for (let k = 0; k <= inputs.length; k++) {
      // The cancels asked after k of the inputs, then the next input.
      while (c < cancels.length && cancels[c]!.afterInputs === k) {
        const n = cancels[c]!.task;
        const task = this.tasks[n - 1]?.deref();
        if (task === undefined)
          throw this.diverged(
            `task #${n} of the log was cancelled before tick ${i + 1}, and the replay has no such task`,
          );
        const made = this.recorder.noTaskCancels;
        if (this.options.cancelFromOutside !== undefined) this.options.cancelFromOutside(task, cancels[c]!.noTask);
        else task.cancel();
        // The cancels it made in turn (a task it awaits is cancelled with it) are the log's next ones: made
        // already, not made twice.
        c += Math.max(1, this.recorder.noTaskCancels - made);
      }
      if (k === inputs.length) break;
      const input = inputs[k]!;
      const sock = this.sockets[input.socket - 1];
      if (sock === undefined) throw this.diverged(`socket #${input.socket} received input before the replay opened it`);
      sock.replayInput(input.kind, input.payload);
    }
    this.replayClock.setTick(this.log.times[i]!, this.gapBefore(i + 1));
    this.reads = this.log.readsIn[i] ?? NO_READS;
    this.readsGiven = 0;
    this.fed = i + 1;
  }

  /** The value of the tick's next read when it is of `kind`, else the live one. */
  private recordedRead(kind: OutsideValue, live: () => number): number {
    const at = this.readsGiven * 2;
    if (!this.clock.inTick || at >= this.reads.length || this.reads[at] !== kind) return live();
    this.readsGiven++;
    return this.reads[at + 1]!;
  }

  /**
   * The clock readings before tick index `i` (0-based), when the recording has that tick (a live run's next
   * gap may still grow).
   */
  private gapBefore(i: number): readonly number[] {
    return i < this.log.times.length ? (this.log.gapReadsBefore[i] ?? NO_READS) : NO_READS;
  }

  /**
   * Checks that the replay re-ran the recorded run: the replayed event log must equal the
   * recorded one (up to where the replay stopped, if it stopped early).
   */
  verify(): void {
    this.compare(this.detach().events);
  }

  /**
   * The same check while the replay goes on (paused after a tick): the events replayed so far
   * must equal the recorded ones up to the end of the last tick replayed.
   */
  checkSoFar(): void {
    const soFar = this.recorder.eventsSoFar();
    this.compare(soFar.bytes.subarray(0, soFar.upTo));
  }

  private compare(all: Uint8Array): void {
    // An open last tick (RecordedStreams.openTick) has no recorded end: the check goes up to the last tick that ended.
    const ended = Math.min(this.fed, this.log.tickEnds.length);
    const upTo =
      ended === 0
        ? 0
        : this.fed >= this.log.times.length && this.log.tickEnds.length === this.log.times.length
          ? this.recordedEvents.length
          : this.log.tickEnds[ended - 1]!;
    const replayed = this.fed > this.log.tickEnds.length ? all.subarray(0, upTo) : all;
    const expected = this.recordedEvents.subarray(0, upTo);
    const n = Math.min(replayed.length, expected.length);
    // Both logs only grow: what was found equal at an earlier check is not compared again.
    let at = Math.min(this.checked, n);
    if (replayed.length === expected.length && Buffer.compare(replayed.subarray(at), expected.subarray(at)) === 0) {
      this.checked = n;
      return;
    }
    while (at < n && replayed[at] === expected[at]) at++;
    if (at === expected.length && replayed.length === expected.length) return;
    throw this.diverged(
      `the replayed run differs from the recorded one at tick ${this.tickAt(at)} (event log byte ${at})`,
      this.tickAt(at),
    );
  }

  private tickAt(offset: number): number {
    const offsets = this.log.tickOffsets;
    let lo = 0;
    let hi = offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (offsets[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private diverged(why: string, tick = this.fed): ReplayDivergedError {
    return new ReplayDivergedError(`cannot replay ${this.what}: ${why}; it is not the run that was recorded`, tick);
  }
}
