// FieldWrites: "Go to Last Change" (and Go to Next Change after a wait) on an object's field written by ANY
// task (issue 28). One replay of the run before the stop (pastLogpointHits) runs logpoints naming
// objects by an identity kept in that replay: on the lines of the stack's files assigning `<object>.<field>`,
// and on the watched frame's lines naming its root local. A write found is landed on (pastBreakpointHit: its
// task's thread, line, tick) once that replay's trap (field-write-trap.ts) shows it made the change asked for.
// See docs/design/time-travel-and-positions.md.
//
// Invariants: asked only at a live line stop of a recorded run or at a line of its past or of an ended run's
// past (up to a live stop, else the ticks before the line's own), for a field (never a local); a write is
// claimed only when its object is the watched one in the same replay and the trap saw no other change; else
// the answer is null (said to the user when a write not seen changed it) and the caller walks.

import { readFileSync } from 'node:fs';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { basename } from 'node:path';
import type { Breakpoint, LineFrameInfo, LogpointHit } from '../../protocol/host-protocol';
import type { PastSearch } from './past-search';
import type { PositionEvents } from './position-events';
import type { SessionCore } from './session-core';
import { message } from './stop-events';
import {
  firstChange,
  landingMessage,
  parseReport,
  parseSeen,
  type TrapEntry,
  trapCondition,
  trapMessage,
  trapVerdict,
} from './field-write-trap';
import { sameReading } from '../../protocol/line-readings';
import { frameIndexOf, type Reading, type WatchedValue } from './value-changes';
import { presentOf, shownStop } from './debug-position';

/** A watched field split: the object's expression, the field's name, the root local. */
export function fieldOf(expression: string): { object: string; field: string; root: string } | null {
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\.([A-Za-z_$][\w$]*)$/.exec(expression);
  if (m === null) return null;
  return { object: m[1]!, field: m[2]!, root: m[1]!.split('.')[0]! };
}

/** The object expression a line assigns `field` of (`x.y.field = …`, `x.field += …`, `x.field++`), else null. */
export function assignedObject(text: string, field: string): string | null {
  const f = field.replace(/\$/g, '\\$');
  const path = '([A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)*)';
  const ops = '(?:\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?|[-+*/%&|^])?=(?!=)';
  const m =
    new RegExp(`${path}\\.${f}\\s*(?:${ops}|\\+\\+|--)`).exec(text) ??
    new RegExp(`(?:\\+\\+|--)\\s*${path}\\.${f}\\b`).exec(text);
  return m === null ? null : m[1]!;
}

/** The lines (1-based) of the function `name` in `lines` up to `line`: from its header to `line`. */
function functionLines(lines: readonly string[], name: string, line: number): number[] {
  const header = new RegExp(`\\bfunction\\s*\\*?\\s*${name.replace(/\$/g, '\\$')}\\s*\\(|\\b${name}\\s*\\(`);
  let start = line;
  while (start > 1 && !header.test(lines[start - 1] ?? '')) start--;
  const out: number[] = [];
  for (let l = start; l <= line; l++) out.push(l);
  return out;
}

export interface FieldWrite {
  hit: LogpointHit;
  logpoint: Breakpoint;
  /** The writes to the watched object's field seen, the ticks scanned, and when the search began. */
  writes: number;
  ticks: number;
  started: number;
}

/** The logpoint a planted line's hit is gone to by. */
function landingOf(p: { file: string; line: number; object: string }): Breakpoint {
  return { file: p.file, line: p.line, logMessage: landingMessage(p.object) };
}

/** What the search found: the write to land on, else why not (`said`: what the user is told of it). */
interface FoundWrite {
  write: FieldWrite | null;
  why: string;
  said?: string;
}

/** A planted logpoint: a line assigning the field, or one of the watched function's naming its root local. */
interface Planted {
  file: string;
  line: number;
  kind: 'write' | 'anchor';
  object: string;
}

/** What one trap replay saw of the watched task's object (WriteScan's `scanned`), else why there is none. */
type WriteScan =
  | { readonly kind: 'none'; readonly why: string }
  | {
      readonly kind: 'scanned';
      readonly taskId: number;
      /** The assignment lines' hits on the object, in the order they ran. */
      readonly writes: readonly LogpointHit[];
      /** The watched task's readings of it (its anchors' hits), in order. */
      readonly readings: readonly LogpointHit[];
      /** The trap's account of the object (undefined: none of it; null: no account at all). */
      readonly entry: TrapEntry | undefined | null;
      /** The value at the stop; the last tick scanned; when the scan began; the logpoints planted, by index. */
      readonly here: Reading;
      readonly ticks: number;
      readonly started: number;
      readonly planted: readonly Planted[];
    };

