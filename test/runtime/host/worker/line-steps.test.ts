// Tests of the line step planner (runtime/host/worker/line-steps.ts) with a fake StepPort that records, in
// order, every request and move the planner makes: the skip ranges of a line that loops on itself, the
// temporaries and markers a step plants (and removes), the step's state after each pause it decides on,
// and what is said at a landing across a suspension. Scripts: 'p' the program, 'm' the runtime's
// machinery, 'lib' its library, 'g' the bundler's glue (no source line).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { LineStepKind, LineStepMode, SourcePosition } from '../../../../protocol/host-protocol';
import type { CdpCallFrame, CdpLocation, CdpPaused } from '../../../../runtime/host/worker/cdp-shapes';
import { LineSteps, liveOnly, rangesOf, type StepPort } from '../../../../runtime/host/worker/line-steps';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-line-steps-'));
after(() => rmSync(dir, { recursive: true, force: true }));
/** The machinery's source: its line 6 (0-based 5) is the one after `_step`'s "follow the loop" comment. */
const MACHINERY = join(dir, 'task.ts');
writeFileSync(
  MACHINERY,
  ['a', 'b', 'c', 'd', `// The resume (the line debugger's "follow the loop" steps into it)`, 'resume', 'e', 'f'].join(
    '\n',
  ),
);

const loc = (at: string): CdpLocation => {
  const [scriptId = '', line = '0', column = '0'] = at.split(':');
  return { scriptId, lineNumber: Number(line), columnNumber: Number(column) };
};
const at = (l: CdpLocation): string => `${l.scriptId}:${l.lineNumber}:${l.columnNumber ?? 0}`;
const frame = (name: string, fn: string, where: string): CdpCallFrame => ({
  callFrameId: `cf-${name}`,
  functionName: name,
  functionLocation: loc(fn),
  location: loc(where),
  scopeChain: [],
});

/** The program's function A (at p:10:0, stopped on its line 12), its caller B, and the `_step` that resumed B. */
const A = frame('a', 'p:10:0', 'p:12:4');
const B = frame('b', 'p:20:0', 'p:22:2');
const STEP = frame('_step', 'm:1:0', 'm:5:0');
/** Break locations by the start of a getPossibleBreakpoints request. */
const LOCATIONS: Record<string, string[]> = {
  'p:10:0': ['p:10:2', 'p:11:0', 'p:12:4', 'p:12:9', 'p:13:0'],
  'p:20:0': ['p:20:2', 'p:22:2', 'p:23:0'],
  'm:5:1': ['m:6:0', 'm:8:0'],
  'm:1:0': ['m:3:0', 'm:5:0', 'm:8:0'],
};
const TASK_7 = liveOnly('globalThis.__coroscopeLine.current() === 7');

interface Fake {
  port: StepPort;
  /** Every move in order: `set <loc> <condition>`, `remove <id>`, `stepRaw <kind>`, `resume`, `stop <reason>`, ... */
  log: string[];
  outputs: string[];
  /** What callMain answers, by expression. */
  main: Map<string, unknown>;
  setMode(mode: LineStepMode): void;
}

function fake(): Fake {
  const log: string[] = [];
  const outputs: string[] = [];
  const main = new Map<string, unknown>();
  let mode: LineStepMode = 'stayWithTask';
  let ids = 0;
  const lineOfLocation = (l: CdpLocation): string => `${l.scriptId}:${l.lineNumber}`;
  const port: StepPort = {
    async post<T>(method: string, params: object): Promise<T> {
      const p = params as { start?: CdpLocation; location?: CdpLocation; condition?: string; breakpointId?: string };
      if (method === 'Debugger.getPossibleBreakpoints')
        return { locations: (LOCATIONS[at(p.start ?? loc(''))] ?? []).map(loc) } as T;
      if (method === 'Debugger.setBreakpoint') {
        log.push(`set ${at(p.location ?? loc(''))} ${p.condition}`);
        return { breakpointId: `bp${++ids}` } as T;
      }
      if (method === 'Debugger.removeBreakpoint') {
        log.push(`remove ${p.breakpointId}`);
        return {} as T;
      }
      throw new Error(`unexpected ${method}`);
    },
    async callMain(expression: string): Promise<unknown> {
      log.push(`callMain ${expression}`);
      return main.get(expression) ?? null;
    },
    async resume(announce?: boolean): Promise<void> {
      log.push(`resume ${announce}`);
    },
    async stop(reason: string): Promise<void> {
      log.push(`stop ${reason}`);
    },
    async stepRaw(kind: LineStepKind): Promise<void> {
      log.push(`stepRaw ${kind}`);
    },
    log: (text) => log.push(`log ${text}`),
    emit: (_event, body) => outputs.push(body.text),
    mode: () => mode,
    stopTick: () => 5,
    stopTaskName: () => null,
    hasScript: (id) => id !== 'node',
    positionOf: (l) => {
      const file = l.scriptId === 'm' ? MACHINERY : join(dir, `${l.scriptId}.ts`);
      const position: SourcePosition | null =
        l.scriptId === 'g' || l.scriptId === 'node' ? null : { file, line: l.lineNumber + 1, column: 1 };
      return { position, generated: null };
    },
    lineOf: (f) => lineOfLocation(f.location),
    lineOfLocation,
    isLibrary: (f) => f.location.scriptId === 'lib',
    isMachinery: (f) => f.location.scriptId === 'm' || f.location.scriptId === 'node',
  };
  return { port, log, outputs, main, setMode: (m) => (mode = m) };
}

