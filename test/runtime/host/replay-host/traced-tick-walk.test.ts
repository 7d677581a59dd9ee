// Tests of the traced tick replay under a past line walk (runtime/host/replay-host/traced-tick-walk.ts), in
// process: a fake line debugger plays the main thread, running each tick's scripted pauses of the walked task
// through the walk's hook (only while breakpoints are active) and holding at a 'stop' until resumed. The
// walk learns the live stop's entries, goes to an entry and on, passes a line run again at once as one entry,
// refuses a replay that diverges or misses its target, and a hit's walk runs on through its ceiling.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type {
  HitBound,
  LineReading,
  LineStopPrint,
  LineWatched,
  SourcePosition,
} from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import { type Target, TracedTickWalk } from '../../../../runtime/host/replay-host/traced-tick-walk';
import type { CdpCallFrame, CdpPaused, WalkFrame, WalkVerdict } from '../../../../runtime/host/worker/cdp-shapes';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import type { PastLineEntry } from '../../../../runtime/host/worker/past-lines';

const SCRIPT = 'file:///p.js';
let frameIds = 0;

/** One pause of the walked task: a frame of `main` at source line `line` (generated line line-1), its locals. */
interface Pause {
  readonly frames: WalkFrame[];
  readonly locals: Array<{ name: string; value: string }>;
}

function pause(line: number, locals: Array<{ name: string; value: string }> = []): Pause {
  const frame: CdpCallFrame = {
    callFrameId: `f${++frameIds}`,
    functionName: 'main',
    location: { scriptId: '1', lineNumber: line - 1 },
    scopeChain: [],
  };
  const position = { url: SCRIPT, functionLine: 0, functionColumn: 0, line: line - 1, column: 0 };
  return { frames: [{ frame, url: SCRIPT, functionKey: '1:0:0', line: `/p.ts:${line}`, position }], locals };
}

const entry = (line: number): PastLineEntry => ({ chain: ['1:0:0'], line: `/p.ts:${line}` });

/** The live stop: line 5 with n = 2; its breakpoints at lines 3, 5 (twice) and 7 of the generated script. */
const PRINT: LineStopPrint = {
  frames: [{ url: SCRIPT, functionLine: 0, functionColumn: 0, line: 4, column: 0 }],
  locals: [{ name: 'n', value: '2' }],
  locations: [
    { url: SCRIPT, line: 2, column: 0 },
    { url: SCRIPT, line: 4, column: 0 },
    { url: SCRIPT, line: 4, column: 0 },
    { url: SCRIPT, line: 6, column: 2 },
  ],
};

/** The main thread's replays, scripted per tick; what the walk asked, in order; the hook's verdicts. */
class FakeThread {
  readonly asked: string[] = [];
  readonly verdicts: WalkVerdict[] = [];
  private active = true;
  private stopped = false;
  private hook: ((p: CdpPaused) => Promise<WalkVerdict>) | null = null;
  private onStopped: (() => void) | null = null;
  private resumed: (() => void) | null = null;
  private readonly framesOf = new WeakMap<CdpPaused, WalkFrame[]>();
  private readonly localsOf = new Map<string, Array<{ name: string; value: string }>>();
  private ids = 0;
  whereTick = 10;

  constructor(
    readonly ticks: Map<number, Pause[]>,
    /** The main thread's walk gate (walk-gate.ts): its breakpoint's id; null: it has none. */
    private readonly gateId: string | null = null,
  ) {}

