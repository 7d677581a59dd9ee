// SessionChanges: where a value was set. "Go to Last/Next Change" on a local or a field in
// Variables at a line stop (custom requests coroscope/lastChange, coroscope/nextChange) and DAP
// data breakpoints on them (Continue: next change; Reverse Continue: previous one). The value is
// read (value-changes.ts) at every line of its task, back through one step at a time in one replay
// (host lineValuesBack) where the host can, else walking with the adapter's line moves; the
// landing is the first line showing the new value (where a live data breakpoint stops), and
// the console names the writing line, its tick and task.
//
// Invariants: asked only at a line stop (else refused, nothing moved); a walk finding no change
// is refused saying how far it went; only the landing's stop is shown (LineWalks.walkLines).

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { SourcePosition } from '../../protocol/host-protocol';
import { ERR_HOST, type SessionCore } from './session-core';
import { fieldOf, type FieldWrites } from './field-writes';
import type { LineWalkStep, LineWalks } from './line-walks';
import type { SessionVariables } from './session-variables';
import { COLLECTED_PIN, OTHER_REPLAY_PIN, sameReading } from '../../protocol/line-readings';
import { message } from './stop-events';
import {
  dataIdOf,
  dataIdPin,
  frameIndexOf,
  parseDataId,
  readingText,
  type Reading,
  mayAssign,
  type WatchedValue,
} from './value-changes';

export const LAST_CHANGE_REQUEST = 'coroscope/lastChange';
export const NEXT_CHANGE_REQUEST = 'coroscope/nextChange';

/** At most this many lines are walked for one change (each may replay a tick). */
const MAX_LINES = 5_000;

/** The body of a coroscope/lastChange or coroscope/nextChange request: a Variables item. */
export function narrowChangeArgs(v: unknown): { variablesReference: number; name: string } | null {
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  return typeof r.variablesReference === 'number' && typeof r.name === 'string'
    ? { variablesReference: r.variablesReference, name: r.name }
    : null;
}

/** A pinned field read at a line of another replay of the run than its object's (OTHER_REPLAY_PIN). */
class OtherReplayError extends Error {
  constructor(expression: string) {
    super(`${expression}: ${OTHER_REPLAY_PIN}`);
  }
}

export class SessionChanges {
  /** The data breakpoints set (their watched values). */
  private watched: WatchedValue[] = [];
  /** The watched fields' objects as pinned when their data breakpoints were asked (by index in `watched`). */
  private pins = new Map<number, number>();

  constructor(
    private readonly core: SessionCore,
    private readonly variables: SessionVariables,
    private readonly walks: LineWalks,
    private readonly fieldWrites: FieldWrites | null = null,
  ) {}

  /** Whether a Continue / Reverse Continue here is a data breakpoints' walk (set, and at a line stop). */
  takesMove(): boolean {
    return this.watched.length > 0 && this.core.currentStop?.line !== undefined;
  }

  /**
   * A Continue or Reverse Continue (`what`) made away from a line with data breakpoints set: it goes as
   * without them, and the console says why (nothing to read them in), rather than passing them by silently.
   */
  sayNotFollowed(what: string): void {
    if (this.watched.length === 0 || this.core.currentStop?.line !== undefined) return;
    const names = this.watched.map((w) => w.expression).join(', ');
    this.core.output(
      `Coroscope: ${what}: the data breakpoint${this.watched.length > 1 ? 's' : ''} on ${names} ${this.watched.length > 1 ? 'are' : 'is'} followed from a stop on a line; from here (no line, no frame to read ${names} in) it goes to breakpoints and exceptions only`,
    );
  }