const paused = (...callFrames: CdpCallFrame[]): CdpPaused => ({ callFrames, reason: 'other' });

describe('rangesOf: the skip ranges of marked break locations', () => {
  test('a marked location runs to the next one; touching ranges merge; the last runs to the next line', () => {
    const locations = ['p:12:4', 'p:12:9', 'p:12:15', 'p:13:0', 'p:13:6'].map(loc);
    assert.deepEqual(rangesOf(locations, [true, true, false, true, true]), [
      { scriptId: 'p', start: { lineNumber: 12, columnNumber: 4 }, end: { lineNumber: 12, columnNumber: 15 } },
      { scriptId: 'p', start: { lineNumber: 13, columnNumber: 0 }, end: { lineNumber: 14, columnNumber: 0 } },
    ]);
  });

  test('a location followed by another script ends at its next line, not at the other script', () => {
    assert.deepEqual(rangesOf([loc('p:3:2'), loc('q:3:8')], [true, false]), [
      { scriptId: 'p', start: { lineNumber: 3, columnNumber: 2 }, end: { lineNumber: 4, columnNumber: 0 } },
    ]);
  });

  test('none marked: no range; a missing column counts as 0', () => {
    assert.deepEqual(rangesOf([loc('p:1:0'), loc('p:2:0')], [false, false]), []);
    assert.deepEqual(rangesOf([{ scriptId: 'p', lineNumber: 1 }], [true]), [
      { scriptId: 'p', start: { lineNumber: 1, columnNumber: 0 }, end: { lineNumber: 2, columnNumber: 0 } },
    ]);
  });
});

test('liveOnly: a condition holds on the live loop only', () => {
  assert.equal(liveOnly(null), 'globalThis.__coroscopeLine.live()');
  assert.equal(liveOnly('x === 1'), 'globalThis.__coroscopeLine.live() && (x === 1)');
});

describe('plan: the state and temporaries of a step', () => {
  test("a step over in a task plants its function's and callers' locations, and markers after `_step`", async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('over', [A, B, STEP], 7);
    assert.deepEqual(steps.step, {
      kind: 'over',
      taskId: 7,
      originFunction: 'p:10:0',
      originLine: 'p:12',
      autoSteps: 0,
    });
    const marker = liveOnly('this.id === 7');
    assert.deepEqual(f.log, [
      ...['p:10:2', 'p:11:0', 'p:12:4', 'p:12:9', 'p:13:0'].map((l) => `set ${l} ${TASK_7}`),
      `set m:6:0 ${marker}`,
      `set m:8:0 ${marker}`,
      ...['p:20:2', 'p:22:2', 'p:23:0'].map((l) => `set ${l} ${TASK_7}`),
    ]);
    assert.deepEqual(
      ['bp1', 'bp5', 'bp6', 'bp7', 'bp8', 'bp10'].map((id) => [steps.isTemp(id), steps.isMarker(id)]),
      [
        [true, false],
        [true, false],
        [false, true],
        [false, true],
        [true, false],
        [true, false],
      ],
    );
    assert.deepEqual(steps.skipList(), [], 'no own line before the line comes round');

    f.log.length = 0;
    await steps.clearTemps();
    assert.deepEqual(
      f.log,
      ['bp1', 'bp2', 'bp3', 'bp4', 'bp5', 'bp8', 'bp9', 'bp10', 'bp6', 'bp7'].map((id) => `remove ${id}`),
    );
    assert.equal(steps.isTemp('bp1') || steps.isMarker('bp6'), false);
  });

  test('a step outside any task plants nothing; a one-task step says so', async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('over', [A, B, STEP], null, true);
    assert.deepEqual(f.log, []);
    assert.deepEqual(steps.step, {
      kind: 'over',
      taskId: null,
      originFunction: 'p:10:0',
      originLine: 'p:12',
      autoSteps: 0,
    });
    await steps.plan('over', [A, B, STEP], 7, true);
    assert.equal(steps.step?.oneTask, true);
  });

  test("a step out becomes a step over of the caller's line, planted in the callers only", async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('out', [A, B, STEP], 7);
    assert.deepEqual(steps.step, {
      kind: 'over',
      taskId: 7,
      originFunction: 'p:20:0',
      originLine: 'p:22',
      autoSteps: 0,
    });
    assert.deepEqual(f.log, [
      ...['p:20:2', 'p:22:2', 'p:23:0'].map((l) => `set ${l} ${TASK_7}`),
      `set m:6:0 ${liveOnly('this.id === 7')}`,
      `set m:8:0 ${liveOnly('this.id === 7')}`,
    ]);
  });
});

