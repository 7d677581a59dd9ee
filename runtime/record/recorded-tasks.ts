// RecordedTasks: the task table of any tick of a recorded run, read from its event log (run-log.ts)
// and the table notes beside it, with no replay: the log-side rows of protocol TaskSummary, as the
// summarizer gives them for a replay paused after that tick, and a task's await index. Fed
// incrementally: `update(events, upTo, notes)` decodes only what was added since the last call.
// Which fields the log gives exactly and which it cannot (busyMs, resourceId, renames) is in
// docs/design/recorded-tasks.md; recorded-moment.test.ts checks every tick against the replay.
//
// Invariants: records outside a tick (a cancel asked from outside, tasks created before the first
// tick) count for the next tick, as a replay feeds them before it; rows name tasks by the run's
// ids (the CREATED records'), never the log's numbers.

import type { AwaitInfo, TaskState, TaskSummary } from '../../protocol/host-protocol';
import { Outcome, siteChain, siteKind, type RunLogVisitor } from './run-log';
import type { TableNotes } from './await-details';
import { NoTaskCancels, type OutsideCancels } from './asked-cancels';
import { LoggedCancels } from './logged-cancels';
import { RunLogFeed } from './run-log-feed';

/** One task as the log tells it, over the whole recording read so far. */
interface TaskLog {
  readonly n: number;
  readonly id: number;
  readonly name: string;
  readonly parentId: number | null;
  /** The first tick after which it exists. */
  readonly from: number;
  readonly stepTicks: number[];
  /**
   * Its SITE records: the tick, the text, the index among all SITE records (the notes'), and the record's
   * sequence number.
   */
  readonly siteTicks: number[];
  readonly sites: string[];
  readonly siteNotes: number[];
  readonly siteSeq: number[];
  readonly wakeTicks: number[];
  readonly wakeSeq: number[];
  doneTick: number | null;
  outcome: Outcome;
  /** The index of its DONE record among all (the notes' outcomes). */
  doneNote: number;
  /** Its cancel requests (CANCEL, UNCANCEL, CANCEL_EFFECT records): which one was in effect when. */
  readonly cancels: LoggedCancels;
}

/** Where a live task stands right after a tick, as the log says. */
interface Standing {
  readonly task: TaskLog;
  /** The tick it is right after. */
  readonly tick: number;
  readonly steps: number;
  /** Its last SITE record's index in task.sites, or -1 (never stepped). */
  readonly site: number;
  /** Suspended on an await (not 'ready'). */
  readonly suspended: boolean;
  /** The await's future has completed (a wake since its site), its step not run yet. */
  readonly woken: boolean;
}

const NO_IDS: readonly number[] = [];