  readonly dbg = {
    cdp: async (method: string, params: { active?: boolean; lineNumber?: number; condition?: string }) => {
      const name = method.replace('Debugger.', '');
      if (name === 'setBreakpointsActive') {
        this.active = params.active === true;
        this.asked.push(`active ${this.active}`);
        return {};
      }
      if (name === 'setBreakpointByUrl') {
        // A planting's generation (each planting's own number) read as G.
        this.asked.push(`set ${params.lineNumber} ${params.condition?.replace(/, \d+\)$/, ', G)')}`);
        return { breakpointId: `bp-${++this.ids}` };
      }
      this.asked.push(name);
      return {};
    },
    setWalkHook: (
      _ids: ReadonlySet<string>,
      hook: ((p: CdpPaused) => Promise<WalkVerdict>) | null,
      stopped: (() => void) | null,
    ): void => {
      this.hook = hook;
      this.onStopped = stopped;
    },
    dropStep: async (): Promise<void> => undefined,
    walkGate: async (): Promise<string> => {
      if (this.gateId === null) throw new Error('the main thread has no walk gate');
      return this.gateId;
    },
    isStopped: (): boolean => this.stopped,
    resume: async (): Promise<void> => {
      this.asked.push('resume');
      this.stopped = false;
      this.resumed?.();
    },
    walkFrames: (paused: CdpPaused): WalkFrame[] => this.framesOf.get(paused) ?? [],
    localsOf: async (frame: CdpCallFrame) => this.localsOf.get(frame.callFrameId) ?? [],
    positionOfFrame: (frame: CdpCallFrame): SourcePosition => ({
      file: '/p.ts',
      line: frame.location.lineNumber + 1,
      column: 1,
    }),
    sourcePositionOfFrame: (frame: CdpCallFrame): SourcePosition => ({
      file: '/p.ts',
      line: frame.location.lineNumber + 1,
      column: 1,
    }),
    lineAt: (_url: string, line: number): string => `/p.ts:${line + 1}`,
    // where(): the tick the main thread is in (a live stop held is the present in its tick only).
    callMain: async (expression: string): Promise<unknown> => {
      if (expression.startsWith('everyRun(')) this.asked.push(`main ${expression.replace(/\d+/, 'G')}`);
      return expression === 'where()' ? { tick: this.whereTick } : null;
    },
    // The frames shown, innermost first: main called helper.
    stack: () => ({ taskId: 1, frames: [{ name: 'helper' }, { name: 'main' }] }),
    evaluate: async (expression: string, frameIndex: number) => {
      if (expression === 'boom') throw new Error('boom is not defined');
      return { value: `${expression} in frame ${frameIndex}`, type: 'string', handle: 0 };
    },
  };

  /**
   * Runs tick `tick` again, traced: the walk's gate first (`gate`: the walked task's step begins), then each pause
   * goes to the walk's hook while breakpoints are active.
   */
  readonly replayTick = async (tick: number, gate?: number): Promise<void> => {
    this.asked.push(gate === undefined ? `traced ${tick}` : `traced ${tick}, gate of task ${gate}`);
    if (gate !== undefined && this.gateId !== null && this.active && this.hook !== null) {
      const verdict = await this.hook({ callFrames: [], reason: 'other', hitBreakpoints: [this.gateId] });
      this.asked.push(`gate ${verdict}`);
    }
    for (const p of this.ticks.get(tick) ?? []) {
      if (!this.active || this.hook === null) continue;
      const paused: CdpPaused = { callFrames: p.frames.map((f) => f.frame), reason: 'other', hitBreakpoints: ['bp'] };
      this.framesOf.set(paused, p.frames);
      this.localsOf.set(p.frames[0]!.frame.callFrameId, p.locals);
      const verdict = await this.hook(paused);
      this.verdicts.push(verdict);
      if (verdict === 'stop') {
        this.stopped = true;
        const resumed = new Promise<void>((resolve) => (this.resumed = resolve));
        this.onStopped?.();
        await resumed;
      }
    }
  };

  readonly seekTo = async (tick: number): Promise<void> => {
    this.asked.push(`seek ${tick}`);
  };

  /** What was asked since last taken. */
  take(): string[] {
    return this.asked.splice(0);
  }
}

/** The walk with its protected moves and state reachable. */
class Walk extends TracedTickWalk {
  go(target: Target): Promise<'reached' | 'end'> {
    return this.walk(target);
  }
  on(index: number): Promise<'reached' | 'end'> {
    return this.goOn(index);
  }
  state(): { trace: PastLineEntry[] | null; live: number; at: number | null; landedAt: SourcePosition | null } {
    return { trace: this.trace, live: this.live, at: this.at, landedAt: this.landedAt };
  }
  /** Reads `watched` at each entry as first reached, while `walk` runs. */
  async readingWhile(
    watched: readonly LineWatched[],
    walk: () => Promise<unknown>,
  ): Promise<{ at: Map<number, LineReading[]>; readAt: Map<number, SourcePosition | null> }> {
    const at = new Map<number, LineReading[]>();
    this.reading = { watched, at };
    try {
      await walk();
    } finally {
      this.reading = null;
    }
    return { at, readAt: this.readAt };
  }
}

