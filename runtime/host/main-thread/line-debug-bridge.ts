// Runs on a runtime host's main thread: its end of the bridge to the line debugger's worker.
// LineDebugBridge is the host endpoint's Transport to the worker (line-debug-worker.ts) that
// owns the client pipe and debugs this thread, and installs `globalThis.__coroscopeLine`, what
// the worker calls (Debugger.evaluateOnCallFrame) while this thread is stopped on a line:
// serve(json), current(), where(), live(), traced(id), writeMidTick(path), withdraw(id), the scan
// calls (hit-scan.ts), suspension(id) and gone(id). See docs/design/line-debugging.md.
//
// Invariants: while serve() runs, nothing the endpoint sends goes to the worker by message (it
// is returned instead, in order); disconnect() disconnects the worker's inspector session
// before the process exits (else node waits for the debugger).

import { COLLECTED_PIN, OTHER_REPLAY_PIN } from '../../../protocol/line-readings';
import { runningLoopOrNull } from '../../running-loop';
import type { Worker } from 'node:worker_threads';
import type { RpcEndpoint, Transport } from '../../../protocol/rpc';
import type { Run } from './run';
import { awaitInfoOf, summarizeTasks } from '../../inspect/task-summaries';
import { isFuture } from '../../future';
import { inspect } from '../../inspection';
import { shareHeldTime } from '../../held-time';
import type { StartedLineDebugWorker } from './line-debug-worker-start';
import type { EventLoop } from '../../loop';
import { writeReplayCopy } from './recordings';
import { parseHitCondition } from '../../inspect/hit-count';
import { isBridgeControl, type BridgeControl } from '../shared/bridge-control';
import { walkGate } from '../shared/walk-gate';
import { beginLooking, endLooking } from '../../outside-values';

/** The id of a request the worker sends of its own (negative, never a client's), else null. */
function workerAskId(m: unknown): number | null {
  if (typeof m !== 'object' || m === null) return null;
  const w = m as { kind?: unknown; id?: unknown };
  return w.kind === 'request' && typeof w.id === 'number' && w.id < 0 ? w.id : null;
}

const CLOSE_WAIT_MS = 500;
/** Objects pinned for watched fields at most (a walk pins one per field watched): the oldest let go first. */
const MAX_PINS = 64;

export class LineDebugBridge implements Transport {
  private readonly worker: Worker;
  private readonly receivers: Array<(message: unknown) => void> = [];
  private readonly closers: Array<(reason: string) => void> = [];
  private captured: unknown[] | null = null;
  private disconnected: (() => void) | null = null;
  private closed = false;
  /** The objects pinned for watched fields (handle.pin), oldest first. */
  private readonly pins = new Map<number, { ref: WeakRef<object>; loop: WeakRef<EventLoop> | null }>();
  private nextPin = 1;
  /**
   * The worker's own requests (negative ids) it withdrew before this thread read them (withdraw: a feed at a
   * line stop): dropped unread.
   */
  private readonly withdrawn = new Set<number>();
  /**
   * The id of the last of the worker's own requests this thread has read (0: none yet); theirs go -1, -2, ...
   * in the order sent.
   */
  private lastAskRead = 0;

  /** `started`: its worker (line-debug-worker-start.ts), which this thread's held-time counter is shared with. */
  constructor(started: StartedLineDebugWorker) {
    shareHeldTime(started.heldTime);
    this.worker = started.worker;
    this.worker.on('message', (m: unknown) => {
      if (isBridgeControl(m)) {
        if (m.bridge === 'closed') this.markClosed(m.reason);
        else if (m.bridge === 'disconnected') this.disconnected?.();
        return;
      }
      const ask = workerAskId(m);
      if (ask !== null) {
        if (this.withdrawn.delete(ask)) return;
        this.lastAskRead = ask;
      }
      for (const r of this.receivers) r(m);
    });
    this.worker.on('error', (e) => this.markClosed(`the line debugger's worker failed: ${e.message}`));
    this.worker.on('exit', () => this.markClosed("the line debugger's worker exited"));
  }