  dataBreakpointInfoRequest(
    response: DebugProtocol.DataBreakpointInfoResponse,
    args: DebugProtocol.DataBreakpointInfoArguments,
  ): void {
    this.core.serve(response, async () => {
      const w =
        args.variablesReference === undefined
          ? 'a data breakpoint is set on a local or a field in Variables'
          : await this.variables.watchedValueOf(args.variablesReference, args.name);
      response.body =
        typeof w === 'string'
          ? { dataId: null, description: w }
          : {
              dataId: dataIdOf(w, await this.pinOf(w)),
              description: `${w.expression} in ${w.functionName}`,
              accessTypes: ['write'],
              canPersist: false,
            };
      this.core.sendResponse(response);
    });
  }

  setDataBreakpointsRequest(
    response: DebugProtocol.SetDataBreakpointsResponse,
    args: DebugProtocol.SetDataBreakpointsArguments,
  ): void {
    const watched: WatchedValue[] = [];
    const pins = new Map<number, number>();
    const breakpoints: DebugProtocol.Breakpoint[] = args.breakpoints.map((b) => {
      const w = parseDataId(b.dataId);
      // A client may send what dataBreakpointInfo answered with no id (null): refused as any unknown id.
      if (w === null)
        return { verified: false, message: `not a value this debugger can watch: ${JSON.stringify(b.dataId)}` };
      if (b.accessType !== undefined && b.accessType !== 'write')
        return { verified: false, message: 'only writes are watched (a change of the value)' };
      if (b.condition !== undefined || b.hitCondition !== undefined)
        return { verified: false, message: 'a data breakpoint takes no condition' };
      const pin = dataIdPin(b.dataId);
      if (pin !== null) pins.set(watched.length, pin);
      watched.push(w);
      return { verified: true, message: `stops where ${w.expression} (in ${w.functionName}) changes` };
    });
    this.watched = watched;
    this.pins = pins;
    response.body = { breakpoints };
    this.core.sendResponse(response);
  }

  /** Continue (forward) or Reverse Continue (back) with data breakpoints set: to the next / previous change. */
  moveToChange(response: DebugProtocol.Response, threadId: number, direction: 'back' | 'forward'): void {
    const watched = [...this.watched];
    const what = direction === 'back' ? 'Reverse Continue' : 'Continue';
    const fieldWrites = direction === 'back' ? this.fieldWrites : null;
    if (fieldWrites !== null) {
      // A field another task wrote: its last write by any task (field-writes.ts); else the task's lines.
      this.core.serve(response, async () => {
        if (await fieldWrites.landOnLastWrite(response, what, watched)) return;
        this.walks.walkLines(response, threadId, (step) => this.walk(what, watched, direction, step));
      });
      return;
    }
    const pins = new Map(this.pins);
    this.walks.walkLines(response, threadId, (step) => this.walk(what, watched, direction, step, pins));
  }

  /** Answers coroscope/lastChange and coroscope/nextChange; false: not one of them. */
  customRequest(command: string, response: DebugProtocol.Response, args: unknown): boolean {
    if (command !== LAST_CHANGE_REQUEST && command !== NEXT_CHANGE_REQUEST) return false;
    const direction = command === LAST_CHANGE_REQUEST ? 'back' : 'forward';
    const what = direction === 'back' ? 'Go to Last Change' : 'Go to Next Change';
    const a = narrowChangeArgs(args);
    if (a === null) {
      this.core.fail(response, ERR_HOST, `${command}: "variablesReference" (number) and "name" (string) are needed`);
      return true;
    }
    if (direction === 'forward' && this.core.position.kind === 'liveLine') {
      this.core.fail(
        response,
        ERR_HOST,
        `${what}: the live run has no recorded future; set a data breakpoint on it and Continue`,
        true,
      );
      return true;
    }
    this.core.serve(response, async () => {
      const w = await this.variables.watchedValueOf(a.variablesReference, a.name);
      if (typeof w === 'string') throw new Error(`${what}: ${w}`);
      const threadId = this.core.currentStop?.threadId ?? 0;
      // A field another task wrote: its last write by any task (field-writes.ts); else the task's lines.
      if (direction === 'back' && (await this.fieldWrites?.landOnLastWrite(response, what, [w])) === true) return;
      this.walks.walkLines(response, threadId, (step) => this.walk(what, [w], direction, step, new Map(), true));
    });
    return true;
  }