export class FieldWrites {
  constructor(
    private readonly core: SessionCore,
    private readonly past: PastSearch,
    private readonly positionEvents: PositionEvents,
  ) {}

  /**
   * Go to Last Change / Reverse Continue on one watched field: lands on its last write by any task (answering
   * `response`) when one is known; false: not known here (nothing moved, nothing answered).
   */
  async landOnLastWrite(
    response: DebugProtocol.Response,
    what: string,
    watched: readonly WatchedValue[],
  ): Promise<boolean> {
    const w = watched[0];
    if (w === undefined || watched.length !== 1) return false;
    const found = await this.lastWrite(w);
    if (found.said !== undefined) this.core.output(`Coroscope: ${what}: ${found.said}; the task's lines are walked`);
    if (found.write === null) return false;
    await this.goTo(response, what, w, found.write);
    return true;
  }

  /** The last write to the watched field before the stop, by any task; null: not known here (`why`). */
  async lastWrite(w: WatchedValue): Promise<FoundWrite> {
    const found = await this.search(w);
    if (process.env.COROSCOPE_TRACE_WALK === '1')
      this.core.output(
        `field writes: ${found.write === null ? found.why : `${found.write.hit.file}:${found.write.hit.line}`}`,
      );
    return found;
  }

  /**
   * One replay of the run before the stop with the trap (field-write-trap.ts; at a live line stop up to the
   * stop, else the ticks before its own): the writes to the watched task's object (its last reading by the
   * task in that replay), the task's readings of it, and the trap's account of it; else why not (`kind:
   * 'none'`).
   */
  private async scan(
    w: WatchedValue,
    /**
     * Whether the task's own lines before the stop in its tick are read for a change (then its walk finds it);
     * not when the stop is the task's first line since it resumed (a forward walk's, seen after it waited).
     */
    ownLinesRead = true,
  ): Promise<WriteScan> {
    const f = fieldOf(w.expression);
    if (f === null) return { kind: 'none', why: 'not a field of an object named by a path' };
    const pos = this.core.position;
    const stop = shownStop(pos);
    // Where the run before the line can be listed: a live line stop, a line of its past (the host scans the ticks
    // before it beside the replay showing it), or a line of a run that has ended (a finished run's past, a recording).
    const listable =
      pos.kind === 'liveLine' ||
      pos.kind === 'recording' ||
      (pos.kind === 'pastLine' && pos.live !== null) ||
      (pos.kind === 'pastHit' && (pos.present.kind === 'end' || pos.present.kind === 'stopped'));
    if (!listable || stop === null || stop.line === undefined)
      return { kind: 'none', why: 'asked where the run before the line shown cannot be listed' };
    const host = this.core.requireHost();
    const started = Date.now();
    // A past line of a live stop's own tick may be shown from its replay's record, the replay let go: no
    // stack to scan from (its run cannot be listed there either); the task's walk goes there itself.
    let stack: { taskId: number | null; frames: LineFrameInfo[] };
    try {
      stack = await host.endpoint.request('lineStack', {});
    } catch (e) {
      return { kind: 'none', why: `the line's stack cannot be read: ${message(e)}` };
    }
    const { taskId, frames } = stack;
    const index = frameIndexOf(
      w,
      frames.map((fr) => fr.name),
    );
    const at = index === null ? null : frames[index]?.position;
    if (taskId === null || at === undefined || at === null)
      return { kind: 'none', why: 'the watched frame has no task or no source' };
    const files = [...new Set(frames.flatMap((fr) => (fr.position === null ? [] : [fr.position.file])))];
    // Each logpoint's condition makes the scan's trap state (field-write-trap.ts); the last one never holds: its
    // index names the report the trap leaves for the scan's end.
    const token = `${process.pid}-${started}-${Math.random().toString(36).slice(2)}`;
    const logpoints: Breakpoint[] = [];
    const anchors = new Set<number>();
    const planted: Planted[] = [];
    for (const file of files) {
      let lines: string[];
      try {
        lines = readFileSync(file, 'utf8').split('\n');
      } catch {
        continue;
      }
      lines.forEach((text, i) => {
        const object = assignedObject(text, f.field);
        if (object !== null) planted.push({ file, line: i + 1, kind: 'write', object });
      });
      if (file !== at.file) continue;
      const rootWord = new RegExp(`\\b${f.root.replace(/\$/g, '\\$')}\\b`);
      for (const l of functionLines(lines, w.functionName, at.line)) {
        if (rootWord.test(lines[l - 1] ?? '')) planted.push({ file, line: l, kind: 'anchor', object: f.object });
      }
    }
    const condition = trapCondition(token, f.field, planted.length);
    for (const p of planted) {
      if (p.kind === 'anchor') anchors.add(logpoints.length);
      logpoints.push({ file: p.file, line: p.line, condition, logMessage: trapMessage(p.object, p.kind, p.file) });
    }
    const reportBp = logpoints.length;
    logpoints.push({ file: at.file, line: at.line, condition: 'false', logMessage: '{0}' });
    // At a live line stop the run is scanned up to the stop, its own tick too (the trap's account taken there):
    // what other tasks and callbacks wrote there before it is seen. Not when the stopped line itself assigns the
    // field (its message would be met at the stop, before the line runs, as a write); nor at a past line,
    // whose tick's other lines may run after it: there, the ticks before its own.
    const top = frames[0]?.position;
    const toStop =
      pos.kind === 'liveLine' &&
      !planted.some((p) => p.kind === 'write' && p.file === top?.file && p.line === top.line);
    const through = toStop ? undefined : stop.tick - 1;
    const writers = planted.length - anchors.size;
    if (writers === 0 || anchors.size === 0)
      return { kind: 'none', why: `no line of ${files.map((p) => basename(p)).join(', ')} assigns .${f.field}` };
    let found: { hits: LogpointHit[]; ticks: number };
    let here: Reading;
    try {
      // The stop's replay host plants logpoints only in scripts it has loaded: a fresh one has not run the
      // program yet (its logpoints would see nothing). Reading the value at the stop runs it; the values back in
      // the stop's tick say whether the task itself changed it there (then its lines hold the last write).
      const now = await host.endpoint.request('lineEvaluate', { expression: w.expression, frameIndex: index ?? 0 });
      here = { reachable: true, value: now.value, type: now.type };
      const atStop = here;
      if (ownLinesRead) {
        const { readings } = await host.endpoint.request('lineValuesBack', { watched: [w] });
        if (readings?.some((r) => r[0] !== undefined && !sameReading(r[0], atStop)) === true)
          return { kind: 'none', why: "it changed in the task's own lines of this tick" };
      }
      found = await host.endpoint.request('pastLogpointHits', {
        logpoints,
        ...(through === undefined ? {} : { through }),
      });
    } catch (e) {
      return { kind: 'none', why: `the run's writes cannot be scanned: ${message(e)}` };
    }
    const { ticks } = found;
    const report = found.hits.find((h) => h.logpoint === reportBp);
    const hits = found.hits.filter((h) => h.logpoint !== reportBp);
    // Scanned up to a live stop: its tick's writes before the stop are among the hits. Else the stop's own tick
    // is not scanned: another task (or a callback) that may have run in it before this one may have written
    // last; only the tasks woken for it are known (the timeline, through the tick before). A past line in the
    // live stop's own tick (still open, so not in the timeline): as at the stop itself.
    const present = presentOf(pos);
    const liveTick = present?.kind === 'stopped' ? present.stop.tick : undefined;
    const before =
      ticks >= stop.tick
        ? null
        : pos.kind === 'liveLine' || stop.tick === liveTick
          ? await this.otherRunnersOf(taskId, ticks)
          : await this.otherRunnersIn(taskId, stop.tick);
    if (before !== null)
      return { kind: 'none', why: `${before} may have run in the stop's tick, which is not scanned` };
    if (process.env.COROSCOPE_TRACE_WALK === '1')
      this.core.output(
        `field writes: task ${taskId}, ${JSON.stringify(logpoints.map((l) => l.line))} ${JSON.stringify(hits.map((h) => [h.line, h.tick, h.taskId, h.message]))} report ${report?.message ?? 'none'}`,
      );
    // The watched task's object: the last reading of its path in the watched frame's function, by that task.
    const anchor = hits
      .filter((h) => anchors.has(h.logpoint) && h.taskId === taskId && parseSeen(h.message) !== null)
      .at(-1);
    const id = anchor === undefined ? null : parseSeen(anchor.message)!.id;
    if (id === null)
      return { kind: 'none', why: `${f.object} was not read by the task in ticks 1..${ticks} (replayed)` };
    const writes = hits.filter((h) => !anchors.has(h.logpoint) && parseSeen(h.message)?.id === id);
    const entries = report === undefined ? null : parseReport(report.message);
    const ofTask = hits.filter(
      (h) => anchors.has(h.logpoint) && h.taskId === taskId && parseSeen(h.message)?.id === id,
    );
    return {
      kind: 'scanned',
      taskId,
      writes,
      readings: ofTask,
      entry: entries === null ? null : entries.get(id),
      here,
      ticks,
      started,
      planted,
    };
  }