  /** Installs the handle the worker calls while this thread is stopped. */
  attach(
    endpoint: Pick<RpcEndpoint<object, object, object, object>, 'receiveNow'>,
    currentRun: () => Run | null,
  ): void {
    /** The loop a stop is in: the run's, or the line replay's traced one while it runs. */
    const loopNow = (): EventLoop | null => {
      const run = currentRun();
      const running = runningLoopOrNull();
      return running !== null && running === run?.replayHost.tracedLoop ? running : (run?.loop ?? null);
    };
    /** The walked task's last stop, for traced()'s `line`: in which replay's loop and tick, on which line. */
    let lastTraced: { loop: EventLoop; tick: number; line: string } | null = null;
    // The walk breakpoints planted as generation `everyRunOf` stop at every run of a line from now on.
    let everyRunOf = 0;
    const handle = {
      serve: (json: string): string => {
        const out: unknown[] = [];
        this.captured = out;
        try {
          endpoint.receiveNow(JSON.parse(json));
        } finally {
          this.captured = null;
        }
        return JSON.stringify(out);
      },
      current: (): number | null => loopNow()?.currentTask()?.id ?? null,
      // A watched field's object (a data breakpoint's walk forward, session-changes.ts), named by an id so that
      // its field is read at any line, whichever task or frame runs: held weakly, never kept alive by the watch.
      pin: (object: unknown): number => {
        if ((typeof object !== 'object' && typeof object !== 'function') || object === null)
          throw new TypeError(`not an object: ${String(object)}`);
        const id = this.nextPin++;
        // In a replay of the past (a line replay host's traced tick), that replay is held for the walk: its next
        // ticks run there, where the object is; another replay's own copy of it is a different object.
        const loop = loopNow();
        const run = currentRun();
        const inReplay = loop !== null && run !== null && run.replayHost.holdReplayOf(loop);
        this.pins.set(id, { ref: new WeakRef(object), loop: inReplay ? new WeakRef(loop) : null });
        if (this.pins.size > MAX_PINS) this.pins.delete(this.pins.keys().next().value as number);
        return id;
      },
      // A collected object is said apart (COLLECTED_PIN): no code holds it, so none can write its fields any more.
      // Read at a line of another replay of the run than the object's, it is that replay's copy: refused when the
      // two are in different ticks (a copy at another moment), or whenever `strict`.
      pinned: (id: number, strict = false): object => {
        const pin = this.pins.get(id);
        if (pin === undefined) throw new Error('the watched object is not pinned here (another replay, or let go)');
        const pinnedIn = pin.loop?.deref();
        const now = loopNow();
        if (pin.loop !== null && pinnedIn !== now && (strict || pinnedIn?.tickCount() !== now?.tickCount()))
          throw new Error(OTHER_REPLAY_PIN);
        const object = pin.ref.deref();
        if (object === undefined) throw new Error(COLLECTED_PIN);
        return object;
      },
      // False while another loop runs a tick: a replay of the run's past (run-rewind.ts) runs the same code,
      // and must not stop on its lines.
      // True in the tick a line replay host traces (replayLineTick): the line replay stops there.
      live: (): boolean => {
        const running = runningLoopOrNull();
        const run = currentRun();
        return running === null || running === run?.loop || running === run?.replayHost.tracedLoop;
      },
      // The line replay's walk (past-line-walk.ts): task `taskId` runs in the traced tick. With `line` (the
      // breakpoint's), not when the task's last stop in this tick of this loop was on that line (a line run again
      // at once is one entry of the walk: traced-tick-walk.ts's RepeatsPassed), unless the breakpoints planted as
      // `generation` were told to stop at every run since (everyRun).
      traced: (taskId: number, at?: string, generation?: number): boolean => {
        const line = generation !== undefined && generation === everyRunOf ? undefined : at;
        const running = runningLoopOrNull();
        if (running === null || running !== currentRun()?.replayHost.tracedLoop || running.currentTask()?.id !== taskId)
          return false;
        const tick = running.tickCount();
        const last = lastTraced;
        lastTraced = line === undefined ? null : { loop: running, tick, line };
        return line === undefined || last === null || last.loop !== running || last.tick !== tick || last.line !== line;
      },
      // The walk breakpoints planted as `generation` stop at every run of their line from now on (asked at a stop:
      // setting breakpoints again there would lose V8's step from it).
      everyRun: (generation: number): void => {
        everyRunOf = generation;
      },
      // The walk's gate (walk-gate.ts), named here for the worker to break on its call.
      walkGate,
      where: (): { taskId: number | null; taskName: string | null; tick: number; recorded: boolean } => {
        const loop = loopNow();
        const task = loop?.currentTask() ?? null;
        return {
          taskId: task?.id ?? null,
          taskName: task === null ? null : `${task.name}`,
          tick: loop?.tickCount() ?? 0,
          recorded: currentRun()?.recording.recorded === true,
        };
      },
      // A live logpoint with a hit condition (line-debugger.ts): its hits counted here, per run, since it was
      // set (`key`: one per logpoint set); true: this hit prints.
      logHit: (key: number, hitCondition: string): boolean => {
        const run = currentRun();
        if (run === null) return false;
        if (this.logCounts.run !== run.id) this.logCounts = { run: run.id, counts: new Map() };
        const tick = loopNow()?.tickCount() ?? 0;
        const counted = this.logCounts.counts.get(key) ?? { n: 0, firstTick: tick, told: true };
        counted.n++;
        this.logCounts.counts.set(key, counted);
        // Its hits in the tick it was set in count, live, from the moment it was set: the worker learns how many
        // (a search of the past counts from there). Told while in its first tick, and once after.
        if (counted.told) {
          counted.told = tick === counted.firstTick;
          if (!this.closed) this.worker.postMessage({ bridge: 'logHit', key, tick } satisfies BridgeControl);
        }
        return parseHitCondition(hitCondition)?.(counted.n) ?? true;
      },
      // A condition or logpoint message that may read an outside value (a random number, a clock) is evaluated
      // between these (logpoint-message.ts lookedAt): what it reads is the debugger's, not the recording's.
      lookIn: beginLooking,
      lookOut: endLooking,
      // A breakpoint search's scan breakpoints (hit-scan.ts): the breakpoints of `location` whose condition
      // held; true pauses here.
      scanHit: (location: number, met: Array<boolean | string | null>): boolean => {
        const scan = currentRun()?.replayHost.hitScan ?? null;
        return scan !== null && runningLoopOrNull() === scan.loop && scan.hit(location, met);
      },
      // Why the scan paused here ('marker', 'stop'), and the worker's verdict on a marker pause (true: stop here).
      scanPause: (): string | null => currentRun()?.replayHost.hitScan?.pausedFor ?? null,
      scanMarked: (matched: boolean): boolean => currentRun()?.replayHost.hitScan?.markerSeen(matched) ?? false,
      // ... and on a pause where a forward search ends (true: the live line stop, nothing after it counts).
      scanUntil: (reached: boolean): boolean => currentRun()?.replayHost.hitScan?.untilSeen(reached) ?? false,
      // The logpoints' messages the scan met since its marker, stopped on a hit (a step's on its way prints them).
      scanPrinted: (): string[] => currentRun()?.replayHost.hitScan?.printed() ?? [],
      // The line replay (line-replay-host.ts): the run's recording through the start of the tick stopped in,
      // for the replay host.
      writeMidTick: (path: string): { runId: number; ticks: number; midTick: boolean } | { refused: string } => {
        const run = currentRun();
        if (run === null) return { refused: 'nothing is running' };
        try {
          return writeReplayCopy(run, path);
        } catch (e) {
          return { refused: e instanceof Error ? e.message : String(e) };
        }
      },
      // The worker withdraws a request of its own it sent before this thread stopped (a feed of the line
      // replay host that a line stop made needless): true when it was not read yet, and never will be.
      withdraw: (id: number): boolean => this.withdraw(id),
      // Each live task's steps run so far (id, name, steps): a line step across a suspension tells from two
      // of these which tasks ran meanwhile. Of the loop the stop is in: in a line replay host, the traced
      // replay's, so that a step in the past says what the live one said.
      stepCounts: (): Array<[number, string, number]> => {
        const loop = loopNow();
        return loop === null || loop.isClosed()
          ? []
          : loop.allTasks().map((t): [number, string, number] => [t.id, t.name, t.steps()]);
      },
      // A move limited to one task (line-steps.ts): that task is not live in the loop a stop is in (it ended): the
      // limit lapses, and the move goes on as one not limited.
      gone: (taskId: number): boolean => {
        const loop = loopNow();
        return loop === null || loop.isClosed() || !loop.allTasks().some((t) => t.id === taskId);
      },
      suspension: (taskId: number, yielded: unknown, ended: 'returned' | 'raised' | null = null): string => {
        const loop = loopNow();
        const task = loop === null || loop.isClosed() ? undefined : loop.allTasks().find((t) => t.id === taskId);
        if (loop === null || task === undefined) return `task #${taskId} ended`;
        // Its coroutine returned or raised (the task is about to be done): it waits on nothing.
        if (ended !== null) return `${task.name}'s coroutine ${ended}: the task ends`;
        // Called just after the task's step returned: what it yielded is what it will wait on.
        const awaiting = isFuture(yielded) ? awaitInfoOf(yielded) : (summarizeTasks([task])[0]?.awaiting ?? null);
        const on =
          awaiting === null ? 'the loop' : `${awaiting.kind}${awaiting.detail !== '' ? ` (${awaiting.detail})` : ''}`;
        // The next task step the loop will run: where "follow the loop" lands.
        const following = loop[inspect]()
          .scheduledSteps()
          .find((step) => step.task.id !== taskId);
        const next =
          following === undefined ? 'the loop waits for I/O or a timer' : `the loop runs ${following.task.name}`;
        return `${task.name} suspended on ${on}; ${next}`;
      },
    };
    (globalThis as Record<string, unknown>).__coroscopeLine = handle;
  }