describe('stepped: what a pause during a step means', () => {
  test('the line coming round in its own function, no suspension crossed: skipped from then on', async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('over', [A, B, STEP], 7);
    f.log.length = 0;
    const step = steps.step;
    assert.ok(step !== null);
    await steps.stepped(paused(frame('a', 'p:10:0', 'p:12:9'), B, STEP), step, frame('a', 'p:10:0', 'p:12:9'), true);
    assert.deepEqual(steps.skipList(), [
      { scriptId: 'p', start: { lineNumber: 12, columnNumber: 4 }, end: { lineNumber: 13, columnNumber: 0 } },
    ]);
    assert.deepEqual(f.log, [
      ...['bp1', 'bp2', 'bp3', 'bp4', 'bp5', 'bp8', 'bp9', 'bp10', 'bp6', 'bp7'].map((id) => `remove ${id}`),
      // Line 12's two locations are left out: V8 skips them.
      ...['p:10:2', 'p:11:0', 'p:13:0'].map((l) => `set ${l} ${TASK_7}`),
      `set m:6:0 ${liveOnly('this.id === 7')}`,
      `set m:8:0 ${liveOnly('this.id === 7')}`,
      ...['p:20:2', 'p:22:2', 'p:23:0'].map((l) => `set ${l} ${TASK_7}`),
      'stepRaw over',
    ]);
    assert.equal(step.autoSteps, 1);
    // A new step, into or over, from the same place skips nothing until its line comes round.
    await steps.plan('into', [A, B, STEP], 7);
    assert.deepEqual(steps.skipList(), []);
    await steps.plan('over', [A, B, STEP], 7);
    assert.deepEqual(steps.skipList(), []);
  });

  test('after the task suspended, its line coming round is its next turn: not skipped', async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('over', [A, B, STEP], 7);
    const step = steps.step;
    assert.ok(step !== null);
    await steps.suspended(paused(STEP), step);
    await steps.stepped(paused(A, B, STEP), step, A, true);
    assert.deepEqual(steps.skipList(), []);
    assert.equal(f.log.at(-1), 'stepRaw over');
  });

  test('machinery: a script without a map is stepped out of; past MAX_AUTO_STEPS the step gives up', async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('into', [A, B, STEP], null);
    const step = steps.step;
    assert.ok(step !== null);
    f.log.length = 0;
    await steps.stepped(paused(frame('x', 'node:1:0', 'node:2:0'), A), step, frame('x', 'node:1:0', 'node:2:0'), false);
    await steps.stepped(paused(STEP, A), step, STEP, false);
    step.autoSteps = 400;
    await steps.stepped(paused(STEP, A), step, STEP, false);
    assert.deepEqual(f.log, [
      'stepRaw out',
      'stepRaw into',
      'log line debugger: the step ran too long in the runtime machinery; continuing',
      'resume false',
    ]);
    assert.equal(steps.step, null);
  });

  test("the bundler's glue: a step into goes on through it, a step over out of it", async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    const glue = frame('__name', 'g:1:0', 'g:1:5');
    await steps.plan('into', [A], null);
    const into = steps.step;
    await steps.plan('over', [A], null);
    const over = steps.step;
    assert.ok(into !== null && over !== null);
    await steps.stepped(paused(glue, A), into, glue, false);
    await steps.stepped(paused(glue, A), over, glue, false);
    assert.deepEqual(f.log, ['stepRaw into', 'stepRaw out']);
  });

  test('a step over resumed inside a callee of its line: out of it, then over the rest of the line', async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('over', [A], null);
    const step = steps.step;
    assert.ok(step !== null);
    const callee = frame('sleep', 'p:30:0', 'p:31:2');
    await steps.stepped(paused(callee, A, STEP), step, callee, false);
    assert.equal(step.outOfCallee, true);
    await steps.stepped(paused(A, STEP), step, A, false);
    assert.equal(step.outOfCallee, false);
    // Then on another line of A: the landing.
    const next = frame('a', 'p:10:0', 'p:13:0');
    await steps.stepped(paused(next, STEP), step, next, false);
    assert.deepEqual(f.log, ['stepRaw out', 'stepRaw over', 'stop step']);
    assert.equal(step.autoSteps, 2);
  });

  test("a step into the runtime's library from a task's line becomes a step over of it", async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    await steps.plan('into', [A, STEP], null);
    const step = steps.step;
    assert.ok(step !== null);
    step.taskId = 7;
    const get = frame('get', 'lib:1:0', 'lib:2:0');
    await steps.stepped(paused(get, A, STEP), step, get, false);
    assert.deepEqual([step.kind, step.outOfCallee, f.log], ['over', true, ['stepRaw out']]);
  });
});