  /** The last write to the watched field before the stop, by another task, verified by the trap. */
  private async search(w: WatchedValue): Promise<FoundWrite> {
    const scanned = await this.scan(w);
    if (scanned.kind === 'none') return { write: null, why: scanned.why };
    const { taskId, writes, entry, here, ticks, started, planted } = scanned;
    const last = writes.at(-1);
    if (last === undefined) return { write: null, why: `no write to ${w.expression} in ticks 1..${ticks}` };
    // A write after the anchor in the watched task itself is its own line: the task's walk finds it exactly.
    if (last.taskId === taskId) return { write: null, why: 'the last write seen is the watched task own' };
    // The check: the trap saw every write to that object's field from before that line ran to the end of the
    // ticks scanned (the stop's tick is covered above): that line's write is the last change, and to the value
    // at the stop; else it is not named.
    const doubt =
      entry === null
        ? { kind: 'unknown' as const, why: "the scan's replay gave no account of the writes" }
        : trapVerdict(entry, parseSeen(last.message)!.seq, here);
    if (doubt !== null) {
      const task = last.taskId === null ? 'a callback' : `${last.task ?? 'task'} #${last.taskId}`;
      const at = `${basename(last.file)}:${last.line} (tick ${last.tick}, ${task})`;
      return {
        write: null,
        why: doubt.why,
        said:
          doubt.kind === 'unseen'
            ? `the last write to ${w.expression} was made by code Coroscope did not see (${doubt.why}; the last assignment seen is ${at}, not named)`
            : `whether ${at} made the last change of ${w.expression} cannot be checked (${doubt.why}): it is not named`,
      };
    }
    return {
      // Gone to without the trap (its replay may not be this one): a logpoint whose hits are the same ones.
      write: { hit: last, logpoint: landingOf(planted[last.logpoint]!), writes: writes.length, ticks, started },
      why: '',
    };
  }