/** Tick 10 of task 1: lines 3, 4, 4 again (a loop on one line), 5 (the live stop, n = 2), 6. */
function tick10(): Pause[] {
  return [pause(3), pause(4), pause(4), pause(5, [{ name: 'n', value: '2' }]), pause(6)];
}

function walkOf(
  ticks: Array<[number, Pause[]]>,
  opts: { ceiling?: number; lastOfTick?: boolean; present?: HitBound; gate?: string } = {},
): { walk: Walk; thread: FakeThread } {
  const thread = new FakeThread(new Map(ticks), opts.gate ?? null);
  const dbg = thread.dbg as unknown as LineDebugger;
  const walk = new Walk(
    dbg,
    thread.replayTick,
    thread.seekTo,
    10,
    1,
    PRINT,
    opts.ceiling ?? null,
    opts.lastOfTick ?? false,
    opts.present ?? null,
  );
  return { walk, thread };
}

const traced = (line: number, repeat?: number): string =>
  `set ${line} globalThis.__coroscopeLine.traced(1${repeat === undefined ? '' : `, "/p.ts:${repeat}", G`})`;

describe('a walk anchored at the live stop', () => {
  test("learns the step's entries up to the live stop (a line run again at once is one), then lets the tick run", async () => {
    const { walk, thread } = walkOf([[10, tick10()]]);
    assert.equal(await walk.go({ kind: 'live' }), 'reached');
    assert.deepStrictEqual(walk.state(), {
      trace: [entry(3), entry(4), entry(5)],
      live: 2,
      at: null,
      landedAt: null,
    });
    // Each location once; every run of the live stop's line checked (the stop may be a later run of it), the first
    // run of any other.
    assert.deepStrictEqual(thread.take(), [
      'active false',
      'seek 9',
      traced(2, 3),
      traced(4),
      traced(6, 7),
      'active true',
      'traced 10',
      'active false',
    ]);
    assert.deepStrictEqual(thread.verdicts, ['resume', 'resume', 'resume', 'resume']);
    await walk.release();
  });

  test('to an entry and on: stopped on each, its line landed on; the runs of a line after its first passed over', async () => {
    const { walk, thread } = walkOf([[10, tick10()]]);
    await walk.go({ kind: 'live' });
    await walk.release();
    thread.take();
    assert.equal(await walk.go({ kind: 'entry', index: 1 }), 'reached');
    assert.deepStrictEqual(walk.state(), {
      trace: [entry(3), entry(4), entry(5)],
      live: 2,
      at: 1,
      landedAt: { file: '/p.ts', line: 4, column: 1 },
    });
    assert.deepStrictEqual(thread.take(), [
      'removeBreakpoint',
      'removeBreakpoint',
      'removeBreakpoint',
      'active false',
      'seek 9',
      traced(2, 3),
      traced(4, 5),
      traced(6, 7),
      'active true',
      'traced 10',
    ]);
    assert.equal(await walk.on(2), 'reached');
    assert.deepStrictEqual([walk.state().at, walk.state().landedAt?.line], [2, 5]);
    await walk.release();
    assert.deepStrictEqual(thread.verdicts.slice(4), ['resume', 'stop', 'resume', 'stop']);
  });

  test("a replay whose lines differ from the first walk's is refused, naming the line", async () => {
    const ticks = new Map([[10, tick10()]]);
    const { walk, thread } = walkOf([...ticks]);
    await walk.go({ kind: 'live' });
    await walk.release();
    thread.ticks.set(10, [pause(3), pause(9), pause(5, [{ name: 'n', value: '2' }])]);
    await assert.rejects(
      walk.go({ kind: 'entry', index: 2 }),
      (e: unknown) =>
        e instanceof ProtocolError &&
        e.code === 'replayFailed' &&
        e.message === "the replay of tick 10 diverged: line 2 of the task's step was /p.ts:4 and is /p.ts:9 now",
    );
  });

  test('a tick that ends without reaching the live stop (its locals not the same) is refused, naming the stop', async () => {
    const { walk } = walkOf([[10, [pause(3), pause(5, [{ name: 'n', value: '3' }])]]]);
    await assert.rejects(
      walk.go({ kind: 'live' }),
      (e: unknown) =>
        e instanceof ProtocolError &&
        e.code === 'replayFailed' &&
        e.message ===
          'the replay of tick 10 ran to its end without reaching the live stop (/p.js, generated line 5): it is not the run that was recorded',
    );
  });

  test("with the main thread's walk gate: planted there, as the task's step begins, not before the tick", async () => {
    const { walk, thread } = walkOf([[10, tick10()]], { gate: 'gate-1' });
    assert.equal(await walk.go({ kind: 'live' }), 'reached');
    assert.deepStrictEqual(walk.state().trace, [entry(3), entry(4), entry(5)]);
    assert.deepStrictEqual(thread.take(), [
      'active false',
      'seek 9',
      'active true',
      'traced 10, gate of task 1',
      traced(2, 3),
      traced(4),
      traced(6, 7),
      'gate resume',
      'active false',
    ]);
    await walk.release();
    // A walk to an entry waits for the gate again; the tick's lines are the same.
    assert.equal(await walk.go({ kind: 'entry', index: 1 }), 'reached');
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('traced') || a.startsWith('gate')),
      ['traced 10, gate of task 1', 'gate resume'],
    );
    await walk.release();
  });

  test("a replay that fails is the move's error, the thread let go", async () => {
    const thread = new FakeThread(new Map());
    const failing = new Walk(
      thread.dbg as unknown as LineDebugger,
      async () => {
        throw new Error('no traced tick here');
      },
      thread.seekTo,
      1,
      1,
      PRINT,
    );
    await assert.rejects(
      failing.go({ kind: 'live' }),
      (e: unknown) => e instanceof Error && e.message === 'no traced tick here',
    );
    // Tick 1: no tick before it to replay; the breakpoints off again once refused.
    assert.deepStrictEqual(thread.take(), [
      'active false',
      traced(2, 3),
      traced(4),
      traced(6, 7),
      'active true',
      'active false',
    ]);
    assert.equal(failing.state().trace, null);
  });

  test('reading watched values: at each entry as first reached, a frame not there said so', async () => {
    const { walk } = walkOf([[10, tick10()]]);
    const watched: LineWatched[] = [
      { expression: 'n', functionName: 'main', depth: 0 },
      { expression: 'n', functionName: 'helper', depth: 0 },
      { expression: 'n', functionName: 'main', depth: 1 },
      { expression: 'm', functionName: 'helper', depth: 1 },
      { expression: 'boom', functionName: 'main', depth: 0 },
    ];
    const { at, readAt } = await walk.readingWhile(watched, () => walk.go({ kind: 'live' }));
    const readings: LineReading[] = [
      { reachable: true, value: 'n in frame 1', type: 'string' },
      { reachable: false, why: 'no frame of helper at depth 0' },
      { reachable: false, why: 'no frame of main at depth 1' },
      { reachable: true, value: 'm in frame 0', type: 'string' },
      { reachable: false, why: 'boom is not defined' },
    ];
    assert.deepStrictEqual(
      [...at],
      [
        [0, readings],
        [1, readings],
        [2, readings],
      ],
    );
    assert.deepStrictEqual(
      [...readAt].map(([i, p]) => [i, p?.line]),
      [
        [0, 3],
        [1, 4],
        [2, 5],
      ],
    );
    await walk.release();
  });
});