  /**
   * Reads each watched value at the line the host stands on. Walking forward (`forward`, from its start): a
   * pinned field is read on its object, whatever runs; a local only in its own task (elsewhere its reading
   * stays the one before, `previous`, as no other task's line writes it).
   */
  private async read(
    watched: readonly WatchedValue[],
    forward?: ForwardWatch,
    previous: readonly Reading[] = [],
    /**
     * An object pinned by its path at the walk's start line read only in its own replay (else OtherReplayError);
     * by default, and a data breakpoint's own object always, its copy in that tick too.
     */
    strict = false,
  ): Promise<Reading[]> {
    const host = this.core.requireHost();
    const { frames } = await host.endpoint.request('lineStack', {});
    const names = frames.map((f) => f.name);
    const out: Reading[] = [];
    for (const [i, w] of watched.entries()) {
      const pin = forward?.pins.get(i);
      if (pin !== undefined) {
        const r = await this.evaluated(
          `globalThis.__coroscopeLine.pinned(${pin.id}, ${strict && pin.here})[${JSON.stringify(pin.field)}]`,
          0,
        );
        // Read in another replay, the object's copy there would seem never written (or written at its own moment).
        if (!r.reachable && r.why.includes(OTHER_REPLAY_PIN)) throw new OtherReplayError(w.expression);
        // A collected object was written by nothing since: its field reads as before (no change, however far on).
        const before = previous[i];
        out.push(!r.reachable && r.why.includes(COLLECTED_PIN) && before !== undefined ? before : r);
        continue;
      }
      const before = previous[i];
      if (forward !== undefined && before !== undefined && this.core.currentStop?.taskId !== forward.taskId) {
        out.push(before);
        continue;
      }
      const frameIndex = frameIndexOf(w, names);
      if (frameIndex === null) {
        out.push({ reachable: false, why: `no frame of ${w.functionName} at depth ${w.depth}` });
        continue;
      }
      out.push(await this.evaluated(w.expression, frameIndex));
    }
    return out;
  }

  /** `expression` read in frame `frameIndex` of the line stop. */
  private async evaluated(expression: string, frameIndex: number): Promise<Reading> {
    try {
      const r = await this.core.requireHost().endpoint.request('lineEvaluate', { expression, frameIndex });
      return { reachable: true, value: r.value, type: r.type };
    } catch (e) {
      return { reachable: false, why: message(e) };
    }
  }

  /**
   * A forward walk's watch: each field's object pinned where the walk starts (its object then, whatever later
   * lines name by the same path; a write through another name is a write too), and the task whose locals are
   * watched. A field whose object cannot be pinned is read by its path, as a local is.
   */
  private async forwardWatch(
    watched: readonly WatchedValue[],
    given: ReadonlyMap<number, number>,
  ): Promise<ForwardWatch> {
    const pins = new Map<number, { id: number; field: string; here: boolean }>();
    for (const [i, w] of watched.entries()) {
      const f = fieldOf(w.expression);
      if (f === null) continue;
      // The data breakpoint's own object where this host still holds it; else the path's object here.
      const kept = given.get(i);
      if (kept !== undefined && (await this.evaluated(`globalThis.__coroscopeLine.pinned(${kept})`, 0)).reachable) {
        pins.set(i, { id: kept, field: f.field, here: false });
        continue;
      }
      const id = await this.pinOf(w);
      if (id !== null) pins.set(i, { id, field: f.field, here: true });
    }
    return { pins, taskId: this.core.currentStop?.taskId };
  }

  /** A watched field's object pinned in the host at this stop (null: not a field, or not an object here). */
  private async pinOf(w: WatchedValue): Promise<number | null> {
    const f = fieldOf(w.expression);
    if (f === null || this.core.currentStop?.line === undefined) return null;
    const { frames } = await this.core.requireHost().endpoint.request('lineStack', {});
    const frameIndex = frameIndexOf(
      w,
      frames.map((fr) => fr.name),
    );
    if (frameIndex === null) return null;
    const pinned = await this.evaluated(`globalThis.__coroscopeLine.pin(${f.object})`, frameIndex);
    return pinned.reachable && /^[1-9]\d*$/.test(pinned.value) ? Number(pinned.value) : null;
  }

