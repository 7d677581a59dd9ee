// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// PastMoment: a past tick of a run, as the views ask about it. It wraps a replayed loop
// paused right after that tick (run-rewind.ts) and answers the same queries as the run's
// present (run.ts): snapshot, taskDetail with frames and locals, variables, the await graph,
// the crawl's progress, and the lints the run had reported by then.
//
// Invariants: it only reads the paused loop (nothing it does runs a tick); snapshots are
// always full (a client's `since` belongs to the present's versions); task ids are the
// run's own (the replay numbers its tasks as the recording did).

import type { Lint, Snapshot, TaskDetail, TaskSummary } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { EventLoop } from '../../loop';
import type { Task } from '../../task';
import type { Crawler } from '../../crawler/crawler';
import { buildAwaitGraph } from '../../inspect/await-graph';
import { generatorReader } from '../../inspect/generator-reader';
import type { TaskHistory } from '../../inspect/history';
import type { TaskRecorder } from '../../inspect/task-recorder';
import { AwaitIndex, summarizeTasks } from '../../inspect/task-summaries';
import { CrawlProgressCounter } from './crawl-progress';
import { SnapshotTracker } from './snapshots';
import { liveTaskDetail } from './task-detail';
import type { CreationSites } from './creation-sites';
import { VariableStore } from './variables';

export class PastMoment {
  readonly variables = new VariableStore(generatorReader());
  private index: AwaitIndex | null = null;
  private readonly snapshots = new SnapshotTracker();

  constructor(
    readonly runId: number,
    /** The tick this moment is right after. */
    readonly tick: number,
    readonly loop: EventLoop,
    /**
     * The replayed crawl's crawler (null: none, or not started yet: a moment made before the program starts,
     * for a line stop in its first tick, reads it when asked).
     */
    private readonly crawlerOf: () => Crawler | null,
    private readonly recorder: TaskRecorder | null,
    /** Tasks finished by this tick (their summaries). */
    private readonly finished: TaskHistory<TaskSummary>,
    /**
     * The lints the run reported (the present's, or those saved with an opened recording): those by this tick
     * are shown.
     */
    private readonly lintsThen: () => Lint[],
    /**
     * The moment's "now" for the timings: the recorded time its tick began (seconds), as the log-side table
     * (recorded-tasks.ts) counts too.
     */
    private readonly now: number,
    /** Where the replay created each task (the live run's creation sites, as the replay runs the same code). */
    private readonly creationSites: CreationSites,
  ) {}

  get crawler(): Crawler | null {
    return this.crawlerOf();
  }

  liveTasks(): Task<unknown>[] {
    return this.loop.allTasks();
  }

  liveTask(taskId: number, method: string): Task<unknown> {
    for (const t of this.loop.allTasks()) if (t.id === taskId) return t;
    const past = this.finished.get(taskId);
    if (past !== undefined)
      throw new ProtocolError(
        `${method}: at tick ${this.tick} task #${taskId} had finished (${past.state})`,
        'taskFinished',
      );
    throw new ProtocolError(`${method}: no task #${taskId} at tick ${this.tick} of run ${this.runId}`, 'unknownTask');
  }

  snapshot(): Snapshot {
    const tasks = summarizeTasks(this.liveTasks(), { recorder: this.recorder, now: this.now });
    for (const s of this.finished.list()) tasks.push(s);
    const crawler = this.crawler;
    const progress = crawler === null ? null : new CrawlProgressCounter(crawler).progress(crawler.elapsed());
    return this.snapshots.snapshot(undefined, tasks, { tick: this.tick, paused: true, progress });
  }

  taskDetail(taskId: number, locals: boolean): TaskDetail {
    const task = this.loop.allTasks().find((t) => t.id === taskId);
    if (task === undefined) {
      const past = this.finished.get(taskId);
      if (past === undefined)
        throw new ProtocolError(
          `taskDetail: no task #${taskId} at tick ${this.tick} of run ${this.runId}`,
          'unknownTask',
        );
      return { task: past, frames: [], awaitChain: [], createdAt: null, traceback: null };
    }
    this.index ??= new AwaitIndex(this.liveTasks());
    return liveTaskDetail(task, {
      recorder: this.recorder,
      index: this.index,
      variables: this.variables,
      locals,
      createdAt: this.creationSites.siteOf(task),
      now: this.now,
    });
  }

  graph(): ReturnType<typeof buildAwaitGraph> {
    return buildAwaitGraph(this.loop);
  }

  lints(): Lint[] {
    return this.lintsThen().filter((l) => l.tick <= this.tick);
  }
}
