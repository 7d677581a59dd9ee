// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// LineSteps: the line step under way of a LineDebugger: its state, the temporary breakpoints that
// keep it with its task (its functions' break locations conditioned on the task running, markers
// in `_step`), and what each pause during the step means (machinery and glue stepped through, the
// runtime's library stepped over, the landing; a step limited to one task lapses into "follow the
// loop" once that task ended). The LineDebugger owns the session and the stop; it is asked through a StepPort.
//
// Invariants: temporaries are removed at every stop and continue; a step gives up after
// MAX_AUTO_STEPS automatic steps; "meanwhile" is said once, at the landing in the stepped task; a
// step over never pauses on its own line in its own function (a one-line loop runs through).

import { readFileSync } from 'node:fs';
import type { HostEvents, LineStepKind, LineStepMode, SourcePosition } from '../../../protocol/host-protocol';
import type { CdpCallFrame, CdpLocation, CdpLocationRange, CdpPaused, CdpRemoteObject } from './cdp-shapes';

/** Task._step's comment on the line before its resume of the task: "follow the loop" steps into it. */
const RESUME_MARK = /The resume \(the line debugger's "follow the loop"/;
/**
 * The callee of a `yield*` of a call on a line (`yield* middle(log)`, `yield* this.session.get(url)`): a name
 * or a chain of property reads.
 */
const DELEGATED_CALL = /yield\*\s*((?:this|[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*)\s*\(/;
/** Auto steps through machinery before giving up on a step. */
const MAX_AUTO_STEPS = 400;

/** A line step under way. */
export interface StepState {
  /**
   * 'follow': waiting for `_step` to resume the next task; 'followInto': going into it; 'followOut': coming
   * out of the runtime's library into the program.
   */
  kind: LineStepKind | 'follow' | 'followInto' | 'followOut';
  /** The task the step belongs to (null: outside any task). */
  taskId: number | null;
  /**
   * Limited to its task (DAP `singleThread`, "Follow This Task"): other tasks' breakpoint hits do not stop it,
   * and it stays with its task in either step mode, until the task ends (lapse()).
   */
  oneTask?: true;
  /**
   * A Step Out of its task's top frame limited to the task: no line of the task lands it, it goes on to the task's
   * end (where the limit lapses). The task's top function (`untilEnd`'s frame) and `_step` (its markers) are kept.
   */
  untilEnd?: { readonly top: CdpCallFrame; readonly stepFrame: CdpCallFrame };
  /** Following the loop into a task: the step has left `_step` for the task's code (a return to it is the end). */
  entered?: true;
  /** Following the loop out of the library into a task: that task's own functions hold temporaries. */
  staysPlanted?: true;
  /** The frame the step started in (its function and line), for "the yield* resumed". */
  originFunction: string | null;
  /** The source line the step started on (lineOf: a whole module may be one generated line). */
  originLine: string | null;
  autoSteps: number;
  /**
   * A step over that was resumed inside a callee of its line and stepped out of it: back on that line, it
   * steps over the rest.
   */
  outOfCallee?: boolean;
}

/** What a line step needs of its LineDebugger: its session, its stop, and how it reads frames. */
export interface StepPort {
  post<T>(method: string, params: object): Promise<T>;
  /** Calls the main thread's host handle in the stopped frame (LineDebugger.callMain). */
  callMain(expression: string): Promise<unknown>;
  resume(announce?: boolean): Promise<void>;
  stop(reason: 'breakpoint' | 'step' | 'pause'): Promise<void>;
  /** One V8 step (over, into, out) from the current pause. */
  stepRaw(kind: LineStepKind): Promise<void>;
  log(text: string): void;
  emit(event: 'output', body: HostEvents['output']): void;
  mode(): LineStepMode;
  /** The tick of the current (or last) stop. */
  stopTick(): number;
  /** The debugger knows a parsed script of this id (LineDebugger's scripts). */
  hasScript(scriptId: string): boolean;
  positionOf(loc: CdpLocation): { position: SourcePosition | null; generated: SourcePosition | null };
  lineOf(frame: CdpCallFrame): string;
  /** The line of a break location, as lineOf says a frame's. */
  lineOfLocation(loc: CdpLocation): string;
  isLibrary(frame: CdpCallFrame): boolean;
  isMachinery(frame: CdpCallFrame): boolean;
  /** The name of the task of the current (or last) stop (null: outside any task, or not known). */
  stopTaskName(): string | null;
}

export class LineSteps {
  /** The line step under way; null: none. */
  step: StepState | null = null;
  private temps = new Set<string>();
  /**
   * A step over's own line in its own function: the generated ranges of its break locations, which V8's steps
   * skip (Debugger.stepOver's skipList) and where no temporary is planted. A line that loops on itself (`for
   * (const x of xs) if (f(x)) n++;`) paused at each of its break locations on every turn, each pause a round
   * trip to this thread and a new planting of the temporaries: 300 turns took 43 s, and the step gave up on
   * the same line. V8 still breaks there inside (its inspector skips them): about 10 ms a turn.
   */
  private ownLine: { key: string | null; line: string; ranges: CdpLocationRange[] } | null = null;
  /** The step under way has crossed a suspension of its task (a marker in `_step` was hit). */
  private crossed = false;
  /** Breakpoints in `_step` after it resumed the stepped task: the first one hit says the task gave the thread back. */
  private markers = new Set<string>();
  /**
   * Temporaries at `_step`'s resume of any task, planted once the task a step is limited to ended (a marker in
   * `_step` hit as its coroutine returned or raised), taken once it is gone: the limit lapses there (lapse()).
   * Planted only then: a breakpoint in `_step`, the loop's hottest path, costs every task step meanwhile. Also
   * in `temps`.
   */
  private lapses = new Set<string>();
  /** Where `_step` resumes a task, by `_step`'s function location (a script's code does not change). */
  private readonly resumesOf = new Map<string, CdpLocation[]>();
  /** `_step`'s frame where the step began to follow the loop (its resumes are planted again from it). */
  private followFrom: CdpCallFrame | null = null;
  /**
   * The line step under way crossed a suspension of its task: the tick and every task's steps then (what ran
   * meanwhile is said where it lands).
   */
  meanwhile: { taskId: number; tick: number; steps: Map<number, [string, number]> } | null = null;

  /** TypeScript sources read for their lines (sourceText), by file. */
  private readonly sourceLines = new Map<string, string[]>();

  constructor(private readonly d: StepPort) {}

  /** What a V8 step over of the step under way skips: its own line (none while not a step over of it). */
  skipList(): CdpLocationRange[] {
    return this.step?.kind === 'over' && this.ownLine !== null && this.step.originFunction === this.ownLine.key
      ? this.ownLine.ranges
      : [];
  }

  /** A temporary breakpoint of the step under way. */
  isTemp(id: string): boolean {
    return this.temps.has(id);
  }

  /** A marker in `_step`: the stepped task gave the thread back. */
  isMarker(id: string): boolean {
    return this.markers.has(id);
  }

  /** A temporary where the limit of a step to one task lapses: that task ended, `_step` resumes another. */
  isLapse(id: string): boolean {
    return this.lapses.has(id);
  }

  /**
   * The task the step under way is limited to (or stays with) ended, and `_step` is about to resume another
   * task: the limit lapses with it, and the step goes on as "follow the loop" does, into that task, to the next
   * line the loop runs (as a step from an async function's last line returns to whoever runs next). Nothing is
   * scheduled otherwise: where it lands is where the program goes anyway.
   */
  async lapse(ev: CdpPaused, step: StepState): Promise<void> {
    await this.clearTemps();
    this.followFrom = this.stepFrameOf(ev.callFrames) ?? null;
    const name = this.d.stopTaskName() ?? `task #${step.taskId}`;
    this.d.emit('output', {
      category: 'log',
      text: `${name} ended: the step ${step.oneTask === true ? 'limited to it ' : ''}goes on to the next line the loop runs\n`,
    });
    this.step = following('followInto');
    return this.d.stepRaw('into');
  }

  /** Following the loop: on to where `_step` (of `stepFrame`, when known) next resumes a task. */
  private async refollow(stepFrame: CdpCallFrame | undefined): Promise<void> {
    await this.clearTemps();
    if (stepFrame !== undefined) await this.plantResumeOfAnyTask(stepFrame);
    this.step = following('follow');
    return this.d.resume(false);
  }

  /**
   * The stepped task suspended (a marker in `_step` was hit): say so, then run until it resumes
   * (or, following the loop, until `_step` resumes the next task).
   */
  async suspended(ev: CdpPaused, step: StepState | null): Promise<void> {
    this.crossed = true;
    for (const id of this.markers) await this.removeBreakpoint(id);
    this.markers = new Set();
    // Following the loop out of the library into a task, that task gave the thread back with no line of its own
    // run (it waited again inside the library): the next task `_step` resumes is followed.
    if (step?.kind === 'followOut' && step.taskId === null) return this.refollow(this.stepFrameOf(ev.callFrames));
    if (step !== null && step.taskId !== null) {
      // In `_step`, `r` is the resume's result (esbuild keeps the name): its value is the future the task waits on;
      // done, its coroutine returned; none yet (the resume threw: `_step`'s catch), it raised. The task ends then.
      const result = `typeof r === 'object' && r !== null`;
      const ended = `${result} ? (r.done === true ? 'returned' : null) : typeof r === 'undefined' ? 'raised' : null`;
      const note = await this.d
        .callMain(`suspension(${step.taskId}, ${result} ? r.value : undefined, ${ended})`)
        .catch(() => null);
      // Following the loop, the next task's resume is planted below whatever became of this one.
      if (step.oneTask === true || this.d.mode() !== 'followLoop') {
        const how = await this.evaluateIn(ev.callFrames[0], ended);
        // The task ended: where `_step` resumes the next task, the step lapses into following the loop (limited
        // to the task or staying with it, it would wait for a resume that never comes). Else, out of its top
        // frame, limited to the task, its lines are watched for its resume (the markers planted again then).
        if (how === 'returned' || how === 'raised') await this.plantLapse(ev.callFrames, step.taskId);
        else if (step.oneTask === true && step.untilEnd !== undefined)
          await this.plantStay(step.untilEnd.top, [], step.taskId);
      }
      if (typeof note === 'string') this.d.emit('output', { category: 'log', text: `${note}\n` });
      if (this.meanwhile === null) {
        const counts = await this.d.callMain('stepCounts()').catch(() => null);
        const w = (await this.d.callMain('where()').catch(() => null)) as { tick?: unknown } | null;
        if (Array.isArray(counts) && typeof w?.tick === 'number')
          this.meanwhile = {
            taskId: step.taskId,
            tick: w.tick,
            steps: new Map(stepCountsOf(counts).map(([id, name, n]) => [id, [name, n]])),
          };
      }
      if (this.d.mode() === 'followLoop' && step.oneTask !== true)
        return this.refollow(this.stepFrameOf(ev.callFrames));
    }
    return this.d.resume(false);
  }

  /** A pause while a line step is under way: on through machinery and glue, or the step's landing. */
  async stepped(ev: CdpPaused, step: StepState, top: CdpCallFrame, tempHit: boolean): Promise<void> {
    if (step.untilEnd !== undefined && step.taskId !== null) {
      // Out of the task's top frame, limited to it: no pause lands it. Resumed (a line of it): its lines are let
      // go and the markers planted again, so its next suspension or its end is seen.
      if (tempHit) {
        await this.clearTemps();
        await this.plantMarkers(step.untilEnd.stepFrame, step.taskId);
      }
      return this.d.resume(false);
    }
    if (step.kind === 'follow' && tempHit) {
      // At `_step` about to resume a task: step into it.
      await this.clearTemps();
      this.followFrom = this.stepFrameOf(ev.callFrames) ?? null;
      this.step = { ...step, kind: 'followInto', autoSteps: 0 };
      return this.d.stepRaw('into');
    }
    const followed = step.kind === 'followInto' || step.kind === 'followOut' ? this.followFrom : null;
    const atStep = this.isStepFrame(top);
    if (followed !== null && !atStep) step.entered = true;
    if (this.d.isMachinery(top) || ev.callFrames.every((f) => this.d.isMachinery(f))) {
      if (followed !== null && ((atStep && step.entered === true) || this.stepFrameOf(ev.callFrames) === undefined)) {
        // The task followed gave the thread back with no line of the program run (it waited again inside the
        // runtime's library): the next task `_step` resumes is followed instead, not the loop's machinery
        // stepped through until the step gives up and the program runs on.
        return this.refollow(followed);
      }
      if (++step.autoSteps > MAX_AUTO_STEPS) {
        this.d.log('line debugger: the step ran too long in the runtime machinery; continuing');
        this.step = null;
        return this.d.resume(false);
      }
      // Into a script of no source map (Node's own: what an `error.stack` read runs): out of
      // it, as js-debug's skipFiles does.
      if ((step.kind === 'into' || step.kind === 'followInto') && !this.d.hasScript(top.location.scriptId))
        return this.d.stepRaw('out');
      // A call the machinery makes of its own (createTask's Task, the recorder's and inspector's hooks), under
      // the line stepped from: out of it, back to the machinery frame that made it. Only the program's own
      // code is stepped into, and a task made with a name would otherwise take hundreds of steps.
      const caller = ev.callFrames[1];
      if (
        step.kind === 'into' &&
        caller !== undefined &&
        this.d.hasScript(caller.location.scriptId) &&
        this.d.isMachinery(caller) &&
        ev.callFrames.some((f) => !this.d.isMachinery(f) && functionKey(f) === step.originFunction)
      )
        return this.d.stepRaw('out');
      // Into a call through the runtime's machinery (the coroutine wrapper): go on into.
      if (step.kind === 'into' || step.kind === 'follow' || step.kind === 'followInto' || step.kind === 'followOut')
        return this.d.stepRaw('into');
      // Out of the task's root (its generator returned) or of a callback: the temporaries
      // stay planted for "stay with this task"; otherwise run on.
      return this.d.resume(false);
    }
    if (this.d.positionOf(top.location).position === null && ++step.autoSteps <= MAX_AUTO_STEPS) {
      // The bundler's own glue (esbuild's __name, __publicField, a module's export getter):
      // no line of the program; a step into goes on through it, any other step out of it.
      return this.d.stepRaw(step.kind === 'into' ? 'into' : 'out');
    }
    const fnKey = functionKey(top);
    if (step.kind === 'followInto' || step.kind === 'followOut') {
      if (this.d.isLibrary(top) && ++step.autoSteps <= MAX_AUTO_STEPS) {
        // Resumed inside the runtime's library (the queue.get it waited on, the program's
        // frame below it): over its lines, back to the program. Library code `_step` itself
        // calls before it resumes the task is stepped out of, going on into the task after.
        const stepAt = ev.callFrames.findIndex((f) => this.isStepFrame(f));
        // The task's own frames under the library code (its program's functions, up to `_step`).
        const own = ev.callFrames
          .slice(1, stepAt < 0 ? undefined : stepAt)
          .filter((f) => !this.d.isMachinery(f) && !this.d.isLibrary(f));
        if (own.length === 0) {
          // None of the task's own code under it: the step follows the next resume of a task by `_step` (this
          // one's, if not passed yet), not this library code's way back through the machinery, line by line.
          if (followed !== null) return this.refollow(followed);
          return this.d.stepRaw('out');
        }
        step.kind = 'followOut';
        // Over the library's lines, back to the task's own. V8's step over does not always come back: out of a
        // generator the machinery resumed (a sleep ending) it went past the task's next lines, into its next
        // call, those lines run unseen. So the task's own functions under the library take the temporaries too
        // (once), and whichever comes first lands the step; a marker says the task gave the thread back first.
        if (step.staysPlanted !== true) {
          step.staysPlanted = true;
          const followedTask = await this.d.callMain('current()').catch(() => null);
          if (typeof followedTask === 'number') {
            await this.clearTemps();
            for (const f of own) await this.plantStay(f, ev.callFrames, followedTask);
          }
        }
        return this.d.stepRaw('over');
      }
      // Back in the program: the task's first line after the `yield*` it resumed from.
    }
    if (
      step.kind === 'into' &&
      step.taskId !== null &&
      this.d.isLibrary(top) &&
      functionKey(ev.callFrames.slice(1).find((f) => !this.d.isMachinery(f) && !this.d.isLibrary(f)) ?? top) ===
        step.originFunction &&
      ++step.autoSteps <= MAX_AUTO_STEPS
    ) {
      // Into the runtime's own library from a task's line (`yield* sleep(0.01)`, `q.get()`):
      // stepped over as my code only, so a line that suspends lands on the task's next line
      // once resumed (the suspension said in the output).
      step.kind = 'over';
      step.outOfCallee = true;
      return this.d.stepRaw('out');
    }
    if (
      step.kind === 'over' &&
      !tempHit &&
      fnKey !== step.originFunction &&
      ev.callFrames.slice(1).some((f) => !this.d.isMachinery(f) && functionKey(f) === step.originFunction) &&
      ++step.autoSteps <= MAX_AUTO_STEPS
    ) {
      // Resumed inside a callee of the line stepped over: V8 breaks where the generator a
      // `yield*` delegated to resumes (sleep's bare `yield`), which no step over stops in.
      // Out of it, and on over the rest of the line (the temporaries catch it there too).
      step.outOfCallee = true;
      return this.d.stepRaw('out');
    }
    if (
      step.kind === 'over' &&
      step.outOfCallee === true &&
      fnKey === step.originFunction &&
      this.d.lineOf(top) === step.originLine &&
      ++step.autoSteps <= MAX_AUTO_STEPS
    ) {
      step.outOfCallee = false;
      return this.d.stepRaw('over');
    }
    if (
      step.kind === 'into' &&
      fnKey === step.originFunction &&
      this.d.lineOf(top) === step.originLine &&
      ++step.autoSteps <= MAX_AUTO_STEPS
    ) {
      // Back on the line from a call that only made a generator (the coroutine wrapper):
      // go on into, to where `yield*` runs it.
      return this.d.stepRaw('into');
    }
    if (tempHit && step.kind === 'over' && fnKey === step.originFunction && this.d.lineOf(top) === step.originLine) {
      // The `yield*` the step started on resumed: step over the rest of it. Or, the task not having suspended,
      // its line came round again (a loop on one line): the rest runs with that line skipped (ownLine).
      if (++step.autoSteps > MAX_AUTO_STEPS) return this.d.stop('step');
      if (!this.crossed && this.ownLine === null && step.originLine !== null)
        this.ownLine = { key: step.originFunction, line: step.originLine, ranges: [] };
      await this.clearTemps();
      for (const f of this.chainOf(ev.callFrames)) await this.plantStay(f, ev.callFrames, step.taskId);
      return this.d.stepRaw('over');
    }
    return this.d.stop('step');
  }

  /**
   * Sets up one line step from a stop in `frames` (task `taskId`, null: outside any task): its
   * state, and the temporary breakpoints that keep it with the task. The caller then steps V8.
   */
  async plan(
    kind: LineStepKind,
    frames: readonly CdpCallFrame[],
    taskId: number | null,
    oneTask = false,
  ): Promise<void> {
    const userIndex = frames.findIndex((f) => !this.d.isMachinery(f));
    const top = frames[Math.max(0, userIndex)]!;
    this.step = { kind, taskId, originFunction: functionKey(top), originLine: this.d.lineOf(top), autoSteps: 0 };
    if (oneTask && taskId !== null) this.step.oneTask = true;
    this.meanwhile = null;
    this.ownLine = null;
    this.crossed = false;
    this.followFrom = null;
    // The task's frames below the top one, innermost first: where the step lands when the top
    // one returns, or when an exception leaves it and travels up the `yield*` chain.
    const callers = this.chainOf(frames).filter((f) => f !== top && functionKey(f) !== functionKey(top));
    if (taskId !== null) {
      if (kind === 'out') {
        const parent = callers[0];
        if (parent !== undefined) {
          this.step.originFunction = functionKey(parent);
          this.step.originLine = this.d.lineOf(parent);
          this.step.kind = 'over';
          for (const f of callers) await this.plantStay(f, frames, taskId);
        } else {
          // Out of the task's top frame, limited to the task: on to its end, where the limit lapses; the markers
          // see each suspension (and the end) while it runs.
          const stepFrame = this.stepFrameOf(frames);
          if (this.step.oneTask === true && stepFrame !== undefined) {
            this.step.untilEnd = { top, stepFrame };
            await this.plantMarkers(stepFrame, taskId);
          }
        }
      } else {
        await this.plantStay(top, frames, taskId);
        for (const f of callers) await this.plantStay(f, frames, taskId);
      }
    }
    // V8 does not step into the first run of a plain generator a `yield*` delegates to (it
    // starts inside the builtin `next`): its first line is planted.
    if (kind === 'into') await this.plantDelegate(top, taskId);
  }

  /**
   * Says, at a step's landing across a suspension of its task, when the task was resumed and which other
   * tasks the loop ran meanwhile.
   */
  async sayMeanwhile(
    since: { taskId: number; tick: number; steps: Map<number, [string, number]> },
    task: string,
  ): Promise<void> {
    const counts = await this.d.callMain('stepCounts()').catch(() => null);
    if (!Array.isArray(counts)) return;
    const now = stepCountsOf(counts);
    const ran = now
      .filter(([id]) => id !== since.taskId)
      .map(([id, name, n]) => [name, n - (since.steps.get(id)?.[1] ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .map(([name, n]) => `${name} (${n} step${n === 1 ? '' : 's'})`);
    // A task live at the suspension and gone now ran to its end meanwhile.
    for (const [id, [name]] of since.steps)
      if (id !== since.taskId && !now.some(([nowId]) => nowId === id)) ran.push(`${name} (to its end)`);
    const ticks = this.d.stopTick() - since.tick;
    const when = `${task} resumed at tick ${this.d.stopTick()}, ${ticks} tick${ticks === 1 ? '' : 's'} after it suspended`;
    this.d.emit('output', {
      category: 'log',
      text: `${when}; meanwhile the loop ran ${ran.length === 0 ? 'no other task' : ran.join(', ')}\n`,
    });
  }

  /**
   * The program's frames of a stop down to the Task._step that resumed them (walkFrames), innermost first,
   * one per function.
   */
  private chainOf(frames: readonly CdpCallFrame[]): CdpCallFrame[] {
    const out: CdpCallFrame[] = [];
    const seen = new Set<string | null>();
    for (const f of frames) {
      if (this.isStepFrame(f)) break;
      if (this.d.isMachinery(f) || seen.has(functionKey(f))) continue;
      seen.add(functionKey(f));
      out.push(f);
    }
    return out;
  }

  /**
   * Step into a `yield*` of a generator call (`yield* middle(log)`): temporary breakpoints on
   * every break location of the called generator function, read without side effects in the
   * stopped frame, so its first line stops. A coroutine's wrapper (machinery) is left to V8,
   * which steps through it into the coroutine.
   */
  private async plantDelegate(frame: CdpCallFrame, taskId: number | null): Promise<void> {
    const callee = DELEGATED_CALL.exec(this.sourceText(frame.location))?.[1];
    if (callee === undefined) return;
    const r = await this.d
      .post<{ result: CdpRemoteObject; exceptionDetails?: unknown }>('Debugger.evaluateOnCallFrame', {
        callFrameId: frame.callFrameId,
        expression: callee,
        silent: true,
        throwOnSideEffect: true,
      })
      .catch(() => null);
    if (
      r === null ||
      r.exceptionDetails !== undefined ||
      r.result.type !== 'function' ||
      r.result.objectId === undefined
    )
      return;
    const props = await this.d
      .post<{ internalProperties?: Array<{ name: string; value?: { value?: unknown } }> }>('Runtime.getProperties', {
        objectId: r.result.objectId,
        ownProperties: true,
      })
      .catch(() => null);
    const at = props?.internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value as
      | CdpLocation
      | undefined;
    if (at === undefined || typeof at.scriptId !== 'string') return;
    const probe: CdpCallFrame = {
      callFrameId: '',
      functionName: '',
      functionLocation: at,
      location: at,
      scopeChain: [],
    };
    // A coroutine's wrapper is left to V8; the runtime's library, in a task, is stepped over.
    if (this.d.isMachinery(probe) || (taskId !== null && this.d.isLibrary(probe))) return;
    const condition = taskId === null ? null : `globalThis.__coroscopeLine.current() === ${taskId}`;
    const locations = await this.d
      .post<{ locations: CdpLocation[] }>('Debugger.getPossibleBreakpoints', {
        start: at,
        restrictToFunction: true,
      })
      .catch(() => ({ locations: [] }));
    for (const loc of locations.locations) await this.plant(loc, condition);
  }

  /**
   * "Stay with this task": temporary breakpoints on every break location of `frame`'s
   * function, taken only while `taskId` runs, and a marker where `_step` gets the thread
   * back from the task (it suspended).
   */
  private async plantStay(frame: CdpCallFrame, frames: readonly CdpCallFrame[], taskId: number | null): Promise<void> {
    if (taskId === null || frame.functionLocation === undefined) return;
    const condition = `globalThis.__coroscopeLine.current() === ${taskId}`;
    const r = await this.d.post<{ locations: CdpLocation[] }>('Debugger.getPossibleBreakpoints', {
      start: frame.functionLocation,
      restrictToFunction: true,
    });
    const own = this.ownLine !== null && functionKey(frame) === this.ownLine.key ? this.ownLine : null;
    const onOwnLine = r.locations.map((loc) => own !== null && this.d.lineOfLocation(loc) === own.line);
    if (own !== null && onOwnLine.includes(true)) own.ranges = rangesOf(r.locations, onOwnLine);
    for (const [i, loc] of r.locations.entries()) if (!onOwnLine[i]) await this.plant(loc, condition);
    const stepFrame = this.stepFrameOf(frames);
    if (stepFrame !== undefined) await this.plantMarkers(stepFrame, taskId);
  }

  /** The markers where `_step` (`stepFrame`) gets the thread back from task `taskId` (none planted yet). */
  private async plantMarkers(stepFrame: CdpCallFrame, taskId: number): Promise<void> {
    if (this.markers.size > 0) return;
    for (const after of await this.locationsAfter(stepFrame)) {
      const id = await this.plant(after, `this.id === ${taskId}`);
      if (id !== null) {
        this.temps.delete(id);
        this.markers.add(id);
      }
    }
  }

  /** An expression's value (by value) in a paused frame (null: it could not be read). */
  private async evaluateIn(frame: CdpCallFrame | undefined, expression: string): Promise<unknown> {
    if (frame === undefined) return null;
    const r = await this.d
      .post<{ result: CdpRemoteObject; exceptionDetails?: unknown }>('Debugger.evaluateOnCallFrame', {
        callFrameId: frame.callFrameId,
        expression,
        returnByValue: true,
        silent: true,
      })
      .catch(() => null);
    return r === null || r.exceptionDetails !== undefined ? null : r.result.value;
  }

  /**
   * "Follow the loop": temporary breakpoints where `_step` resumes whichever task comes next (taken when
   * `condition` holds, null: always); their ids.
   */
  private async plantResumeOfAnyTask(stepFrame: CdpCallFrame, condition: string | null = null): Promise<string[]> {
    const at = stepFrame.functionLocation;
    if (at === undefined) return [];
    const key = `${at.scriptId}:${at.lineNumber}:${at.columnNumber ?? 0}`;
    let resumes = this.resumesOf.get(key);
    if (resumes === undefined) {
      const r = await this.d.post<{ locations: CdpLocation[] }>('Debugger.getPossibleBreakpoints', {
        start: at,
        restrictToFunction: true,
      });
      const marked = r.locations.filter((loc) => RESUME_MARK.test(this.sourceText(loc, -1)));
      // Without the source (no map): from the start of `_step`, stepping into the resume.
      resumes = marked.length > 0 ? marked : r.locations.slice(0, 1);
      this.resumesOf.set(key, resumes);
    }
    const ids: string[] = [];
    for (const loc of resumes) {
      const id = await this.plant(loc, condition);
      if (id !== null) ids.push(id);
    }
    return ids;
  }

  /**
   * A step limited to task `taskId`: where `_step` (of `frames`, the stop's) resumes any task, taken once that
   * task is gone (the bridge's gone(): it ended), so the step lapses into "follow the loop" (lapse()).
   */
  private async plantLapse(frames: readonly CdpCallFrame[], taskId: number): Promise<void> {
    const stepFrame = this.stepFrameOf(frames);
    if (stepFrame === undefined) return;
    for (const id of await this.plantResumeOfAnyTask(stepFrame, `globalThis.__coroscopeLine.gone(${taskId})`))
      this.lapses.add(id);
  }

  /** Whether a frame is the runtime's `Task._step`, which resumes a task's coroutine. */
  private isStepFrame(f: CdpCallFrame): boolean {
    return f.functionName === '_step' && this.d.isMachinery(f);
  }

  /** The `Task._step` frame of a stack (undefined: outside any task's step). */
  private stepFrameOf(frames: readonly CdpCallFrame[]): CdpCallFrame | undefined {
    return frames.find((f) => this.isStepFrame(f));
  }

  /** The TypeScript line at a generated location, or `offset` lines from it ('' when unmapped or unreadable). */
  private sourceText(loc: CdpLocation, offset = 0): string {
    const p = this.d.positionOf(loc).position;
    return p === null ? '' : this.lineText(p, offset);
  }

  /** The text of a file's line at `p`, or `offset` lines from it ('' when unreadable); files read once. */
  lineText(p: SourcePosition, offset = 0): string {
    let lines = this.sourceLines.get(p.file);
    if (lines === undefined) {
      try {
        lines = readFileSync(p.file, 'utf8').split('\n');
      } catch {
        lines = [];
      }
      this.sourceLines.set(p.file, lines);
    }
    return lines[p.line - 1 + offset] ?? '';
  }

  /** The break locations of `frame`'s function after where it is (the normal path and the error path of a resume). */
  private async locationsAfter(frame: CdpCallFrame): Promise<CdpLocation[]> {
    const at = frame.location;
    const r = await this.d.post<{ locations: CdpLocation[] }>('Debugger.getPossibleBreakpoints', {
      start: { scriptId: at.scriptId, lineNumber: at.lineNumber, columnNumber: (at.columnNumber ?? 0) + 1 },
      restrictToFunction: true,
    });
    return r.locations;
  }

  private async plant(location: CdpLocation, condition: string | null): Promise<string | null> {
    try {
      const r = await this.d.post<{ breakpointId: string }>('Debugger.setBreakpoint', {
        location,
        condition: liveOnly(condition),
      });
      this.temps.add(r.breakpointId);
      return r.breakpointId;
    } catch {
      return null;
    }
  }

  private async removeBreakpoint(id: string): Promise<void> {
    await this.d.post('Debugger.removeBreakpoint', { breakpointId: id }).catch(() => undefined);
  }

  /** Removes the temporary breakpoints and markers (at every stop and every continue). */
  async clearTemps(): Promise<void> {
    const ids = [...this.temps];
    this.temps = new Set();
    this.lapses = new Set();
    ids.push(...this.markers);
    this.markers = new Set();
    for (const id of ids) await this.removeBreakpoint(id);
  }
}

/** The main thread's stepCounts() answer, narrowed: [task id, name, steps] rows. */
function stepCountsOf(rows: unknown[]): Array<[number, string, number]> {
  return rows.filter(
    (r): r is [number, string, number] =>
      Array.isArray(r) && typeof r[0] === 'number' && typeof r[1] === 'string' && typeof r[2] === 'number',
  );
}

/** Identifies a function by where it starts. */
function functionKey(frame: CdpCallFrame): string | null {
  const l = frame.functionLocation;
  return l === undefined ? null : `${l.scriptId}:${l.lineNumber}:${l.columnNumber ?? 0}`;
}

/**
 * A breakpoint's V8 condition, true only on the run's own loop: a replay of its past (seekTick) runs the same
 * lines, and never stops on them.
 */
export function liveOnly(condition: string | null): string {
  const live = 'globalThis.__coroscopeLine.live()';
  return condition === null ? live : `${live} && (${condition})`;
}

/** A step following the loop: waiting for `_step` to resume a task, or going into the one it resumes. */
function following(kind: 'follow' | 'followInto'): StepState {
  return { kind, taskId: null, originFunction: null, originLine: null, autoSteps: 0 };
}

/**
 * The stretches of a function's break locations (`locations`, in V8's order) marked in `marked`: each from its
 * location to the function's next one (or the end of its generated line), merged where they touch, as
 * Debugger.stepOver's skipList takes them (sorted, none overlapping). Exported for its test.
 */
export function rangesOf(locations: readonly CdpLocation[], marked: readonly boolean[]): CdpLocationRange[] {
  const out: CdpLocationRange[] = [];
  for (const [i, loc] of locations.entries()) {
    if (!marked[i]) continue;
    const start = { lineNumber: loc.lineNumber, columnNumber: loc.columnNumber ?? 0 };
    const next = locations[i + 1];
    const end =
      next !== undefined && next.scriptId === loc.scriptId
        ? { lineNumber: next.lineNumber, columnNumber: next.columnNumber ?? 0 }
        : { lineNumber: loc.lineNumber + 1, columnNumber: 0 };
    const last = out.at(-1);
    if (
      last !== undefined &&
      last.scriptId === loc.scriptId &&
      last.end.lineNumber === start.lineNumber &&
      last.end.columnNumber === start.columnNumber
    )
      last.end = end;
    else out.push({ scriptId: loc.scriptId, start, end });
  }
  return out;
}