  /**
   * Going back from `later` (the readings where the walk starts): the readings at each line a step back lands
   * on within the step of the line shown, read in one replay (host lineValuesBack), give the number of lines the walk
   * goes back at once (to the first change, the line just before excepted as the line-by-line walk does; else
   * past the tick's lines) and the readings at the line before that; null: not answered here (line by line).
   */
  private async planBack(
    what: string,
    watched: readonly WatchedValue[],
    later: Reading[],
    first: boolean,
  ): Promise<{ lines: number; later: Reading[]; crosses: boolean; writer?: Writer } | null> {
    const kind = this.core.position.kind;
    // COROSCOPE_CHANGES_LINE_BY_LINE=1: the line-by-line walk only (the oracle the tests compare this with).
    // A line shown: the live stop, a past line of its step or of an earlier one, a hit's or a line walked from it.
    const onLine = kind === 'liveLine' || kind === 'pastLine' || kind === 'pastHit' || kind === 'recording';
    if (!onLine || process.env.COROSCOPE_CHANGES_LINE_BY_LINE === '1') return null;
    const t0 = Date.now();
    const { readings, earlier, held } = await this.core
      .requireHost()
      .endpoint.request('lineValuesBack', { watched: [...watched] })
      .catch(() => ({ readings: null, earlier: undefined, held: undefined }));
    if (process.env.COROSCOPE_TRACE_WALK === '1')
      this.core.output(
        `walk values: ${readings?.length ?? 'none'} line(s) read in ${Date.now() - t0} ms${held === undefined ? '' : `, the landing ${held} line(s) back held ready`}`,
      );
    if (readings === null) return null;
    let before = later;
    for (let j = 1; j <= readings.length; j++) {
      const now = readings[j - 1]!;
      const changed = watched.findIndex((_, i) => !sameReading(now[i]!, before[i]!));
      if (changed >= 0 && j === 1 && first) {
        this.core.output(
          `Coroscope: ${what}: ${watched[changed]!.expression} was set by the line just before the one shown (${readingText(now[changed]!)} → ${readingText(before[changed]!)}): looking further back`,
        );
      } else if (changed >= 0) return { lines: j, later: before, crosses: false };
      before = now;
    }
    // The step's first line reached with no change: changed at the last line of the step before (read too),
    // the new value is first seen on that first line, landed on in one move back (the write said from the
    // reading there, as the line-by-line walk says it from its stop on that line).
    if (earlier !== undefined && readings.length >= 1) {
      const changed = watched.findIndex((_, i) => !sameReading(earlier.readings[i]!, before[i]!));
      if (changed >= 0 && earlier.readings[changed]!.reachable)
        return {
          lines: readings.length,
          later: before,
          crosses: false,
          writer: { changed, now: earlier.readings, tick: earlier.tick, ...lineOf(earlier.line) },
        };
    }
    // Past the step's first line: onto the last line of its step before (or the start of what can be walked).
    return { lines: readings.length + 1, later: before, crosses: true };
  }

  /** Where a walk given up stays, in a refusal's words: the line it reached (its file, line and tick). */
  private reachedShown(): string {
    const stop = this.core.currentStop;
    if (stop === null) return 'the moment reached is shown';
    return stop.line === undefined
      ? `tick ${stop.tick}, reached, is shown`
      : `${basename(stop.line.file)}:${stop.line.line} (tick ${stop.tick}), the line reached, is shown`;
  }

  /** Where the host stands: the innermost frame's line, and its text where the file can be read. */
  private async lineHere(): Promise<{ at: string; text: string | null }> {
    const { frames } = await this.core.requireHost().endpoint.request('lineStack', {});
    return lineOf(frames[0]?.position ?? null);
  }

