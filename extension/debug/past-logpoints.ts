// PastLogpoints: logpoints in the past. A logpoint set while the session shows a recorded run
// that is not running (a finished run, an opened recording, a paused live run) lists every
// execution of its line over the whole run (the host's pastLogpointHits, a replay): one Debug
// Console line per hit in run order (tick, time, task, the live logpoint's text, source/line,
// a link to that moment: coroscope/goToLogpointHit), and the event coroscope/logpointHits with every hit
// of the logpoints set now (the panel's timeline marks: a logpoint removed sends the list without its hits).
//
// Invariants: listing never changes the run; a logpoint is listed once per run as set (a file
// set again lists only new or changed ones); a link names a hit of the session's current run; a
// refused list (not recorded, a past line held) says why in the console, once per logpoint.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { Event } from '@vscode/debugadapter';
import { basename } from 'node:path';
import type { Breakpoint, LogpointHit } from '../../protocol/host-protocol';
import type { PastSearch } from './past-search';
import type { PositionEvents } from './position-events';
import type { SessionCore } from './session-core';
import { message } from './stop-events';

export const LOGPOINT_HIT_REQUEST = 'coroscope/goToLogpointHit';
export const LOGPOINT_HITS_EVENT = 'coroscope/logpointHits';

/**
 * The body of `coroscope/logpointHits`: every hit listed of the logpoints set now (in this run), each with its
 * index for `coroscope/goToLogpointHit`. Each event replaces the one before.
 */
export interface LogpointHitsBody {
  hits: Array<LogpointHit & { hit: number }>;
}

/** A logpoint's identity as set: the same line, message, condition and hit condition list the same hits. */
function keyOf(b: Breakpoint): string {
  return JSON.stringify([b.file, b.line, b.logMessage, b.condition ?? '', b.hitCondition ?? '']);
}

/** One hit as its Debug Console line says it (before any link). */
export function hitLine(h: LogpointHit): string {
  const who = h.taskId === null ? 'no task' : `${h.task ?? 'task'} #${h.taskId}`;
  return `⟲ tick ${h.tick} +${h.time.toFixed(1)} ms ${who}: ${h.message}`;
}

export class PastLogpoints {
  /** The hits listed in this run, by the index a link names; with the logpoint each is of. */
  private hits: Array<{ hit: LogpointHit; logpoint: Breakpoint }> = [];
  /** The logpoints listed in this run (keyOf), per file. */
  private listed = new Map<string, Set<string>>();
  private run: unknown = null;

  constructor(
    private readonly core: SessionCore,
    private readonly past: PastSearch,
    private readonly positionEvents: PositionEvents,
    /** The link a Debug Console line carries to go to hit `index` (null: none, e.g. outside VS Code). */
    private readonly linkOf: ((index: number) => string) | null = null,
  ) {}

  /** Whether the session stands where the past can be listed: a recorded run shown, not running. */
  private listable(): boolean {
    if (this.core.phase === 'atEnd') return true;
    return this.core.phase === 'running' && this.core.position.kind !== 'running';
  }

  /** The logpoints of `file` as just set: those new since listed, listed (in the console, and to the panel). */
  async list(file: string, breakpoints: readonly Breakpoint[]): Promise<void> {
    if (this.core.run !== this.run) {
      this.run = this.core.run;
      this.hits = [];
      this.listed.clear();
    }
    const logpoints = breakpoints.filter((b) => b.logMessage !== undefined && b.logMessage !== '');
    const before = this.listed.get(file) ?? new Set<string>();
    const now = new Set(logpoints.map(keyOf));
    this.listed.set(file, now);
    const fresh = logpoints.filter((b) => !before.has(keyOf(b)));
    const removed = [...before].some((k) => !now.has(k));
    if (fresh.length === 0 || !this.listable()) {
      if (removed) this.sendHits();
      return;
    }
    const host = this.core.host;
    if (host === null || !host.isAlive()) {
      if (removed) this.sendHits();
      return;
    }
    let found: { hits: LogpointHit[]; ticks: number };
    try {
      found = await host.endpoint.request('pastLogpointHits', { logpoints: fresh });
    } catch (e) {
      const why = message(e);
      if (!/not recorded/.test(why)) this.core.output(`Coroscope: the logpoint's past hits cannot be listed: ${why}`);
      if (removed) this.sendHits();
      return;
    }
    for (const [i, lp] of fresh.entries()) {
      const mine = found.hits.filter((h) => h.logpoint === i);
      this.core.output(
        `Coroscope: logpoint at ${basename(lp.file)}:${lp.line} ran ${mine.length} time${mine.length === 1 ? '' : 's'} in the recorded run (ticks 1..${found.ticks}, replayed)${mine.length > 0 ? ':' : ''}`,
      );
    }
    for (const h of found.hits) {
      const index = this.hits.length;
      this.hits.push({ hit: h, logpoint: fresh[h.logpoint]! });
      const link = this.linkOf?.(index);
      const out: DebugProtocol.OutputEvent = {
        seq: 0,
        type: 'event',
        event: 'output',
        body: {
          category: 'console',
          output: `${hitLine(h)}${link === undefined ? '' : `  ${link}`}\n`,
          source: { name: basename(h.file), path: this.core.convertDebuggerPathToClient(h.file) },
          line: this.core.convertDebuggerLineToClient(h.line),
        },
      };
      this.core.sendEvent(out);
    }
    this.sendHits();
  }

  /** `coroscope/logpointHits` with every hit listed of the logpoints set now (a removed one's left out). */
  private sendHits(): void {
    const body: LogpointHitsBody = { hits: [] };
    for (const [index, { hit, logpoint }] of this.hits.entries())
      if (this.listed.get(logpoint.file)?.has(keyOf(logpoint)) === true) body.hits.push({ ...hit, hit: index });
    this.core.sendEvent(new Event(LOGPOINT_HITS_EVENT, body));
  }

  /** `coroscope/goToLogpointHit` {hit}: the debugger (and with it the panel) goes to that hit, replayed. */
  goTo(response: DebugProtocol.Response, args: unknown): void {
    this.core.serve(response, async () => {
      const index = typeof args === 'object' && args !== null ? (args as { hit?: unknown }).hit : undefined;
      const listed = typeof index === 'number' ? this.hits[index] : undefined;
      if (listed === undefined || this.core.run !== this.run)
        throw new Error(`${LOGPOINT_HIT_REQUEST}: no logpoint hit ${JSON.stringify(index)} listed in this run`);
      const { hit, logpoint } = listed;
      const now = await this.past.momentShown();
      const landing = await this.past.searchHit('back', now, {
        logpointHit: { logpoint, tick: hit.tick, ordinal: hit.ordinal },
      });
      if (landing.landed !== 'line') throw new Error(`${LOGPOINT_HIT_REQUEST}: the hit was not found again`);
      this.core.sendResponse(response);
      this.positionEvents.showHit(landing, landing.taskId ?? 0);
    });
  }
}