  /** The live logpoints' hit counts (logHit), of one run. */
  private logCounts: {
    run: number;
    /** Per logpoint key: its hits, the tick of its first, and whether the worker is still told its hits' ticks. */
    counts: Map<number, { n: number; firstTick: number; told: boolean }>;
  } = { run: -1, counts: new Map() };

  /** Drops the worker's request `id` unread, if this thread has not read it yet (true then). */
  private withdraw(id: number): boolean {
    if (id >= 0 || (this.lastAskRead !== 0 && id >= this.lastAskRead)) return false;
    this.withdrawn.add(id);
    return true;
  }

  send(message: unknown): void {
    if (this.captured !== null) {
      this.captured.push(message);
      return;
    }
    if (this.closed) return;
    this.worker.postMessage(message);
  }

  onMessage(receive: (message: unknown) => void): void {
    this.receivers.push(receive);
  }

  onClose(closed: (reason: string) => void): void {
    this.closers.push(closed);
  }

  private markClosed(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.closers) c(reason);
  }

  /** Disconnects the worker's inspector session (before the process exits). */
  async disconnect(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      this.disconnected = resolve;
      setTimeout(resolve, CLOSE_WAIT_MS).unref();
    });
    try {
      this.worker.postMessage({ bridge: 'disconnect' } satisfies BridgeControl);
    } catch {
      return;
    }
    await done;
  }
}