/** How many of the sorted `xs` are at most `x`. */
function countUpTo(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The live tasks right after a tick, with the await index among them (AwaitIndex's, from the log). */
export interface RecordedTable {
  readonly tick: number;
  /**
   * Live tasks in creation order, then the finished ones (the last `history` to finish, oldest first): the
   * snapshot's rows.
   */
  readonly rows: TaskSummary[];
  /**
   * A task's detail as the log says it (the row with the await index's awaitedBy; its frames; its await
   * chain), or undefined for a task unknown then.
   */
  detailOf(taskId: number): { task: TaskSummary; frames: string[]; awaitChain: number[]; live: boolean } | undefined;
}

export class RecordedTasks implements RunLogVisitor {
  /** The decode of the log it reads (shared with the run's other reader, when given one). */
  private readonly feed: RunLogFeed;
  private readonly tasks: TaskLog[] = [];
  private readonly byId = new Map<number, TaskLog>();
  /** Tasks in the order they finished, with the tick each did. */
  private readonly finished: TaskLog[] = [];
  private readonly finishedTicks: number[] = [];
  /** Seconds at which each tick began (tick i at index i - 1). */
  private readonly times: number[] = [];
  private lastTick = 0;
  private inTick = false;
  private seq = 0;
  private sitesSeen = 0;
  private donesSeen = 0;
  private stepped: TaskLog | null = null;
  private notes: TableNotes | null = null;
  private readonly noTaskCancels: NoTaskCancels;

  constructor(
    what: string,
    /**
     * Who asked the cancels made from outside the loop, when the recording says (the CLI's signal): as its
     * replays attribute them.
     */
    outsideCancels: OutsideCancels | null = null,
    /** One decode of the run's log for its readers (run-log-feed.ts); default: a decode of its own. */
    feed: RunLogFeed = new RunLogFeed(what),
  ) {
    this.feed = feed;
    feed.join(this);
    this.noTaskCancels = new NoTaskCancels(outsideCancels);
  }

  /** Ticks decoded so far. */
  get ticks(): number {
    return this.lastTick;
  }

  /**
   * Decodes the records written since the last call, up to `upTo` (the end of a tick); `notes`: the table
   * notes so far (they only grow).
   */
  update(events: Uint8Array, upTo = events.length, notes: TableNotes | null = null): void {
    this.notes = notes;
    this.feed.update(events, upTo);
  }

  /** The last tick up to `tick` in which task `id` (its recorded id) stepped; null: none (or no such task). */
  lastStepBy(id: number, tick: number): number | null {
    const steps = this.byId.get(id)?.stepTicks;
    if (steps === undefined) return null;
    const n = countUpTo(steps, tick);
    return n === 0 ? null : steps[n - 1]!;
  }

  /** Seconds at which tick `tick` began (1 .. ticks). */
  timeOf(tick: number): number {
    return this.times[tick - 1]!;
  }

  /**
   * The task table right after tick `tick` (1 .. ticks); `history`: finished tasks listed at most (the past
   * moment's TaskHistory).
   */
  tableAt(tick: number, history: number): RecordedTable {
    if (!Number.isInteger(tick) || tick < 1 || tick > this.lastTick)
      throw new RangeError(`tableAt: tick ${tick} is not within the ${this.lastTick} decoded`);
    const now = this.times[tick - 1]!;
    const live: Standing[] = [];
    for (const t of this.tasks) {
      if (t.from > tick) break;
      if (t.doneTick !== null && t.doneTick <= tick) continue;
      live.push(this.standing(t, tick));
    }
    const standingOf = new Map<TaskLog, Standing>();
    for (const s of live) standingOf.set(s.task, s);
    // awaitedBy as summarizeTasks makes it: in the live tasks' order, what each awaits, then who waits on it directly.
    const awaitedBy = new Map<number, number[]>();
    const addEdge = (awaited: number, by: number): void => {
      let list = awaitedBy.get(awaited);
      if (list === undefined) awaitedBy.set(awaited, (list = []));
      if (!list.includes(by)) list.push(by);
    };
    const direct = new Map<number, Standing[]>();
    for (const s of live) {
      const only = this.directlyAwaited(s);
      if (only !== null) {
        let l = direct.get(only);
        if (l === undefined) direct.set(only, (l = []));
        l.push(s);
      }
    }
    for (const l of direct.values()) l.sort((a, b) => a.task.siteSeq[a.site]! - b.task.siteSeq[b.site]!);
    for (const s of live) {
      for (const x of this.awaitedIds(s)) addEdge(x, s.task.id);
      for (const w of direct.get(s.task.id) ?? []) if (w !== s) addEdge(s.task.id, w.task.id);
    }
    const rows: TaskSummary[] = live.map((s) => this.row(s, now, awaitedBy.get(s.task.id) ?? NO_IDS));
    const ended = countUpTo(this.finishedTicks, tick);
    for (let i = Math.max(0, ended - history); i < ended; i++) rows.push(this.finishedRow(this.finished[i]!));
    // The await index (AwaitIndex): edges only from tasks whose await is still pending.
    const up = new Map<number, Standing[]>();
    for (const s of live) {
      if (!s.suspended || s.woken) continue;
      for (const x of this.awaitedIds(s)) {
        if (x === s.task.id) continue;
        let l = up.get(x);
        if (l === undefined) up.set(x, (l = []));
        l.push(s);
      }
    }
    const indexAwaitedBy = (id: number): number[] => {
      const out = (up.get(id) ?? []).map((s) => s.task.id);
      for (const w of direct.get(id) ?? []) if (w.task.id !== id && !out.includes(w.task.id)) out.push(w.task.id);
      return out;
    };
    const chain = (s: Standing): number[] => {
      const out: number[] = [];
      const seen = new Set<number>([s.task.id]);
      for (let t: Standing | undefined = s, n = 0; t !== undefined && n < 64; n++) {
        if (!t.suspended || t.woken) break;
        const behind: number[] = this.awaitedIds(t).filter((x) => !seen.has(x));
        for (const x of behind) {
          seen.add(x);
          out.push(x);
        }
        const next: TaskLog | undefined = behind.length === 1 ? this.byId.get(behind[0]!) : undefined;
        t = next === undefined ? undefined : standingOf.get(next);
      }
      const queue = [s.task.id];
      while (queue.length > 0 && out.length < 256) {
        const id = queue.shift()!;
        for (const x of up.get(id) ?? []) {
          if (seen.has(x.task.id)) continue;
          seen.add(x.task.id);
          out.push(x.task.id);
          queue.push(x.task.id);
        }
      }
      return out;
    };
    return {
      tick,
      rows,
      detailOf: (taskId) => {
        const t = this.byId.get(taskId);
        if (t === undefined || t.from > tick) return undefined;
        const s = standingOf.get(t);
        if (s === undefined) return { task: this.finishedRow(t), frames: [], awaitChain: [], live: false };
        const task = this.row(s, now, indexAwaitedBy(taskId));
        return { task, frames: task.frames, awaitChain: chain(s), live: true };
      },
    };
  }

  // --- RunLogVisitor --------------------------------------------------------------------

  tick(tick: number, time: number): void {
    this.lastTick = tick;
    this.inTick = true;
    this.times.push(time);
  }

  tickEnd(): void {
    this.inTick = false;
  }

  created(n: number, parent: number, name: string, id: number): void {
    const t: TaskLog = {
      n,
      id,
      name,
      parentId: parent === 0 ? null : this.tasks[parent - 1]!.id,
      from: this.at(),
      stepTicks: [],
      siteTicks: [],
      sites: [],
      siteNotes: [],
      siteSeq: [],
      wakeTicks: [],
      wakeSeq: [],
      doneTick: null,
      outcome: Outcome.RESULT,
      doneNote: -1,
      cancels: new LoggedCancels(),
    };
    this.tasks.push(t);
    this.byId.set(id, t);
  }

  step(n: number): void {
    const t = this.tasks[n - 1]!;
    t.stepTicks.push(this.at());
    this.stepped = t;
  }

  site(site: string): void {
    const index = this.sitesSeen++;
    const t = this.stepped;
    this.stepped = null;
    if (t === null) return;
    t.siteTicks.push(this.at());
    t.sites.push(site);
    t.siteNotes.push(index);
    t.siteSeq.push(++this.seq);
  }

  wake(n: number): void {
    const t = this.tasks[n - 1]!;
    t.wakeTicks.push(this.at());
    t.wakeSeq.push(++this.seq);
  }

  done(n: number, outcome: Outcome): void {
    const t = this.tasks[n - 1]!;
    t.doneTick = this.at();
    t.outcome = outcome;
    t.doneNote = this.donesSeen++;
    this.finished.push(t);
    this.finishedTicks.push(t.doneTick);
  }

  cancel(n: number, by: number): void {
    const t = this.tasks[n - 1]!;
    // (Every cancel by no task is counted: the asked cancels are one per such record.)
    const noTask = by === 0 ? this.noTaskCancels.next(this.inTick, this.notes?.cancels ?? null) : null;
    t.cancels.asked(this.at(), noTask !== null ? noTask.origin : { kind: 'task', taskId: this.tasks[by - 1]!.id });
  }

  uncancel(n: number, k: number): void {
    this.tasks[n - 1]!.cancels.withdrawn(k, this.at());
  }

  cancelEffect(n: number, k: number): void {
    this.tasks[n - 1]!.cancels.endedBy(k);
  }

  // --- internals --------------------------------------------------------------------------

  /** The tick a record counts for: its own, or (outside a tick) the next one's. */
  private at(): number {
    return this.inTick ? this.lastTick : this.lastTick + 1;
  }

  private standing(t: TaskLog, tick: number): Standing {
    const steps = countUpTo(t.stepTicks, tick);
    const site = countUpTo(t.siteTicks, tick) - 1;
    if (steps === 0 || site < 0) return { task: t, tick, steps, site: -1, suspended: false, woken: false };
    const suspended = siteKind(t.sites[site]!) !== 'ready';
    const wakes = countUpTo(t.wakeTicks, tick);
    const woken = suspended && wakes > 0 && t.wakeSeq[wakes - 1]! > t.siteSeq[site]!;
    return { task: t, tick, steps, site, suspended, woken };
  }

  /** The ids of the tasks a suspended task's await stands for (the notes'), else none. */
  private awaitedIds(s: Standing): readonly number[] {
    if (!s.suspended) return NO_IDS;
    return this.notes?.awaitTasks?.[s.task.siteNotes[s.site]!] ?? NO_IDS;
  }

  /** The task a suspended task awaits itself (its await is that Task: it is among the task's waiters), or null. */
  private directlyAwaited(s: Standing): number | null {
    if (!s.suspended || siteKind(s.task.sites[s.site]!) !== 'task') return null;
    const ids = this.awaitedIds(s);
    return ids.length === 1 ? ids[0]! : null;
  }

  private row(s: Standing, now: number, awaitedBy: readonly number[]): TaskSummary {
    const t = s.task;
    const state: TaskState = s.suspended ? 'suspended' : 'scheduled';
    let awaiting: AwaitInfo | null = null;
    if (s.suspended) {
      const note = t.siteNotes[s.site]!;
      awaiting = { kind: siteKind(t.sites[s.site]!), detail: this.notes?.details?.[note] ?? '' };
      const ids = this.notes?.awaitTasks?.[note];
      if (ids !== undefined && ids.length === 1) awaiting.taskId = ids[0]!;
    }
    const row: TaskSummary = {
      id: t.id,
      name: t.name,
      state,
      steps: s.steps,
      busyMs: null,
      sinceResumedMs: s.steps === 0 ? null : Math.round((now - this.times[t.stepTicks[s.steps - 1]! - 1]!) * 1000),
      createdBy: t.parentId,
      awaiting,
      awaitedBy: awaitedBy as number[],
      frames: s.site < 0 ? [] : (siteChain(t.sites[s.site]!)?.frames ?? []),
    };
    const cancel = t.cancels.inEffectAt(s.tick, false);
    if (cancel !== null) row.cancelledBy = cancel.origin;
    return row;
  }

  private finishedRow(t: TaskLog): TaskSummary {
    const end = t.doneTick!;
    const last = t.stepTicks.length === 0 ? null : t.stepTicks[t.stepTicks.length - 1]!;
    const state: TaskState =
      t.outcome === Outcome.RESULT ? 'done' : t.outcome === Outcome.EXCEPTION ? 'failed' : 'cancelled';
    const row: TaskSummary = {
      id: t.id,
      name: t.name,
      state,
      steps: t.stepTicks.length,
      busyMs: null,
      sinceResumedMs: last === null ? null : Math.round((this.times[end - 1]! - this.times[last - 1]!) * 1000),
      createdBy: t.parentId,
      awaiting: null,
      awaitedBy: NO_IDS as number[],
      frames: [],
      outcome: this.notes?.outcomes?.[t.doneNote] ?? (state === 'done' ? 'returned' : state),
    };
    const cancel = t.cancels.inEffectAt(end, state === 'cancelled');
    if (cancel !== null) row.cancelledBy = cancel.origin;
    else if (state === 'cancelled') row.cancelledBy = { kind: 'unknown' };
    return row;
  }
}