describe('suspended: a marker in `_step` was hit', () => {
  test('stay with the task: the markers go, the suspension is said, the counts kept, the run goes on', async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    const result = `typeof r === 'object' && r !== null`;
    const ended = `${result} ? (r.done === true ? 'returned' : null) : typeof r === 'undefined' ? 'raised' : null`;
    const suspension = `suspension(7, ${result} ? r.value : undefined, ${ended})`;
    f.main.set(suspension, 'a waits on sleep(1)');
    f.main.set('stepCounts()', [[7, 'a', 4], [8, 'b', 2], 'not a row']);
    f.main.set('where()', { tick: 3 });
    await steps.plan('over', [A, B, STEP], 7);
    const step = steps.step;
    assert.ok(step !== null);
    f.log.length = 0;
    await steps.suspended(paused(STEP), step);
    assert.deepEqual(f.log, [
      'remove bp6',
      'remove bp7',
      `callMain ${suspension}`,
      'callMain stepCounts()',
      'callMain where()',
      'resume false',
    ]);
    assert.deepEqual(f.outputs, ['a waits on sleep(1)\n']);
    assert.deepEqual(steps.meanwhile, {
      taskId: 7,
      tick: 3,
      steps: new Map([
        [7, ['a', 4]],
        [8, ['b', 2]],
      ]),
    });
    assert.equal(steps.isMarker('bp6'), false);
    assert.equal(steps.isTemp('bp1'), true, "the task's temporaries stay");
  });

  test('follow the loop: the step follows, planted where `_step` resumes the next task, then into it', async () => {
    const f = fake();
    f.setMode('followLoop');
    const steps = new LineSteps(f.port);
    await steps.plan('over', [A, B, STEP], 7);
    const step = steps.step;
    assert.ok(step !== null);
    f.log.length = 0;
    await steps.suspended(paused(STEP), step);
    assert.deepEqual(
      f.log.filter((l) => !l.startsWith('callMain')),
      [
        'remove bp6',
        'remove bp7',
        ...['bp1', 'bp2', 'bp3', 'bp4', 'bp5', 'bp8', 'bp9', 'bp10'].map((id) => `remove ${id}`),
        `set m:5:0 ${liveOnly(null)}`,
        'resume false',
      ],
    );
    const follow = steps.step;
    assert.deepEqual(follow, { kind: 'follow', taskId: null, originFunction: null, originLine: null, autoSteps: 0 });
    assert.ok(follow !== null);
    f.log.length = 0;
    await steps.stepped(paused(STEP), follow, STEP, true);
    assert.deepEqual(f.log, ['remove bp11', 'stepRaw into']);
    assert.equal(steps.step?.kind, 'followInto');
  });
});

describe('sayMeanwhile: the landing across a suspension', () => {
  test('the ticks since, the steps of each other task, and the tasks that ended', async () => {
    const f = fake();
    const steps = new LineSteps(f.port);
    f.main.set('stepCounts()', [
      [7, 'a', 10],
      [8, 'b', 5],
      [9, 'idle', 2],
      [11, 'new', 1],
    ]);
    const since = new Map<number, [string, number]>([
      [7, ['a', 4]],
      [8, ['b', 2]],
      [9, ['idle', 2]],
      [10, ['gone', 1]],
    ]);
    await steps.sayMeanwhile({ taskId: 7, tick: 3, steps: since }, 'Task a');
    await steps.sayMeanwhile({ taskId: 7, tick: 4, steps: new Map([[7, ['a', 9]]]) }, 'Task a');
    f.main.set('stepCounts()', [[7, 'a', 10]]);
    await steps.sayMeanwhile({ taskId: 7, tick: 4, steps: new Map([[7, ['a', 9]]]) }, 'Task a');
    assert.deepEqual(f.outputs, [
      'Task a resumed at tick 5, 2 ticks after it suspended; meanwhile the loop ran b (3 steps), new (1 step), gone (to its end)\n',
      'Task a resumed at tick 5, 1 tick after it suspended; meanwhile the loop ran b (5 steps), idle (2 steps), new (1 step)\n',
      'Task a resumed at tick 5, 1 tick after it suspended; meanwhile the loop ran no other task\n',
    ]);
  });
});
