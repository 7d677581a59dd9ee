// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// LineBreakpoints: the line breakpoints the client set, file by file, as V8 breakpoints at the generated position
// of every loaded script whose source map covers the file (LoadedScripts); a line without code slides to the
// next one with code. Conditions go to V8; hit conditions are counted here (hit-count.ts); a logpoint is a
// condition that logs and is false. Invariants: setting a file's breakpoints replaces its previous ones (their
// V8 breakpoints removed); a file not loaded yet is resolved when a script covering it is parsed.

import { readFileSync } from 'node:fs';
import type { ArmedBreakpoint, Breakpoint, BreakpointStatus } from '../../../protocol/host-protocol';
import { HitCount, hitConditionOf, HitsSince, type BreakpointsSetAt } from '../../inspect/hit-count';
import type { CdpLocation } from './cdp-shapes';
import { logpointTemplate, lookedAt, mayReadOutside } from './logpoint-message';
import { liveOnly } from './line-steps';
import type { LoadedScripts } from './loaded-scripts';

export interface LineBreakpointEntry {
  readonly file: string;
  readonly line: number;
  /** As the client set it (a breakpoint search of the past arms it again: armedBreakpoints). */
  readonly spec: Breakpoint;
  readonly condition: string | null;
  /** Its hits, against its hit condition (hit-count.ts). */
  readonly hits: HitCount;
  readonly cdpIds: string[];
  /**
   * A hit condition set while the run went: its hits count since then (armedBreakpoints tells a search of the
   * past).
   */
  counting: HitsSince | null;
  /** A logpoint with a hit condition: the key its hits are counted by on the main thread (logHit); else null. */
  readonly logKey: number | null;
}

export class LineBreakpoints {
  private readonly wanted = new Map<string, LineBreakpointEntry[]>();
  private readonly byCdpId = new Map<string, LineBreakpointEntry>();
  /** The logpoints with a hit condition set, by their main thread key (logHit). */
  private readonly byLogKey = new Map<number, LineBreakpointEntry>();
  /** Placed without a V8 breakpoint of their own: at the place of another of their file's, which stops there. */
  private readonly sharing = new Set<LineBreakpointEntry>();

  constructor(
    private readonly post: <T>(method: string, params: object) => Promise<T>,
    private readonly enabled: Promise<void>,
    private readonly scripts: LoadedScripts,
  ) {}

  /** The breakpoint a V8 breakpoint id stands for (undefined: not one of the client's). */
  entryOf(cdpId: string): LineBreakpointEntry | undefined {
    return this.byCdpId.get(cdpId);
  }

  /** A script was parsed: a program loaded after its breakpoints were set gets them now. */
  scriptParsed(scriptId: string): void {
    for (const [file, entries] of this.wanted) {
      if (entries.some((e) => e.cdpIds.length === 0 && !this.sharing.has(e)) && this.scripts.covers(scriptId, file))
        void this.setLineBreakpoints(
          file,
          entries.map((e) => ({ file, line: e.line })),
          entries,
        );
    }
  }

  /** Sets the line breakpoints of `file` (replacing its previous ones). */
  async setLineBreakpoints(
    file: string,
    breakpoints: readonly Breakpoint[],
    reuse: LineBreakpointEntry[] | null = null,
    setAt: BreakpointsSetAt = 'start',
  ): Promise<BreakpointStatus[]> {
    await this.enabled;
    for (const old of this.wanted.get(file) ?? []) {
      this.sharing.delete(old);
      if (old.logKey !== null && !(reuse ?? []).includes(old)) this.byLogKey.delete(old.logKey);
      for (const id of old.cdpIds) {
        this.byCdpId.delete(id);
        await this.post('Debugger.removeBreakpoint', { breakpointId: id }).catch(() => undefined);
      }
      old.cdpIds.length = 0;
    }
    let text: string[] = [];
    try {
      text = readFileSync(file, 'utf8').split('\n');
    } catch {
      // Checked below: no line has code.
    }
    const entries: LineBreakpointEntry[] = [];
    const statuses: BreakpointStatus[] = [];
    // V8 keeps one breakpoint a position: a line slid onto another's place stops by that one.
    const placedAt = new Map<string, LineBreakpointEntry>();
    for (const [i, bp] of breakpoints.entries()) {
      const hitCondition = hitConditionOf(bp.hitCondition);
      if ('refused' in hitCondition) {
        statuses.push({ file, line: bp.line, verified: false, message: hitCondition.refused });
        continue;
      }
      const hit = hitCondition.test;
      const logKey = isLogpoint(bp) && hit !== null ? nextLogpointKey++ : null;
      const entry: LineBreakpointEntry = reuse?.[i] ?? {
        file,
        line: bp.line,
        spec: bp,
        condition: conditionOf(bp, logKey),
        hits: new HitCount(hit),
        cdpIds: [],
        counting: hit === null ? null : HitsSince.from(setAt),
        logKey,
      };
      if (entry.logKey !== null) this.byLogKey.set(entry.logKey, entry);
      entries.push(entry);
      let placedLine: number | null = null;
      let sharedWith: LineBreakpointEntry | null = null;
      for (const at of this.scripts.generatedLocations(file, bp.line, text.length)) {
        const place = `${at.url}:${at.line0}:${at.column0}`;
        const other = placedAt.get(place);
        if (other !== undefined) {
          sharedWith = other;
          placedLine = at.line;
          continue;
        }
        const params: Record<string, unknown> = { url: at.url, lineNumber: at.line0, columnNumber: at.column0 };
        params.condition = liveOnly(entry.condition);
        try {
          const r = await this.post<{ breakpointId: string; locations: CdpLocation[] }>(
            'Debugger.setBreakpointByUrl',
            params,
          );
          entry.cdpIds.push(r.breakpointId);
          this.byCdpId.set(r.breakpointId, entry);
          placedAt.set(place, entry);
          placedLine = at.line;
        } catch {
          // Already set at that position by another entry: keep going.
        }
      }
      if (placedLine !== null && entry.cdpIds.length === 0 && sharedWith !== null) {
        this.sharing.add(entry);
        statuses.push({
          file,
          line: placedLine,
          verified: true,
          message: `at the place of line ${sharedWith.line}'s breakpoint, which stops there`,
        });
      } else if (placedLine !== null)
        statuses.push(
          placedLine === bp.line
            ? { file, line: bp.line, verified: true }
            : {
                file,
                line: placedLine,
                verified: true,
                message: `moved to line ${placedLine}, the next line with code`,
              },
        );
      else
        statuses.push({
          file,
          line: bp.line,
          verified: false,
          message:
            text.length === 0
              ? `cannot read ${file}`
              : `no loaded code on ${file}:${bp.line} (set again once its module is loaded)`,
        });
    }
    this.wanted.set(file, entries);
    return statuses;
  }