  private async walk(
    what: string,
    watched: readonly WatchedValue[],
    direction: 'back' | 'forward',
    step: LineWalkStep,
    pins: ReadonlyMap<number, number> = new Map(),
    /**
     * Go to Next Change: a field another task wrote while the task waited is shown at that write when it is
     * known (a data breakpoint's Continue stays with the task: its watch reads the task's frames, not the writer's).
     */
    toWriter = false,
  ): Promise<void> {
    const names = watched.map((w) => w.expression).join(', ');
    let forward = direction === 'forward' ? await this.forwardWatch(watched, pins) : undefined;
    let later = await this.read(watched, forward);
    if (watched.every((_, i) => !later[i]!.reachable))
      throw new Error(`${what}: ${names} cannot be read here (${later.map(readingText).join('; ')})`);
    const started = Date.now();
    // Back: the readings at the lines a step back lands on within the step shown, in one replay, say how many
    // lines to go back at once (to the change, or past the step's lines); past them, on the last line of the
    // step before, the same again for that step, else the walk goes on line by line.
    let plan = direction === 'back' ? await this.planBack(what, watched, later, true) : null;
    /** Lines walked so far, and how many the next move goes (a plan's, else one). */
    let lines = 0;
    let move = 1;
    /** The next move goes past the step's lines read with no change (a plan's): read the step before alike. */
    let replan = false;
    while (lines < MAX_LINES) {
      if (plan !== null) {
        later = plan.later;
        if (plan.writer !== undefined) {
          await this.landBeforeWriter(what, watched, step, plan.writer, plan.lines, lines, later, started);
          return;
        }
        move = plan.lines;
        replan = plan.crosses;
        plan = null;
      }
      lines += move;
      const stepStart = Date.now();
      const left = this.core.currentStop;
      const landed = await (direction === 'back' ? step('back', move) : step('over'));
      if (process.env.COROSCOPE_TRACE_WALK === '1')
        this.core.output(`walk step ${lines}: ${landed} in ${Date.now() - stepStart} ms`);
      if (landed !== 'line')
        throw new Error(
          `${what}: no ${direction === 'back' ? 'earlier' : 'later'} change of ${names} in the task's lines (${lines - 1} walked, then ${landed === 'suspension' ? 'the start of what the recording can replay by line' : landed === 'present' ? 'the present' : 'no further line'}): ${this.reachedShown()}`,
        );
      const crossed = replan;
      move = 1;
      replan = false;
      let now: Reading[];
      try {
        now = await this.read(watched, forward, later, direction === 'forward' && lines === 1);
      } catch (e) {
        if (!(e instanceof OtherReplayError) || direction !== 'forward' || lines !== 1) throw e;
        // A line found by a search is shown by the search's replay; the first step walks its tick again in another.
        // Back on the line in that walk's replay, pinned again there, and the step again: the walk stays in it.
        const back = await step('back', 1);
        const at = this.core.currentStop;
        if (
          back !== 'line' ||
          at?.tick !== left?.tick ||
          at?.line?.file !== left?.line?.file ||
          at?.line?.line !== left?.line?.line
        )
          throw new Error(`${what}: the line the walk started from could not be shown again in its replay`);
        forward = await this.forwardWatch(watched, pins);
        const again = await step('over');
        if (again !== 'line') throw new Error(`${what}: ${e.message}`);
        now = await this.read(watched, forward, later);
      }
      const changed = watched.findIndex((_, i) => !sameReading(now[i]!, later[i]!));
      // Walking back, a change on the line just before is the one the line shown first sees: already here. Not
      // so when that move went into the task's step before (the line shown is its step's first) onto a line
      // that does not assign it: the value changed across the wait between the steps, the change looked for.
      const justBefore =
        changed >= 0 &&
        direction === 'back' &&
        lines === 1 &&
        (!crossed || mayAssign((await this.lineHere()).text, watched[changed]!.expression));
      if (justBefore) {
        this.core.output(
          `Coroscope: ${what}: ${watched[changed]!.expression} was set by the line just before the one shown (${readingText(now[changed]!)} → ${readingText(later[changed]!)}): looking further back`,
        );
        later = now;
        continue;
      }
      if (changed < 0) {
        later = now;
        // On the last line of the step before, read with no change: that step's lines in one replay too.
        if (crossed) plan = await this.planBack(what, watched, later, false);
        continue;
      }
      const stop = this.core.currentStop;
      if (direction === 'forward') {
        // Seen after the task waited on a line that does not write it: written by what ran meanwhile.
        const waited = left?.line !== undefined && stop !== null && left.tick !== stop.tick ? left : null;
        const text = waited?.line === undefined ? null : lineOf(waited.line).text;
        if (waited?.line !== undefined && text !== null && !mayAssign(text, watched[changed]!.expression)) {
          const task = await this.taskOfStop();
          // A field another task wrote meanwhile: that write, when it is known to be the one change since.
          const fieldWrites = toWriter ? this.fieldWrites : null;
          const w = watched[changed]!;
          const write = fieldWrites === null ? null : await fieldWrites.writeWhileWaiting(w, waited.tick);
          if (fieldWrites !== null && write !== null) {
            // Only the write is shown, not the line the walk reached.
            this.walks.dropStepsShown();
            await fieldWrites.showWriteWhileWaiting(what, w, write, waited.tick, task);
            return;
          }
          this.core.output(
            `Coroscope: ${what}: ${writtenWhileWaiting(watched[changed]!.expression, lineOf(waited.line).at, waited.tick, stop?.tick, task)}; ${readingText(later[changed]!)} → ${readingText(now[changed]!)}, first seen here (${lines} line(s) walked in ${Date.now() - started} ms)`,
          );
          return;
        }
        this.core.output(
          `Coroscope: ${what}: ${watched[changed]!.expression} changed: ${readingText(later[changed]!)} → ${readingText(now[changed]!)}, first seen here (tick ${stop?.tick ?? '?'}, ${lines} line(s) walked in ${Date.now() - started} ms)`,
        );
        return;
      }
      // This line wrote it: the line after it, where the new value is first seen, is where it was set.
      const { at: writer, text: writerText } = await this.lineHere();
      const writerTick = stop?.tick;
      const task = await this.taskOfStop();
      const forthStart = Date.now();
      const back = await step(now[changed]!.reachable ? 'over' : 'into');
      if (process.env.COROSCOPE_TRACE_WALK === '1')
        this.core.output(`walk step forth to the landing: ${back} in ${Date.now() - forthStart} ms`);
      // The present: the live stop the walk started from is that line (its step's first).
      if (back !== 'line' && back !== 'present')
        throw new Error(
          `${what}: the line after the change (at ${writer}, tick ${writerTick}) could not be shown again`,
        );
      const w = { changed, now, tick: writerTick, at: writer, text: writerText };
      this.sayWritten(what, watched[changed]!.expression, w, later[changed]!, task, lines, started);
      return;
    }
    throw new Error(`${what}: no change of ${names} within ${MAX_LINES} lines: ${this.reachedShown()}`);
  }