describe("a hit's walk (anchored at the last line its task ran in the tick, through a ceiling)", () => {
  test('learns the whole tick, then the entries past it as first reached, over the ticks after it', async () => {
    const { walk, thread } = walkOf(
      [
        [10, tick10()],
        [11, [pause(7), pause(8)]],
        [12, [pause(9)]],
      ],
      { ceiling: 12, lastOfTick: true },
    );
    assert.equal(await walk.go({ kind: 'live' }), 'reached');
    assert.deepStrictEqual(walk.state().trace, [entry(3), entry(4), entry(5), entry(6)]);
    assert.equal(walk.state().live, 3);
    // Learning a whole tick's lines needs each line's first run only.
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('set')),
      [traced(2, 3), traced(4, 5), traced(6, 7)],
    );
    await walk.release();
    assert.equal(await walk.go({ kind: 'entry', index: 5 }), 'reached');
    assert.deepStrictEqual(walk.state().trace, [entry(3), entry(4), entry(5), entry(6), entry(7), entry(8)]);
    assert.deepStrictEqual([walk.state().at, walk.state().landedAt?.line], [5, 8]);
    // Past the hit, every run of a line is checked.
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('set') || a.startsWith('traced')),
      [traced(2), traced(4), traced(6), 'traced 10', 'traced 11'],
    );
    await walk.release();
    // An entry past the ceiling's last: the recording runs out.
    assert.equal(await walk.go({ kind: 'entry', index: 9 }), 'end');
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('traced')),
      ['traced 10', 'traced 11', 'traced 12'],
    );
    await walk.release();
  });

  test('on past the hit from a stop before it: every run of a line stops from there, the breakpoints not set again (V8 would run on past the next line)', async () => {
    const { walk, thread } = walkOf(
      [
        [10, tick10()],
        [11, [pause(7), pause(8)]],
      ],
      { ceiling: 11, lastOfTick: true },
    );
    await walk.go({ kind: 'live' });
    await walk.release();
    thread.take();
    // Before the hit: each line's first run.
    assert.equal(await walk.go({ kind: 'entry', index: 1 }), 'reached');
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('set')),
      [traced(2, 3), traced(4, 5), traced(6, 7)],
    );
    assert.equal(await walk.on(5), 'reached');
    assert.deepStrictEqual([walk.state().at, walk.state().landedAt?.line], [5, 8]);
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('set') || a.startsWith('remove') || a.startsWith('main')),
      ['main everyRun(G)'],
    );
    await walk.release();
  });

  test("a step to the task's end: each entry learnt, left to the line step", async () => {
    const { walk, thread } = walkOf([[10, [pause(3), pause(4)]]], { ceiling: 10 });
    assert.equal(await walk.go({ kind: 'step', untilTaskEnds: true }), 'end');
    assert.deepStrictEqual(thread.verdicts, ['step', 'step']);
  });

  test('on to the live line stop held (its tick, its locals): the present, not a line of the past', async () => {
    const { walk, thread } = walkOf([[10, tick10()]], { ceiling: 10, present: { tick: 10, taskId: 1, print: PRINT } });
    assert.equal(await walk.go({ kind: 'entry', index: 3 }), 'end');
    // In the present's tick every run of a line is checked.
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('set')),
      [traced(2), traced(4), traced(6)],
    );
    await walk.release();
    // Nothing stopped: the tick ran to its end.
    assert.deepStrictEqual(thread.verdicts, ['resume', 'resume', 'resume', 'resume', 'resume']);
    // The same frames and locals in another tick: a line of the past, walked on to.
    thread.whereTick = 11;
    assert.equal(await walk.go({ kind: 'entry', index: 2 }), 'reached');
    assert.equal(walk.state().at, 2);
    await walk.release();
  });

  test('learning the tick of the live line stop held checks every run of a line (the stop may be a later run)', async () => {
    const present: HitBound = { tick: 10, taskId: 1, print: PRINT };
    const { walk, thread } = walkOf([[10, tick10()]], { ceiling: 10, lastOfTick: true, present });
    assert.equal(await walk.go({ kind: 'live' }), 'reached');
    assert.deepStrictEqual(
      thread.take().filter((a) => a.startsWith('set')),
      [traced(2), traced(4), traced(6)],
    );
    await walk.release();
  });
});