  /**
   * A new run (a launch, a recording opened): the breakpoints set count its hits from its start, as the
   * loop's own do.
   */
  newRun(): void {
    for (const entries of this.wanted.values()) {
      for (const e of entries) {
        e.hits.reset();
        e.counting = null;
      }
    }
  }

  /**
   * The main thread counted a hit of logpoint `key` in tick `tick` (its hit condition's count, logHit): noted
   * while it may be the tick the logpoint was set in, so the past counts its hits as live did (HitsSince).
   */
  noteLogHit(key: number, tick: number): void {
    const counting = this.byLogKey.get(key)?.counting;
    if (counting?.open === true) counting.noteTick(tick);
  }

  /** The logpoints set, as a forward step in the past arms them (armedLogpoints). */
  armedLogpoints(): ArmedBreakpoint[] {
    return armedLogpoints([...this.wanted.values()].flat());
  }

  /** The line breakpoints set, as a search of the recorded past arms them: logpoints left out (they never stop). */
  armedBreakpoints(): ArmedBreakpoint[] {
    const out: ArmedBreakpoint[] = [];
    for (const entries of this.wanted.values()) {
      for (const e of entries) {
        if (e.spec.logMessage !== undefined && e.spec.logMessage !== '') continue;
        const bp: ArmedBreakpoint = { file: e.file, line: e.line };
        if (e.spec.condition !== undefined && e.spec.condition.trim() !== '') bp.condition = e.spec.condition;
        if (e.spec.hitCondition !== undefined && e.spec.hitCondition.trim() !== '')
          bp.hitCondition = e.spec.hitCondition;
        const since = e.counting?.offset() ?? null;
        if (bp.hitCondition !== undefined && since !== null) bp.hitsSince = since;
        out.push(bp);
      }
    }
    return out;
  }
}

/**
 * The logpoints set, as a forward step in the past arms them (it prints their messages on its way, as the live
 * step does). A hit condition is counted by the search as the main thread counted it live (logHit): from the
 * run's start, or since the tick it was set in (`hitsSince`), so the step's scan starts where that count does.
 */
export function armedLogpoints(entries: Iterable<LineBreakpointEntry>): ArmedBreakpoint[] {
  const out: ArmedBreakpoint[] = [];
  for (const e of entries) {
    const log = e.spec.logMessage;
    if (log === undefined || log === '') continue;
    const bp: ArmedBreakpoint = { file: e.file, line: e.line, logMessage: log };
    if (e.spec.condition !== undefined && e.spec.condition.trim() !== '') bp.condition = e.spec.condition;
    if (e.spec.hitCondition !== undefined && e.spec.hitCondition.trim() !== '') {
      bp.hitCondition = e.spec.hitCondition;
      const since = e.counting?.offset() ?? null;
      if (since !== null) bp.hitsSince = since;
    }
    out.push(bp);
  }
  return out;
}

/** The key of the next logpoint with a hit condition set (its hits counted from 0 by the main thread). */
let nextLogpointKey = 1;

function isLogpoint(bp: Breakpoint): boolean {
  return bp.logMessage !== undefined && bp.logMessage !== '';
}

/**
 * A V8 breakpoint condition for a breakpoint: its own condition, and a logpoint's printing (which never stops);
 * `logKey`: a logpoint's hit condition is counted on the main thread by that key (a new one each time it is set).
 */
function conditionOf(bp: Breakpoint, logKey: number | null): string | null {
  const cond = bp.condition !== undefined && bp.condition.trim() !== '' ? bp.condition : null;
  // Its reads of random numbers and clocks are the debugger's (outside-values.ts), not the recorded program's.
  if (!isLogpoint(bp) || bp.logMessage === undefined)
    return cond !== null && mayReadOutside(cond, undefined) ? lookedAt(cond) : cond;
  const hits =
    logKey !== null && bp.hitCondition !== undefined
      ? `globalThis.__coroscopeLine.logHit(${logKey}, ${JSON.stringify(bp.hitCondition)}) && `
      : '';
  const log = `${hits}(console.log(${logpointTemplate(bp.logMessage)}), false)`;
  const whole = cond === null ? log : `(${cond}) && ${log}`;
  return mayReadOutside(bp.condition, bp.logMessage) ? lookedAt(whole) : whole;
}
