// Runs on a runtime host's line debugger worker thread (live or line replay host), debugging the main thread
// through node:inspector.
//
// LineDebugger: line breakpoints and line steps on the runtime host's main thread, driven
// from the host's worker thread through node:inspector (`Session.connectToMainThread()`).
// It lives in the worker (line-debug-worker.ts) because a paused main thread runs nothing.
//
// - Breakpoints: a TypeScript file:line is mapped to the generated position of every loaded
//   script whose source map covers the file (GeneratedPositions); a line without code slides
//   to the next one with code. Conditions go to V8; hit conditions are counted here;
//   a logpoint is a condition that logs and is false. Files not loaded yet (a program) are
//   resolved when their script is parsed.
// - Steps inside a task: V8 loses a step when the generator it is in suspends (the `yield*`
//   gives the thread back to the loop). So a step in a task also plants temporary
//   breakpoints on every break location of the target generator function, conditioned on
//   that task being the running one ("stay with this task"), and one in the task's `_step`
//   just after the resume returns, which reports the suspension ("worker-3 suspended on
//   queue.get"). With "follow the loop", the suspension report plants a breakpoint where
//   `_step` resumes any task and steps into it. Landing on the line the step started from
//   (the `yield*` resumed) steps over it again. Every frame of the task's `yield*` chain is
//   planted, so an exception that leaves the top ones lands on the handler's first line.
// - Step into follows the program: into a plain generator's first run through `yield*`
//   (planted, as V8 does not step there), over the runtime's library in a task (a line that
//   suspends lands on the task's next line), out of Node's scripts and the bundler's glue.
// - The runtime's machinery (coroutine wrapper, task stepping, the loop, the host) is
//   stepped through, never stopped in, and left out of the frames shown.
// - The line replay (line-replay-host.ts): stopPrint() describes a stop for a replay host to
//   find it again (frames by generated position, the innermost's locals, its functions' break
//   locations); in a replay host, the walk's breakpoints (past-line-walk.ts) are given to its
//   hook, which resumes or stops there like a step.
//
// Invariants: temporary breakpoints are removed at every stop and every continue; object
// handles are only valid during one stop; every stop emits one `paused` and every resume
// one `continued`.

import type { Session } from 'node:inspector';
import { readFileSync } from 'node:fs';
import type {
  ArmedBreakpoint,
  LineFrameInfo,
  LineStopPrint,
  LineStepKind,
  LineStepMode,
  SourcePosition,
  VariableInfo,
  Breakpoint,
  BreakpointStatus,
  HostEvents,
} from '../../../protocol/host-protocol';
import { SourcePositionMapper, urlToPath } from '../../inspect/source-positions';
import { GeneratedPositions } from '../../inspect/generated-positions';
import { HitCount, hitConditionOf, HitsSince, type BreakpointsSetAt } from '../../inspect/hit-count';
import { addHeldTime, holdBegan } from '../../held-time';
import type { StopFrame } from './stop-place';
import { logpointTemplate } from './logpoint-message';
import { LineSteps, liveOnly } from './line-steps';

/** The CDP shapes used here (node:inspector's own protocol types, narrowed to what is read). */
export interface CdpLocation {
  scriptId: string;
  lineNumber: number;
  columnNumber?: number;
}
export interface CdpRemoteObject {
  type: string;
  subtype?: string;
  className?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  objectId?: string;
}
interface CdpScope {
  type: string;
  name?: string;
  object: CdpRemoteObject;
}
export interface CdpCallFrame {
  callFrameId: string;
  functionName: string;
  functionLocation?: CdpLocation;
  location: CdpLocation;
  scopeChain: CdpScope[];
}
export interface CdpPaused {
  callFrames: CdpCallFrame[];
  reason: string;
  hitBreakpoints?: string[];
}
interface CdpPropertyDescriptor {
  name: string;
  value?: CdpRemoteObject;
  get?: CdpRemoteObject;
}

