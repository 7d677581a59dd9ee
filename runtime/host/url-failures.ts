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

import type { UrlFailureMark } from '../../protocol/host-protocol';

/** How the live stop and the past's landing word a failed URL. */
export function urlFailedDescription(who: string, url: string, error: string): string {
  return `${who} failed to fetch ${url}: ${error}`;
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
    return this.marks.filter((m) => m.tick > sinceTick && m.tick <= toTick && (taskId === undefined || m.taskId === taskId));
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