  /**
   * A plan's change at the last line of the step before (`w`): the step's first line, where the new value is first
   * seen, `back` lines back (held ready by the host), after `walked` lines walked; the console names the writer.
   */
  private async landBeforeWriter(
    what: string,
    watched: readonly WatchedValue[],
    step: LineWalkStep,
    w: Writer,
    back: number,
    walked: number,
    later: Reading[],
    started: number,
  ): Promise<void> {
    const stepStart = Date.now();
    const landed = await step('back', back);
    if (process.env.COROSCOPE_TRACE_WALK === '1')
      this.core.output(
        `walk step ${walked + back} to the landing (written before the step): ${landed} in ${Date.now() - stepStart} ms`,
      );
    if (landed !== 'line')
      throw new Error(`${what}: the line after the change (at ${w.at}, tick ${w.tick}) could not be shown`);
    // Named once landed (the same task): a finished run's table is the one its moves bring, not asked again.
    const task = await this.taskOfStop();
    this.sayWritten(what, watched[w.changed]!.expression, w, later[w.changed]!, task, walked + back + 1, started);
  }

  /** The name of the stopped task (the tasks refreshed first). */
  private async taskOfStop(): Promise<string> {
    const stop = this.core.currentStop;
    await this.core.refreshTasks().catch(() => undefined);
    return stop?.taskId === undefined ? 'the main thread' : (this.core.nameOf(stop.taskId) ?? `task #${stop.taskId}`);
  }

