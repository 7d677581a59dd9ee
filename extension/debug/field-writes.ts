// FieldWrites: "Go to Last Change" on an object's field written by ANY task (issue 28). One replay of the
// run before the stop's tick (the host's pastLogpointHits) runs logpoints that name objects by an identity
// kept in that replay: on each line of the stack's files assigning `<object>.<field>` (the written object),
// and on the watched frame's lines that name its root local (the watched task's object). The last write
// to the watched task's object is landed on (pastBreakpointHit: its task's thread, line and tick).
//
// Invariants: asked only at a live line stop of a recorded run, for a field (never a local); a write is
// claimed only when its object is the watched one in the same replay; when no write is seen in the ticks
// scanned, or one may have come after them, the answer is null and the caller walks the task's lines.

import { readFileSync } from 'node:fs';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { basename } from 'node:path';
import type { Breakpoint, LogpointHit } from '../../protocol/host-protocol';
import type { PastSearch } from './past-search';
import type { PositionEvents } from './position-events';
import type { SessionCore } from './session-core';
import { message } from './stop-events';
import { frameIndexOf, type Reading, sameReading, type WatchedValue } from './value-changes';

/** The object an expression reads, as a number kept by the scan's replay (0: not an object). */
function identityOf(expression: string): string {
  return `((m, o) => o !== null && (typeof o === 'object' || typeof o === 'function') ? (m.has(o) || m.set(o, m.n = (m.n || 0) + 1), m.get(o)) : 0)(globalThis.__coroscopeObjectIds ??= new WeakMap(), (${expression}))`;
}

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
    if (found.write === null) return false;
    await this.goTo(response, what, w, found.write);
    return true;
  }

  /** The last write to the watched field before the stop's tick, by any task; null: not known here (`why`). */
  async lastWrite(w: WatchedValue): Promise<{ write: FieldWrite | null; why: string }> {
    const found = await this.search(w);
    if (process.env.COROSCOPE_TRACE_WALK === '1')
      this.core.output(
        `field writes: ${found.write === null ? found.why : `${found.write.hit.file}:${found.write.hit.line}`}`,
      );
    return found;
  }

  private async search(w: WatchedValue): Promise<{ write: FieldWrite | null; why: string }> {
    const f = fieldOf(w.expression);
    if (f === null) return { write: null, why: 'not a field of an object named by a path' };
    if (this.core.position.kind !== 'liveLine') return { write: null, why: 'asked away from a live line stop' };
    const host = this.core.requireHost();
    const started = Date.now();
    const { taskId, frames } = await host.endpoint.request('lineStack', {});
    const index = frameIndexOf(
      w,
      frames.map((fr) => fr.name),
    );
    const at = index === null ? null : frames[index]?.position;
    if (taskId === null || at === undefined || at === null)
      return { write: null, why: 'the watched frame has no task or no source' };
    const files = [...new Set(frames.flatMap((fr) => (fr.position === null ? [] : [fr.position.file])))];
    const logpoints: Breakpoint[] = [];
    const anchors = new Set<number>();
    for (const file of files) {
      let lines: string[];
      try {
        lines = readFileSync(file, 'utf8').split('\n');
      } catch {
        continue;
      }
      lines.forEach((text, i) => {
        const object = assignedObject(text, f.field);
        if (object !== null) logpoints.push({ file, line: i + 1, logMessage: `{${identityOf(object)}}` });
      });
      if (file !== at.file) continue;
      const rootWord = new RegExp(`\\b${f.root.replace(/\$/g, '\\$')}\\b`);
      for (const l of functionLines(lines, w.functionName, at.line)) {
        if (!rootWord.test(lines[l - 1] ?? '')) continue;
        anchors.add(logpoints.length);
        logpoints.push({ file, line: l, logMessage: `{${identityOf(f.object)}}` });
      }
    }
    const writers = logpoints.length - anchors.size;
    if (writers === 0 || anchors.size === 0)
      return { write: null, why: `no line of ${files.map((p) => basename(p)).join(', ')} assigns .${f.field}` };
    let found: { hits: LogpointHit[]; ticks: number };
    try {
      // The stop's replay host plants logpoints only in scripts it has loaded: a fresh one has not run the
      // program yet (its logpoints would see nothing). Reading the values back in the stop's tick runs it.
      // They also say whether the task itself changed it in this tick (then its lines hold the last write).
      const now = await host.endpoint.request('lineEvaluate', { expression: w.expression, frameIndex: index ?? 0 });
      const { readings } = await host.endpoint.request('lineValuesBack', { watched: [w] });
      const here: Reading = { reachable: true, value: now.value, type: now.type };
      if (readings?.some((r) => r[0] !== undefined && !sameReading(r[0], here)) === true)
        return { write: null, why: "it changed in the task's own lines of this tick" };
      found = await host.endpoint.request('pastLogpointHits', { logpoints });
    } catch (e) {
      return { write: null, why: `the run's writes cannot be scanned: ${message(e)}` };
    }
    const { hits, ticks } = found;
    // The stop's own tick is not scanned: another task (or a callback) that may have run in it before this one
    // may have written last; only the tasks woken for it are known (the timeline, through the tick before).
    const before = await this.otherRunnersOf(taskId, ticks);
    if (before !== null) return { write: null, why: `${before} may have run in the stop's tick, which is not scanned` };
    if (process.env.COROSCOPE_TRACE_WALK === '1')
      this.core.output(
        `field writes: task ${taskId}, ${JSON.stringify(logpoints.map((l) => l.line))} ${JSON.stringify(hits.map((h) => [h.line, h.tick, h.taskId, h.message]))}`,
      );
    // The watched task's object: the last reading of its path in the watched frame's function, by that task.
    const anchor = hits.filter((h) => anchors.has(h.logpoint) && h.taskId === taskId && h.message !== '0').at(-1);
    if (anchor === undefined)
      return { write: null, why: `${f.object} was not read by the task in ticks 1..${ticks} (replayed)` };
    const writes = hits.filter((h) => !anchors.has(h.logpoint) && h.message === anchor.message);
    const last = writes.at(-1);
    if (last === undefined) return { write: null, why: `no write to ${w.expression} in ticks 1..${ticks}` };
    // A write after the anchor in the watched task itself is its own line: the task's walk finds it exactly.
    if (last.taskId === taskId) return { write: null, why: 'the last write seen is the watched task own' };
    return {
      write: { hit: last, logpoint: logpoints[last.logpoint]!, writes: writes.length, ticks, started },
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

  /** Lands on a write found by lastWrite (its task's thread, line, tick) and says where it is. */
  async goTo(response: DebugProtocol.Response, what: string, w: WatchedValue, write: FieldWrite): Promise<void> {
    const now = await this.past.momentShown();
    const { hit, logpoint } = write;
    const landing = await this.past.searchHit('back', now, {
      logpointHit: { logpoint, tick: hit.tick, ordinal: hit.ordinal },
    });
    if (landing.landed !== 'line') throw new Error(`${what}: the write at ${hit.file}:${hit.line} was not found again`);
    const task = hit.taskId === null ? 'a callback outside tasks' : `${hit.task ?? 'task'} #${hit.taskId}`;
    this.core.output(
      `Coroscope: ${what}: ${w.expression} was set by ${hit.file}:${hit.line} (tick ${hit.tick}, ${task}), another task than the one stopped: shown at that line, before it runs (the last of ${write.writes} write(s) to that object's .${fieldOf(w.expression)?.field ?? ''} in ticks 1..${write.ticks}, found in ${Date.now() - write.started} ms)`,
    );
    this.core.sendResponse(response);
    this.positionEvents.showHit(landing, landing.taskId ?? 0);
  }
}