  /**
   * A task other than `taskId` that may run in the tick after `ticks` (scheduled, running or woken by then), or
   * a timer or I/O mark of that tick; null: none.
   */
  private async otherRunnersOf(taskId: number, ticks: number): Promise<string | null> {
    const timeline = await this.core.requireHost().endpoint.request('timeline', {});
    if (timeline.ticks !== ticks) return `the timeline (ticks 1..${timeline.ticks}, not ${ticks})`;
    if (timeline.marks.some((m) => m.tick > ticks && (m.kind === 'timer' || m.kind === 'io'))) return 'a callback';
    for (const lane of timeline.lanes) {
      const last = lane.segments.at(-1);
      if (lane.taskId === taskId || last === undefined || last.toTick < ticks || lane.endTick !== null) continue;
      if (last.state !== 'suspended' || last.wokenTick !== undefined) return `${lane.name} #${lane.taskId}`;
    }
    return null;
  }

  /**
   * At a past line of tick `tick`: a task other than `taskId` that ran in that tick, or a timer or I/O mark of it
   * (the recording says who ran in a tick, not in what order); null: none.
   */
  private async otherRunnersIn(taskId: number, tick: number): Promise<string | null> {
    const timeline = await this.core.requireHost().endpoint.request('timeline', {});
    if (timeline.ticks < tick) return `the timeline (ticks 1..${timeline.ticks}, not ${tick})`;
    if (timeline.marks.some((m) => m.tick === tick && (m.kind === 'timer' || m.kind === 'io'))) return 'a callback';
    for (const lane of timeline.lanes) {
      if (lane.taskId === taskId) continue;
      if (lane.segments.some((s) => s.state === 'running' && s.fromTick <= tick && tick <= s.toTick))
        return `${lane.name} #${lane.taskId}`;
    }
    return null;
  }

  /** Lands on a write found by lastWrite (its task's thread, line, tick) and says where it is. */
  async goTo(response: DebugProtocol.Response, what: string, w: WatchedValue, write: FieldWrite): Promise<void> {
    const field = fieldOf(w.expression)?.field ?? '';
    await this.land(
      what,
      write,
      response,
      (at) =>
        `${w.expression} was set by ${at}, another task than the one stopped: shown at that line, before it runs (the last of ${write.writes} write(s) to that object's .${field} in ticks 1..${write.ticks}, found in ${Date.now() - write.started} ms)`,
    );
  }