/**
 * A frame as the line replay compares it: its function (by script and start), its source line, its generated
 * position.
 */
/**
 * What the line replay's walk does with a stop at one of its breakpoints: go on, stop there, or leave it to
 * the line step under way.
 */
export type WalkVerdict = 'resume' | 'stop' | 'step';

export interface WalkFrame {
  readonly frame: CdpCallFrame;
  readonly url: string;
  readonly functionKey: string;
  readonly line: string;
  readonly position: LineStopPrint['frames'][number];
}

/** Sources whose frames are the runtime's machinery: stepped through, not shown. */
const MACHINERY =
  /[\\/]runtime[\\/](coroutine|running-loop|task|loop|handle|ready-queue|future|fifo|timer-heap|shape-anchors|observer-fanout|wakeup-callback)\.ts$|[\\/]runtime[\\/](inspect|host|record)[\\/]|[\\/]protocol[\\/]/;
const MAX_VALUE = 200;

interface LineBreakpointEntry {
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
}

export type { BreakpointsSetAt } from '../../inspect/hit-count';

/**
 * The runtime's own library (queue.ts, lock.ts, sleep.ts, ...): a task the loop resumes is often
 * suspended inside it, so "follow the loop" comes out of it to the program's line.
 */
const LIBRARY = /[\\/]runtime[\\/][^\\/]+\.ts$/;

export interface LineDebuggerHost {
  /** Sends an event to the client. */
  emit<E extends 'paused' | 'continued' | 'output'>(event: E, body: HostEvents[E]): void;
  /** Called at each stop before `paused` is emitted (the worker answers what waited). */
  stopped(): Promise<void>;
  /** The main thread's held-time counter (held-time.ts): each hold is added before the thread goes on. */
  readonly heldTime: SharedArrayBuffer | null;
  /**
   * A line replay host's (line-replay-host.ts): the thread stops only where a walk, a search or
   * a line step asks; any other pause (a stepping V8 left behind, which breaks where a
   * generator it stepped over resumes in a later replay) is let go.
   */
  readonly replayOnly?: boolean;
}

function cut(text: string): string {
  return text.length <= MAX_VALUE ? text : `${text.slice(0, MAX_VALUE - 1)}…`;
}

export class LineDebugger {
  private readonly scripts = new Map<string, { url: string; sourceMapURL: string }>();
  private readonly reverse = new Map<string, GeneratedPositions | null>();
  private readonly mapper = new SourcePositionMapper();
  private readonly wanted = new Map<string, LineBreakpointEntry[]>();
  private readonly byCdpId = new Map<string, LineBreakpointEntry>();
  private current: CdpPaused | null = null;
  private stopTaskId: number | null = null;
  private stopTick = 0;
  /** The run stopped in is recorded (its past can be replayed: line-replay-host.ts). */
  private stopInRecorded = false;
  private handles = new Map<number, string>();
  private nextHandle = 1;
  private mode: LineStepMode = 'stayWithTask';
  /** When (this thread's clock) the main thread was paused; null while it runs. */
  private heldSince: number | null = null;
  private enabled: Promise<void>;
  private walk: {
    ids: ReadonlySet<string>;
    hook: (paused: CdpPaused) => Promise<WalkVerdict>;
    stopped: () => void;
  } | null = null;
  /** The line step under way, its temporary breakpoints (line-steps.ts). */
  private readonly steps: LineSteps;