  /**
   * The console's words on the landing of a Last Change (shown where the new value is first seen): the line that
   * wrote it, `w`, and the value there then (`w.now`) and here (`seen`).
   */
  private sayWritten(
    what: string,
    expression: string,
    w: Writer,
    seen: Reading,
    task: string,
    lines: number,
    started: number,
  ): void {
    const before = w.now[w.changed]!;
    // A `yield*` line writes when it resumes: the tick the new value is first seen is the write's.
    const setTick = this.core.currentStop?.tick ?? w.tick;
    // A field that changed over a line the task waited on, and that the line does not assign: code that ran
    // meanwhile wrote it (another task, a callback, or this task's callee); the recording does not say which.
    if (w.tick !== undefined && w.tick !== setTick && !mayAssign(w.text, expression)) {
      this.core.output(
        `Coroscope: ${what}: ${writtenWhileWaiting(expression, w.at, w.tick, setTick, task)}; ${readingText(before)} → ${readingText(seen)}; shown where ${task} first sees the new value (${lines} line(s) walked in ${Date.now() - started} ms)`,
      );
      return;
    }
    const began = w.tick !== undefined && w.tick !== setTick ? `; that line began at tick ${w.tick}` : '';
    this.core.output(
      `Coroscope: ${what}: ${expression} was set by ${w.at} (tick ${setTick ?? '?'}, ${task}${began}): ${readingText(before)} → ${readingText(seen)}; shown where the new value is first seen (${lines} line(s) walked in ${Date.now() - started} ms)`,
    );
  }
}

/** What a forward walk reads (SessionChanges.forwardWatch): pinned fields, the watched locals' task. */
interface ForwardWatch {
  /** By watched value's index: its object's pin and the field's name. */
  readonly pins: ReadonlyMap<number, { readonly id: number; readonly field: string; readonly here: boolean }>;
  readonly taskId: number | undefined;
}

/**
 * The line that wrote a watched value: the readings there (`now`, `changed` the one that differs), its tick, the
 * line and its text.
 */
interface Writer {
  readonly changed: number;
  readonly now: readonly Reading[];
  readonly tick: number | undefined;
  readonly at: string;
  readonly text: string | null;
}

/**
 * The console's words for a change seen across a line the task waited on (`at`, ticks `from` to `to`) that does
 * not assign it: code that ran meanwhile wrote it, and the recording does not say which.
 */
function writtenWhileWaiting(
  expression: string,
  at: string,
  from: number | undefined,
  to: number | undefined,
  task: string,
): string {
  return `${expression} changed while ${at} ran (ticks ${from ?? '?'} to ${to ?? '?'}, ${task}), which does not assign it: the write was made by code that ran while ${task} waited there (another task, a callback, or a function it awaited)`;
}

/** A line as the console names it, and its text where the file can be read. */
function lineOf(p: SourcePosition | null): { at: string; text: string | null } {
  if (p === null) return { at: 'a line without source', text: null };
  let text: string | null = null;
  try {
    text = readFileSync(p.file, 'utf8').split('\n')[p.line - 1] ?? null;
  } catch {
    // Not readable here: the line is taken to write it.
  }
  return { at: `${p.file}:${p.line}`, text };
}