  /**
   * Go to Next Change's walk saw the watched field changed where its task resumed after waiting at a line of tick
   * `waitedTick`: the write that first changed it meanwhile, by another task, when the trap accounts for every
   * change since (null: not known here). Gone to by showWriteWhileWaiting.
   */
  async writeWhileWaiting(w: WatchedValue, waitedTick: number): Promise<FieldWrite | null> {
    const found = await this.writeSince(w, waitedTick);
    if (process.env.COROSCOPE_TRACE_WALK === '1')
      this.core.output(
        `field writes since tick ${waitedTick}: ${found.write === null ? found.why : `${found.write.hit.file}:${found.write.hit.line}`}`,
      );
    return found.write;
  }

  /**
   * Goes to a write found by writeWhileWaiting (made while `task` waited after tick `waitedTick`) and says so; not
   * answered here: the walk answers its request once it has moved.
   */
  async showWriteWhileWaiting(
    what: string,
    w: WatchedValue,
    write: FieldWrite,
    waitedTick: number,
    task: string,
  ): Promise<void> {
    const field = fieldOf(w.expression)?.field ?? '';
    await this.land(
      what,
      write,
      null,
      (at) =>
        `${w.expression} was set by ${at} while ${task} waited: shown at that line, before it runs (the first change of that object's .${field} after tick ${waitedTick}, of ${write.writes} assignment(s) seen, found in ${Date.now() - write.started} ms)`,
    );
  }

  /**
   * The first write that changed the watched field after tick `waitedTick` (the task waited there) up to the stop,
   * by another task, when the trap shows no change by other code before it since the task's reading before it
   * waited (assignment lines that wrote the value it held are passed); null: not known (`why`).
   */
  private async writeSince(w: WatchedValue, waitedTick: number): Promise<FoundWrite> {
    const scanned = await this.scan(w, false);
    if (scanned.kind === 'none') return { write: null, why: scanned.why };
    const { taskId, writes, readings, entry, ticks, started, planted } = scanned;
    // A write in the tick the task waited in may have run before its lines there or after (the task's own, in a
    // call its waiting line made): not told apart.
    if (writes.some((h) => h.tick === waitedTick)) return { write: null, why: `a write in tick ${waitedTick}` };
    const after = writes.filter((h) => h.tick > waitedTick);
    if (after.length === 0) return { write: null, why: `no assignment line wrote it after tick ${waitedTick}` };
    if (entry === null || entry === undefined)
      return { write: null, why: "the scan's replay gave no account of the writes" };
    // The trap was on by the task's reading of the object up to the tick it waited in (or before).
    const installed = entry.installedAt;
    if (installed === null || !readings.some((h) => h.tick <= waitedTick && parseSeen(h.message)!.seq >= installed))
      return { write: null, why: 'the trap was put on after the task waited' };
    // The first of those lines whose write changed it, no change by other code before it since the task read it:
    // the next change after the task's line.
    const found = firstChange(
      entry,
      after.map((h) => parseSeen(h.message)!.seq),
    );
    if ('kind' in found) return { write: null, why: found.why };
    const first = after[found.index]!;
    if (first.taskId === taskId) return { write: null, why: "the first change seen is the task's own" };
    return {
      write: { hit: first, logpoint: landingOf(planted[first.logpoint]!), writes: after.length, ticks, started },
      why: '',
    };
  }

  /**
   * Goes back to a write found (its task's thread, line and tick) and says `said` of its place; `response`
   * answered on the way (null: the caller answers it).
   */
  private async land(
    what: string,
    write: FieldWrite,
    response: DebugProtocol.Response | null,
    said: (at: string) => string,
  ): Promise<void> {
    const now = await this.past.momentShown();
    const { hit, logpoint } = write;
    const landing = await this.past.searchHit('back', now, {
      logpointHit: { logpoint, tick: hit.tick, ordinal: hit.ordinal },
    });
    if (landing.landed !== 'line') throw new Error(`${what}: the write at ${hit.file}:${hit.line} was not found again`);
    const task = hit.taskId === null ? 'a callback outside tasks' : `${hit.task ?? 'task'} #${hit.taskId}`;
    this.core.output(`Coroscope: ${what}: ${said(`${hit.file}:${hit.line} (tick ${hit.tick}, ${task})`)}`);
    if (response !== null) this.core.sendResponse(response);
    this.positionEvents.showHit(landing, landing.taskId ?? 0);
  }
}
