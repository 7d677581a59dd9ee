// Runs on a runtime host's main thread (a live host's run of a crawl).
//
// CrawlEvents: what a live crawl tells its clients as it goes: `progress` events (the counts,
// and the pages finished since the last one in `recent`), and each URL the crawler records as
// failed: kept with the run's recording when it is recorded, and with the URL-failed break on
// (setExceptionBreaks' `urlFailed`) an `exception` event and a stop after the tick.
//
// Invariants:
// - Each page finished is listed in exactly one progress event's `recent` (an event goes out
//   early when RECENT_PAGES are waiting); a progress event goes out only when something changed,
//   or when forced (the end of the run).
// - A URL failure stops the loop only with the break on; it is recorded whether or not.

import type { CrawledPage, CrawlProgress } from '../../../protocol/host-protocol';
import type { EventLoop } from '../../loop';
import type { Crawler } from '../../crawler/crawler';
import type { FetchStatistic } from '../../crawler/report';
import type { LoopController, PauseInfo } from '../../inspect/loop-control';
import { tracebackFromError } from '../../inspect/traces';
import { CrawlProgressCounter } from './crawl-progress';
import type { RunRecording } from './run-recording';
import type { Emit } from './run-services';
import { urlFailureNow } from './url-failures';
import { realNow } from '../../outside-values';

/** Pages listed in one progress event's `recent`. */
const RECENT_PAGES = 100;

/** What the crawl's events need of its run. */
export interface CrawlRun {
  readonly loop: EventLoop;
  readonly controller: LoopController;
  readonly crawler: Crawler | null;
  /** Stop when the crawler records a URL as failed. */
  readonly breakOnUrlFailed: boolean;
  /** The run's recording: a failed URL is kept with it (`urlFailures`) when the run records as it goes. */
  readonly recording: Pick<RunRecording, 'recorder' | 'urlFailures'>;
}

export class CrawlEvents {
  private lastProgressKey = '';
  private progressCounter: CrawlProgressCounter | null = null;
  private recent: CrawledPage[] = [];
  private readonly startedAt = realNow();

  constructor(
    private readonly run: CrawlRun,
    private readonly emit: Emit,
    /** The `exception` events' limit (shared with the task table's: RunTasks.exceptionEvents). */
    private readonly exceptionEvents: { allow(): boolean },
  ) {}

  /**
   * A URL finished: it goes into the next progress event's `recent` pages. With the URL-failed break on (an
   * extension of setExceptionBreaks the
   * debug adapter asks for), a URL the crawler records as failed stops the loop after this
   * tick like a failed task: the worker running now is the task, the error (caught by the
   * crawler, the task goes on) gives the traceback, sent first as an `exception` event.
   */
  onStatistic(stat: FetchStatistic): void {
    // For the next progress event's `recent` list (oldest first); a full list goes out at once,
    // so every page finished is listed in exactly one event.
    const page: CrawledPage = { url: stat.url, status: stat.status };
    if (stat.title !== undefined) page.title = stat.title;
    if (stat.exception !== null) page.error = stat.exception;
    this.recent.push(page);
    if (this.recent.length >= RECENT_PAGES) this.emitProgress(true);
    const run = this.run;
    const recorded = run.recording.recorder !== null;
    const exception = stat.exception;
    if ((!run.breakOnUrlFailed && !recorded) || exception === null || run.crawler === null) return;
    const { mark, error, task, who } = urlFailureNow({ ...stat, exception }, run.crawler, run.loop);
    if (recorded) run.recording.urlFailures.add(mark);
    if (!run.breakOnUrlFailed) return;
    const traceback = tracebackFromError(error, `Coroutine traceback of ${who}, fetching ${stat.url}`);
    if (this.exceptionEvents.allow()) this.emit('exception', { taskId: task?.id ?? 0, traceback });
    const info: Omit<PauseInfo, 'tick'> = { reason: 'exception', description: mark.description, url: stat.url };
    if (task !== null) info.taskId = task.id;
    run.controller.stopAfterTick(info);
  }

  /** The crawl's progress now; null: the run is no crawl. */
  progress(): CrawlProgress | null {
    const c = this.run.crawler;
    if (c === null) return null;
    this.progressCounter ??= new CrawlProgressCounter(c);
    return this.progressCounter.progress(this.crawlerSeconds());
  }

  private crawlerSeconds(): number {
    try {
      return this.run.crawler!.elapsed();
    } catch {
      return (realNow() - this.startedAt) / 1000;
    }
  }

  /** Sends a progress event when something changed since the last one (or `force`). */
  emitProgress(force: boolean): void {
    const p = this.progress();
    if (p === null) return;
    const key = `${p.done}|${p.queued}|${p.inFlight}|${p.errors}|${p.seen}`;
    if (!force && key === this.lastProgressKey && this.recent.length === 0) return;
    this.lastProgressKey = key;
    if (this.recent.length > 0) {
      p.recent = this.recent;
      this.recent = [];
    }
    this.emit('progress', p);
  }
}
