// Keeps the panel's TimelineModel current: the whole timeline when a run is first shown, then
// only what is new (`sinceTick`) while the run is live, and once more when it has finished.
// A run that is not recorded answers with an error: the feed stops asking and keeps the
// reason (the timeline view says it).
//
// Invariants: one request in flight at a time (the shared CoalescingPoll); answers for a run
// no longer shown are dropped (a reset bumps the generation); polling stops once the model
// holds a finished run.

import { CoalescingPoll } from '../protocol/coalescing-poll';
import { narrowTimeline, type PanelMethods, type RunStatus } from '../protocol/webview-protocol';
import type { TimelineModel } from './state/timeline-model';

/** What the feed asks of the extension (the panel's client does it). */
export interface TimelineSource {
  request(method: 'timeline', params: PanelMethods['timeline']['params']): Promise<unknown>;
}

const LIVE_POLL_MS = 700;

export class TimelineFeed {
  private generation = 0;
  private readonly poll = new CoalescingPoll(() => this.fetch());
  private runId: number | null = null;
  private phase: RunStatus['phase'] = 'idle';
  /** Why the run has no timeline (the host's refusal), null while it has or may have one. */
  unavailable: string | null = null;

  constructor(
    private readonly client: TimelineSource,
    private readonly model: TimelineModel,
    private readonly changed: () => void,
  ) {}

  /** A new run (or none): forget the timeline shown. */
  reset(): void {
    this.generation++;
    this.model.clear();
    this.unavailable = null;
    this.poll.cancel();
  }

  /** The run's status changed: follow its run and phase. */
  status(s: RunStatus): void {
    if (s.runId !== this.runId) {
      this.runId = s.runId;
      this.reset();
    }
    this.phase = s.phase;
    if (s.runId !== null && (s.phase === 'running' || s.phase === 'paused' || s.phase === 'finished'))
      this.fetchSoon(0);
  }

  private live(): boolean {
    return this.phase === 'running' || this.phase === 'paused';
  }

  /** Whether there is nothing (more) to fetch: no timeline, or a finished run's whole one. */
  private done(): boolean {
    return this.unavailable !== null || (this.model.finished && !this.live());
  }

  private fetchSoon(ms: number): void {
    if (!this.done()) this.poll.schedule(ms);
  }

  /** One fetch; the delay before the next (null: none until the status asks). */
  private async fetch(): Promise<number | null> {
    if (this.done()) return null;
    const gen = this.generation;
    try {
      const since = this.model.sinceTick;
      const raw: unknown = await this.client.request('timeline', since === undefined ? {} : { sinceTick: since });
      if (gen !== this.generation) return null;
      const t = narrowTimeline(raw);
      if (t === null) throw new Error('the extension sent a malformed timeline');
      this.model.apply(t);
      this.changed();
    } catch (e) {
      if (gen !== this.generation) return null;
      this.unavailable = e instanceof Error ? e.message : String(e);
      this.changed();
      return null;
    }
    if (this.live() || (this.phase === 'finished' && !this.model.finished)) return LIVE_POLL_MS;
    return null;
  }
}
