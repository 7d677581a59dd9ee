// Runs on a runtime host's main thread (live or line replay), and in the CLI's process (runtime/cli).
//
// UrlFailures: the URLs a recorded crawl recorded as failed, each with the tick it failed in,
// the task that fetched it and the words of the live `urlFailed` stop. The log of a recording
// holds where tasks suspended, not what the crawler concluded (a failed URL is caught by its
// worker: no task fails, no mark of the timeline), so a run keeps them beside its recording
// (metadata `urlFailures`, read back by savedUrlFailures) and its timeline gives them out: a
// Reverse Continue with the `urlFailed` filter lands on them in the past as the live run
// stopped on them.
//
// Invariants: failures are kept in tick order (a run appends them as they come); what is read
// back from a file is checked field by field (anything else is left out, never an exception).

import type { UrlFailureMark } from '../../../protocol/host-protocol';
import type { EventLoop } from '../../loop';
import type { Task } from '../../task';
import type { Crawler } from '../../crawler/crawler';
import type { FetchStatistic } from '../../crawler/report';
import { errorText } from '../../inspect/traces';

/** How the live stop and the past's landing word a failed URL. */
export function urlFailedDescription(who: string, url: string, error: string): string {
  return `${who} failed to fetch ${url}: ${error}`;
}

/**
 * A URL failure as the crawler has just recorded it: its mark, the error it caught, and the task that fetched
 * it (null: a callback).
 */
export interface UrlFailureNow {
  readonly mark: UrlFailureMark;
  readonly error: unknown;
  readonly task: Task<unknown> | null;
  /** The task (or "a callback") in the live stop's words. */
  readonly who: string;
}

/**
 * The failure `stat` (an exception recorded by the crawler's onStatistic) reports, in the tick
 * and task running now: the error is the one the crawler caught for that URL (among its last
 * few), else the statistic's text. The host's run and the CLI's `crawl --record` mark alike.
 */
export function urlFailureNow(
  stat: FetchStatistic & { exception: string },
  crawler: Crawler,
  loop: EventLoop,
): UrlFailureNow {
  const errors = crawler.errors;
  let error: unknown = stat.exception;
  for (let i = errors.length - 1; i >= 0 && i >= errors.length - 4; i--) {
    if (errors[i]!.url === stat.url) {
      error = errors[i]!.error;
      break;
    }
  }
  const task = loop.currentTask();
  const who = task === null ? 'a callback' : `Task #${task.id} ${JSON.stringify(task.name)}`;
  // The statistic's text is already the error's words ("HttpProtocolError: bad chunk").
  const description = urlFailedDescription(who, stat.url, typeof error === 'string' ? error : errorText(error));
  const tick = loop.tickCount();
  return {
    mark: task === null ? { tick, url: stat.url, description } : { tick, taskId: task.id, url: stat.url, description },
    error,
    task,
    who,
  };
}

export class UrlFailures {
  private readonly marks: UrlFailureMark[];

  constructor(marks: readonly UrlFailureMark[] = []) {
    this.marks = [...marks];
  }

  add(mark: UrlFailureMark): void {
    this.marks.push(mark);
  }

  /** As a recording's metadata keeps them. */
  all(): readonly UrlFailureMark[] {
    return this.marks;
  }

  /** Those after `sinceTick` (and up to `toTick`, the ticks a timeline covers); `taskId`: that task's only. */
  between(sinceTick: number, toTick: number, taskId?: number): UrlFailureMark[] {
    return this.marks.filter(
      (m) => m.tick > sinceTick && m.tick <= toTick && (taskId === undefined || m.taskId === taskId),
    );
  }
}

/** The failed URLs saved in a recording's metadata, each checked field by field. */
export function savedUrlFailures(raw: unknown): UrlFailureMark[] {
  if (!Array.isArray(raw)) return [];
  const out: UrlFailureMark[] = [];
  for (const x of raw as unknown[]) {
    if (typeof x !== 'object' || x === null) continue;
    const m = x as Record<string, unknown>;
    if (!Number.isSafeInteger(m.tick) || typeof m.url !== 'string' || typeof m.description !== 'string') continue;
    const mark: UrlFailureMark = { tick: m.tick as number, url: m.url, description: m.description };
    if (Number.isSafeInteger(m.taskId)) mark.taskId = m.taskId as number;
    out.push(mark);
  }
  return out;
}