  constructor(
    private readonly session: Session,
    private readonly host: LineDebuggerHost,
  ) {
    this.steps = new LineSteps({
      post: <T>(method: string, params: object) => this.post<T>(method, params),
      callMain: (expression) => this.callMain(expression),
      resume: (announce) => this.resume(announce),
      stop: (reason) => this.stop(reason),
      stepRaw: (kind) => this.stepRaw(kind),
      log: (text) => this.log(text),
      emit: (event, body) => this.host.emit(event, body),
      mode: () => this.mode,
      stopTick: () => this.stopTick,
      hasScript: (scriptId) => this.scripts.has(scriptId),
      positionOf: (loc) => this.positionOf(loc),
      lineOf: (frame) => this.lineOf(frame),
      isLibrary: (frame) => this.isLibrary(frame),
      isMachinery: (frame) => this.isMachinery(frame),
    });
    session.on('Debugger.scriptParsed', (m: { params: { scriptId: string; url: string; sourceMapURL?: string } }) =>
      this.onScript(m.params),
    );
    session.on('Debugger.paused', (m: { params: CdpPaused }) => {
      this.onPaused(m.params).catch((e: unknown) =>
        this.log(`line debugger: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      );
    });
    this.enabled = this.post('Debugger.enable', {}).then(() => undefined);
  }

  /** A Chrome DevTools Protocol call on the main thread's session (the line replay's walk plants with it). */
  cdp<T>(method: string, params: object): Promise<T> {
    return this.post<T>(method, params);
  }

  /**
   * The line replay's walk (past-line-walk.ts): stops at its breakpoints `ids` go to `hook`
   * instead, which says whether the main thread goes on or stops there (a stop like a step's),
   * or leaves the stop to the line step under way ('step'). `stopped` is told of every stop.
   */
  setWalkHook(
    ids: ReadonlySet<string>,
    hook: ((paused: CdpPaused) => Promise<WalkVerdict>) | null,
    stopped: (() => void) | null,
  ): void {
    this.walk = hook === null ? null : { ids, hook, stopped: stopped ?? (() => undefined) };
  }

  private post<T>(method: string, params: object): Promise<T> {
    return new Promise((resolve, reject) => {
      this.session.post(method, params, (err: Error | null, result?: object) =>
        err !== null && err !== undefined ? reject(err) : resolve(result as T),
      );
    });
  }

  private log(text: string): void {
    this.host.emit('output', { category: 'log', text: `${text}\n` });
  }

  isStopped(): boolean {
    return this.current !== null;
  }

  tick(): number {
    return this.stopTick;
  }

  /** The run of the current (or last) stop is recorded. */
  stopRecorded(): boolean {
    return this.stopInRecorded;
  }

  /**
   * Reads the source maps of the scripts loaded so far now, both ways (generated to TypeScript,
   * and TypeScript to generated: reverseOf), rather than at the first stop or breakpoint search
   * that needs them (a line replay host's first walk or search, line-replay-host.ts, would wait
   * on it: the reverse index alone took 100-300 ms of the first Reverse Continue).
   */
  async warm(): Promise<void> {
    await this.enabled;
    for (const [scriptId, s] of this.scripts) {
      this.mapper.map(s.url, 0, 0, s.sourceMapURL);
      this.reverseOf(scriptId)?.decode();
    }
  }

  setMode(mode: LineStepMode): void {
    this.mode = mode;
  }

  // --- scripts and breakpoints ---------------------------------------------------------------

  private onScript(p: { scriptId: string; url: string; sourceMapURL?: string }): void {
    if (p.sourceMapURL === undefined || p.sourceMapURL === '' || p.url === '' || p.url.startsWith('node:')) return;
    this.scripts.set(p.scriptId, { url: p.url, sourceMapURL: p.sourceMapURL });
    // A program loaded after its breakpoints were set.
    for (const [file, entries] of this.wanted) {
      if (entries.some((e) => e.cdpIds.length === 0) && this.reverseOf(p.scriptId)?.covers(file))
        void this.setLineBreakpoints(
          file,
          entries.map((e) => ({ file, line: e.line })),
          entries,
        );
    }
  }

  private reverseOf(scriptId: string): GeneratedPositions | null {
    let r = this.reverse.get(scriptId);
    if (r === undefined) {
      const s = this.scripts.get(scriptId);
      const loaded = s === undefined ? null : this.mapper.mapFor(s.url, s.sourceMapURL);
      r = loaded === null ? null : new GeneratedPositions(loaded);
      this.reverse.set(scriptId, r);
    }
    return r;
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
    for (const [i, bp] of breakpoints.entries()) {
      const hitCondition = hitConditionOf(bp.hitCondition);
      if ('refused' in hitCondition) {
        statuses.push({ file, line: bp.line, verified: false, message: hitCondition.refused });
        continue;
      }
      const hit = hitCondition.test;
      const entry: LineBreakpointEntry = reuse?.[i] ?? {
        file,
        line: bp.line,
        spec: bp,
        condition: conditionOf(bp),
        hits: new HitCount(hit),
        cdpIds: [],
        counting: hit === null ? null : HitsSince.from(setAt),
      };
      entries.push(entry);
      let placedLine: number | null = null;
      for (const at of this.generatedLocations(file, bp.line, text.length)) {
        const params: Record<string, unknown> = { url: at.url, lineNumber: at.line0, columnNumber: at.column0 };
        params.condition = liveOnly(entry.condition);
        try {
          const r = await this.post<{ breakpointId: string; locations: CdpLocation[] }>(
            'Debugger.setBreakpointByUrl',
            params,
          );
          entry.cdpIds.push(r.breakpointId);
          this.byCdpId.set(r.breakpointId, entry);
          placedLine = at.line;
        } catch {
          // Already set at that position by another entry: keep going.
        }
      }
      if (placedLine !== null)
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
   * Where TypeScript `file:line` runs in each loaded script: its generated position there, a
   * line without code (blank, a comment, a brace) slid to the next line with code (`line`: the
   * line it slid to; `fileLines`: the file's length, which bounds the slide).
   */
  generatedLocations(
    file: string,
    line: number,
    fileLines: number,
  ): Array<{ url: string; line0: number; column0: number; line: number }> {
    const out: Array<{ url: string; line0: number; column0: number; line: number }> = [];
    for (const [scriptId, script] of this.scripts) {
      const rev = this.reverseOf(scriptId);
      if (rev === null || !rev.covers(file)) continue;
      for (let l = line; l <= Math.min(line + 20, Math.max(fileLines, line)); l++) {
        const at = rev.positionOf(file, l);
        if (at === null) continue;
        out.push({ url: script.url, line0: at.line0, column0: at.column0, line: l });
        break;
      }
    }
    return out;
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

  // --- stops -----------------------------------------------------------------------------------

  private positionOf(loc: CdpLocation): { position: SourcePosition | null; generated: SourcePosition | null } {
    const s = this.scripts.get(loc.scriptId);
    if (s === undefined) return { position: null, generated: null };
    const m = this.mapper.map(s.url, loc.lineNumber, loc.columnNumber ?? 0, s.sourceMapURL);
    const generated = { file: urlToPath(s.url), line: loc.lineNumber + 1, column: (loc.columnNumber ?? 0) + 1 };
    return { position: m.mapped ? { file: m.file, line: m.line, column: m.column } : null, generated };
  }

  /**
   * The line a frame is on as the user reads it: its TypeScript line when mapped, else its
   * generated line. Generated lines alone do not do: tsx compiles a program's module with
   * its whitespace minified, so all its code may share one generated line.
   */
  private lineOf(frame: CdpCallFrame): string {
    const { position, generated } = this.positionOf(frame.location);
    const at = position ?? generated;
    return at === null ? `${frame.location.scriptId}:${frame.location.lineNumber}` : `${at.file}:${at.line}`;
  }

  private isLibrary(frame: CdpCallFrame): boolean {
    return LIBRARY.test(this.positionOf(frame.location).position?.file ?? '');
  }

  private isMachinery(frame: CdpCallFrame): boolean {
    const s = this.scripts.get(frame.location.scriptId);
    if (s === undefined) return true;
    const p = this.positionOf(frame.location).position;
    return p === null ? false : MACHINERY.test(p.file);
  }

  /** Calls the main thread's host handle (globalThis.__coroscopeLine) in the stopped frame. */
  async callMain(expression: string): Promise<unknown> {
    const frame = this.current?.callFrames[0];
    if (frame === undefined) throw new Error('not stopped on a line');
    const r = await this.post<{
      result: CdpRemoteObject;
      exceptionDetails?: { text: string; exception?: CdpRemoteObject };
    }>('Debugger.evaluateOnCallFrame', {
      callFrameId: frame.callFrameId,
      expression: `globalThis.__coroscopeLine.${expression}`,
      returnByValue: true,
      silent: true,
    });
    if (r.exceptionDetails !== undefined)
      throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value;
  }

  private async onPaused(ev: CdpPaused): Promise<void> {
    if (this.heldSince === null) {
      this.heldSince = performance.now();
      // The loop's clock stands still from now on, for what is evaluated in the stop too.
      if (this.host.heldTime !== null) holdBegan(this.host.heldTime);
    }
    this.current = ev;
    const hits = ev.hitBreakpoints ?? [];
    const top = ev.callFrames[0];
    if (top === undefined) return this.resume();
    const walk = this.walk;
    if (walk !== null && hits.some((id) => walk.ids.has(id))) {
      const verdict = await walk.hook(ev);
      if (verdict === 'resume') return this.resume(false);
      if (verdict === 'stop') return this.stop('step');
    }
    const step = this.steps.step;
    // The stepped task suspended: say so, then run until it resumes (or follow the loop).
    if (hits.some((id) => this.steps.isMarker(id))) return this.steps.suspended(ev, step);
    const userHits = hits.map((id) => this.byCdpId.get(id)).filter((e): e is LineBreakpointEntry => e !== undefined);
    const tempHit = hits.some((id) => this.steps.isTemp(id));
    if (userHits.length > 0) {
      let stop = false;
      for (const e of userHits) {
        const count = e.hits.count();
        if (e.counting?.open === true) await this.noteHitTick(e.counting);
        if (count !== null) stop = true;
      }
      if (stop) return this.stop('breakpoint');
      if (step === null) return this.resume(false);
    }
    if (step !== null) return this.steps.stepped(ev, step, top, tempHit);
    if (this.host.replayOnly === true) return this.resume(false);
    return this.stop(ev.reason === 'other' ? 'pause' : 'breakpoint');
  }

  /**
   * A hit counted live of a hit condition set while the run went: its tick, while it may be the one the
   * breakpoint was set in.
   */
  private async noteHitTick(counting: HitsSince): Promise<void> {
    const w = (await this.callMain('where()').catch(() => null)) as { tick?: unknown } | null;
    if (typeof w?.tick === 'number') counting.noteTick(w.tick);
  }

  private async stop(reason: 'breakpoint' | 'step' | 'pause'): Promise<void> {
    await this.steps.clearTemps();
    this.steps.step = null;
    this.handles = new Map();
    const where = await this.callMain('where()').catch(() => null);
    const w = (typeof where === 'object' && where !== null ? where : {}) as {
      taskId?: unknown;
      tick?: unknown;
      taskName?: unknown;
      recorded?: unknown;
    };
    this.stopTaskId = typeof w.taskId === 'number' ? w.taskId : null;
    this.stopTick = typeof w.tick === 'number' ? w.tick : 0;
    this.stopInRecorded = w.recorded === true;
    const meanwhile = this.steps.meanwhile;
    if (meanwhile !== null && reason === 'step' && meanwhile.taskId === this.stopTaskId)
      await this.steps.sayMeanwhile(
        meanwhile,
        typeof w.taskName === 'string' ? w.taskName : `task #${meanwhile.taskId}`,
      );
    this.steps.meanwhile = null;
    await this.host.stopped();
    const top = this.current!.callFrames.find((f) => !this.isMachinery(f)) ?? this.current!.callFrames[0]!;
    const pos = this.positionOf(top.location);
    const line = pos.position ?? pos.generated;
    const who = typeof w.taskName === 'string' ? `${w.taskName}` : 'the main thread';
    const at = line === null ? '' : ` at ${line.file}:${line.line}`;
    const body: HostEvents['paused'] = { reason, tick: this.stopTick, description: `${who} stopped on a line${at}` };
    if (this.stopTaskId !== null) body.taskId = this.stopTaskId;
    if (line !== null) body.line = line;
    this.host.emit('paused', body);
    this.walk?.stopped();
  }

  // --- execution --------------------------------------------------------------------------------

  /** The main thread is about to go on: its hold (since the first pause of this stop) is counted as held time. */
  private countHold(): void {
    if (this.heldSince === null) return;
    if (this.host.heldTime !== null) addHeldTime(this.host.heldTime, performance.now() - this.heldSince);
    this.heldSince = null;
  }

  /** Resumes the main thread (continue). */
  async resume(announce = true): Promise<void> {
    if (this.current === null) return;
    this.current = null;
    this.handles = new Map();
    if (announce) {
      await this.steps.clearTemps();
      this.steps.step = null;
      this.steps.meanwhile = null;
    }
    this.countHold();
    await this.post('Debugger.resume', {});
    if (announce) this.host.emit('continued', { tick: this.stopTick });
  }

  /**
   * Drops the line step under way, if any, with its temporary breakpoints (a line replay's walk let go before
   * the step stopped).
   */
  async dropStep(): Promise<void> {
    this.steps.step = null;
    await this.steps.clearTemps();
  }

  /** Lets the program run with breakpoints off (a stop or a new launch while stopped); `on` turns them back. */
  async setBreakpointsActive(on: boolean): Promise<void> {
    await this.post('Debugger.setBreakpointsActive', { active: on });
  }

  /** One V8 step (over, into, out) from the current pause. */
  private async stepRaw(kind: LineStepKind): Promise<void> {
    this.current = null;
    this.countHold();
    await this.post(
      kind === 'over' ? 'Debugger.stepOver' : kind === 'into' ? 'Debugger.stepInto' : 'Debugger.stepOut',
      {},
    );
  }

  /** One line step from the current stop. */
  async lineStep(kind: LineStepKind): Promise<void> {
    const paused = this.current;
    if (paused === null) throw new Error('lineStep: the program is not stopped on a line');
    await this.steps.plan(kind, paused.callFrames, this.stopTaskId);
    this.host.emit('continued', { tick: this.stopTick });
    this.handles = new Map();
    await this.stepRaw(kind);
  }

  // --- the line replay (line-replay-host.ts, past-line-walk.ts) ---------------------------------

  /**
   * A paused thread's frames outside the machinery, innermost first, as the line replay compares
   * them: a task's own, down to the Task._step that resumed it. What runs the loop below that
   * step is no frame of the task, and differs between runs of the same tick: the live host's
   * loop ticks from the event loop's callbacks, a replay's first tick inside the call that
   * started the program (a sample's runUntilComplete, its `run` below it).
   */
  walkFrames(paused: CdpPaused): WalkFrame[] {
    const out: WalkFrame[] = [];
    for (const f of paused.callFrames) {
      if (f.functionName === '_step' && this.isMachinery(f)) break;
      if (this.isMachinery(f)) continue;
      const url = this.scripts.get(f.location.scriptId)?.url ?? '';
      const fn = f.functionLocation;
      out.push({
        frame: f,
        url,
        functionKey: fn === undefined ? `${url}:?` : `${url}:${fn.lineNumber}:${fn.columnNumber ?? 0}`,
        line: this.lineOf(f),
        position: {
          url,
          functionLine: fn?.lineNumber ?? 0,
          functionColumn: fn?.columnNumber ?? 0,
          line: f.location.lineNumber,
          column: f.location.columnNumber ?? 0,
        },
      });
    }
    return out;
  }

  /**
   * Every frame of the current stop, Node's and the machinery's too, innermost first, as stop-place.ts reads
   * them (empty: not stopped).
   */
  stopFrames(): StopFrame[] {
    return (this.current?.callFrames ?? []).map((f) => {
      const { position, generated } = this.positionOf(f.location);
      const at = position ?? generated;
      return {
        functionName: f.functionName,
        url: this.scripts.get(f.location.scriptId)?.url ?? '',
        file: at?.file ?? null,
        line: at?.line ?? null,
      };
    });
  }

  /** The frames of the current stop outside the machinery, innermost first (empty: not stopped). */
  stoppedFrames(): WalkFrame[] {
    return this.current === null ? [] : this.walkFrames(this.current);
  }

  /** A frame's position as shown: its TypeScript line when mapped, else its generated one. */
  positionOfFrame(frame: CdpCallFrame): SourcePosition | null {
    const { position, generated } = this.positionOf(frame.location);
    return position ?? generated;
  }

  /** A frame's local variables as shown (name and value). */
  async localsOf(frame: CdpCallFrame): Promise<Array<{ name: string; value: string }>> {
    const local = frame.scopeChain.find((sc) => sc.type === 'local');
    if (local?.object.objectId === undefined) return [];
    const r = await this.post<{ result: CdpPropertyDescriptor[] }>('Runtime.getProperties', {
      objectId: local.object.objectId,
      ownProperties: true,
      generatePreview: false,
    });
    return r.result
      .filter((p) => p.value !== undefined)
      .map((p) => ({ name: p.name, value: this.valueText(p.value!) }));
  }

  /**
   * The current stop as the line replay matches it (LineStopPrint): frames, the innermost's locals, its
   * functions' break locations.
   */
  async stopPrint(): Promise<{ taskId: number | null; tick: number; print: LineStopPrint }> {
    const paused = this.requireStop('lineStepBack');
    const frames = this.walkFrames(paused);
    const locations: LineStopPrint['locations'] = [];
    const seen = new Set<string>();
    for (const f of frames) {
      const fn = f.frame.functionLocation;
      if (fn === undefined || seen.has(f.functionKey)) continue;
      seen.add(f.functionKey);
      const r = await this.post<{ locations: CdpLocation[] }>('Debugger.getPossibleBreakpoints', {
        start: fn,
        restrictToFunction: true,
      });
      for (const loc of r.locations)
        locations.push({ url: f.url, line: loc.lineNumber, column: loc.columnNumber ?? 0 });
    }
    const locals = frames[0] === undefined ? [] : await this.localsOf(frames[0].frame);
    return {
      taskId: this.stopTaskId,
      tick: this.stopTick,
      print: {
        frames: frames.map((f) => f.position),
        locals,
        locations,
        names: frames.map((f) => f.frame.functionName),
      },
    };
  }

  // --- what a stop shows -------------------------------------------------------------------------

  private handleOf(objectId: string | undefined): number {
    if (objectId === undefined) return 0;
    const h = this.nextHandle++;
    this.handles.set(h, objectId);
    return h;
  }

  private requireStop(method: string): CdpPaused {
    if (this.current === null) throw new Error(`${method}: the program is not stopped on a line`);
    return this.current;
  }

  /** The real frames of the stop, innermost first, the machinery left out. */
  stack(): { taskId: number | null; frames: LineFrameInfo[] } {
    const paused = this.requireStop('lineStack');
    const frames: LineFrameInfo[] = [];
    for (const f of paused.callFrames) {
      // A task's frames end at the Task._step that resumed it (walkFrames says why).
      if (f.functionName === '_step' && this.isMachinery(f)) break;
      if (this.isMachinery(f)) continue;
      const { position, generated } = this.positionOf(f.location);
      const scopes = f.scopeChain
        .filter((s) => s.type !== 'global')
        .map((s) => ({ name: scopeName(s), handle: this.handleOf(s.object.objectId) }));
      frames.push({
        index: frames.length,
        name: f.functionName === '' ? '(anonymous)' : f.functionName,
        position,
        generated,
        scopes,
      });
    }
    return { taskId: this.stopTaskId, frames };
  }

  private frameAt(method: string, index: number): CdpCallFrame {
    const user = this.requireStop(method).callFrames.filter((f) => !this.isMachinery(f));
    const f = user[index];
    if (f === undefined) throw new Error(`${method}: no frame ${index} (0..${user.length - 1})`);
    return f;
  }

  async variables(handle: number): Promise<VariableInfo[]> {
    this.requireStop('lineVariables');
    const objectId = this.handles.get(handle);
    if (objectId === undefined) throw new Error(`lineVariables: handle ${handle} is not valid at this stop`);
    const r = await this.post<{ result: CdpPropertyDescriptor[] }>('Runtime.getProperties', {
      objectId,
      ownProperties: true,
      generatePreview: false,
    });
    return r.result.filter((p) => p.value !== undefined).map((p) => this.variableOf(p.name, p.value!));
  }

  async evaluate(expression: string, frameIndex: number): Promise<{ value: string; type: string; handle: number }> {
    const frame = this.frameAt('lineEvaluate', frameIndex);
    const r = await this.post<{
      result: CdpRemoteObject;
      exceptionDetails?: { text: string; exception?: CdpRemoteObject };
    }>('Debugger.evaluateOnCallFrame', { callFrameId: frame.callFrameId, expression, silent: true });
    if (r.exceptionDetails !== undefined)
      throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    const v = this.variableOf('', r.result);
    return { value: v.value, type: v.type, handle: v.handle };
  }

  private variableOf(name: string, o: CdpRemoteObject): VariableInfo {
    const type = o.subtype !== undefined ? o.subtype : (o.className ?? o.type);
    return { name, value: this.valueText(o), type, handle: o.type === 'function' ? 0 : this.handleOf(o.objectId) };
  }

  private valueText(o: CdpRemoteObject): string {
    if (o.type === 'string') return JSON.stringify(cut(String(o.value)));
    if (o.unserializableValue !== undefined) return o.unserializableValue;
    if (o.type === 'undefined') return 'undefined';
    if (o.objectId === undefined) return String(o.value);
    return cut(o.description ?? o.className ?? o.type);
  }
}

function scopeName(s: CdpScope): string {
  switch (s.type) {
    case 'local':
      return 'Locals';
    case 'closure':
      return s.name !== undefined && s.name !== '' ? `Closure (${s.name})` : 'Closure';
    case 'block':
      return 'Block';
    case 'catch':
      return 'Catch';
    case 'script':
      return 'Script';
    case 'module':
      return 'Module';
    default:
      return s.type;
  }
}

/** The key of the next logpoint with a hit condition set (its hits counted from 0 by the main thread). */
let nextLogpointKey = 1;

/** A V8 breakpoint condition for a breakpoint: its own condition, and a logpoint's printing (which never stops). */
function conditionOf(bp: Breakpoint): string | null {
  const cond = bp.condition !== undefined && bp.condition.trim() !== '' ? bp.condition : null;
  if (bp.logMessage === undefined || bp.logMessage === '') return cond;
  // A hit condition: counted on the main thread, for this logpoint as set (a new key each time it is set).
  const hits =
    bp.hitCondition !== undefined && bp.hitCondition.trim() !== ''
      ? `globalThis.__coroscopeLine.logHit(${nextLogpointKey++}, ${JSON.stringify(bp.hitCondition)}) && `
      : '';
  const log = `${hits}(console.log(${logpointTemplate(bp.logMessage)}), false)`;
  return cond === null ? log : `(${cond}) && ${log}`;
}
