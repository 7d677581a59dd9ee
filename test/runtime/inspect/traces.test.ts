// Tests of runtime/inspect/traces.ts: the demo site's broken page gives a coroutine traceback
// naming every frame of its chain (work → fetch → parseLinks → extractLinks → decodeBody) with
// TypeScript positions whose source lines are the calls, and the callback stage's ripped
// trace of the same failure lacks the coroutine frames (loop → readResponse → … → decodeBody);
// a failed task's traceback follows the error through the task it awaited; an exception group's
// traceback shows each sub-exception's below it, boxed as Python does; V8 stack parsing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  EventLoop,
  ExceptionGroup,
  TaskGroup,
  VirtualClock,
  coroutine,
  sleep,
  setCoroutineTracking,
  type Coroutine,
  type Task,
} from '../../../runtime/index';
import { startDemoSite, type DemoSite } from '../../../runtime/demo-site/index';
import {
  ExceptionTracer,
  demoTracePair,
  formatTracePair,
  parseStack,
  tracePair,
  tracebackFromError,
  wakingTasks,
} from '../../../runtime/inspect/traces';
import type { TraceFrame, TracePair } from '../../../protocol/host-protocol';
import { lineOf } from '../../source-line';

const CRAWLER_TS = join(__dirname, '..', '..', '..', 'runtime', 'crawler', 'crawler.ts');
const LINKS_TS = join(__dirname, '..', '..', '..', 'runtime', 'crawler', 'links.ts');

const program = (frames: readonly TraceFrame[]): TraceFrame[] =>
  frames.filter((f) => f.kind === 'coroutine' || f.kind === 'callback');

describe('the broken page in both styles', () => {
  let site: DemoSite;
  let pair: TracePair;

  before(async () => {
    site = await startDemoSite({});
    pair = await tracePair(site.url);
  });
  after(async () => {
    await site.close();
  });

  test('the coroutine traceback names every frame of the chain, outermost first, with TypeScript lines', () => {
    assert.equal(pair.url, `${site.url}broken/`);
    assert.equal(
      pair.coroutine.error,
      `UnknownCharsetError: unknown charset "x-coroscope-unknown" declared by ${site.url}broken/`,
    );
    const frames = program(pair.coroutine.frames);
    // Each line is the call into the next frame; the last one raises.
    assert.deepEqual(
      frames.map((f) => [f.name, f.kind, f.position?.file, f.position?.line]),
      [
        ['work', 'coroutine', CRAWLER_TS, lineOf(CRAWLER_TS, 'yield* this.fetch(')],
        ['fetch', 'coroutine', CRAWLER_TS, lineOf(CRAWLER_TS, 'yield* this.parseLinks(')],
        ['parseLinks', 'coroutine', CRAWLER_TS, lineOf(CRAWLER_TS, '= extractLinks(')],
        ['extractLinks', 'callback', LINKS_TS, lineOf(LINKS_TS, '= decodeBody(')],
        ['decodeBody', 'callback', LINKS_TS, lineOf(LINKS_TS, 'throw new UnknownCharsetError(')],
      ],
    );
    // The loop is below the chain: the task's step, the ready queue, the tick.
    const loopNames = pair.coroutine.frames.filter((f) => f.kind === 'loop').map((f) => f.name);
    assert.ok(loopNames.includes('Task._step') && loopNames.includes('EventLoop._tick'), loopNames.join(', '));
    assert.ok(
      pair.coroutine.frames.indexOf(frames[0]!) > pair.coroutine.frames.findIndex((f) => f.name === 'Task._step'),
    );
  });

  test('the callback traceback is ripped: loop → readResponse → parse, without the coroutine frames', () => {
    assert.equal(pair.callback.error, pair.coroutine.error.replace(/^/, ''));
    const names = pair.callback.frames.map((f) => f.name);
    for (const n of ['work', 'fetch', 'parseLinks']) assert.ok(!names.includes(n), `no ${n}`);
    const frames = program(pair.callback.frames);
    assert.deepEqual(
      frames.map((f) => f.name),
      ['readResponse', 'recordResponse', 'extractLinks', 'decodeBody'],
    );
    assert.ok(frames.every((f) => f.kind === 'callback'));
    const loopFrame = pair.callback.frames.find((f) => f.kind === 'loop');
    assert.equal(loopFrame?.name, 'runCallbackLoop');
    assert.ok(
      pair.callback.frames.indexOf(loopFrame) < pair.callback.frames.indexOf(frames[0]!),
      'the loop is the bottom of the callback’s stack',
    );
  });

  test('each trace marks the frames the other lacks; the text is Python-style', () => {
    const marked = (frames: readonly TraceFrame[]) => program(frames).map((f) => [f.name, f.missingInOther === true]);
    assert.deepEqual(marked(pair.coroutine.frames), [
      ['work', true],
      ['fetch', true],
      ['parseLinks', true],
      ['extractLinks', false],
      ['decodeBody', false],
    ]);
    assert.deepEqual(marked(pair.callback.frames), [
      ['readResponse', true],
      ['recordResponse', true],
      ['extractLinks', false],
      ['decodeBody', false],
    ]);
    assert.match(pair.coroutine.text, /Traceback \(most recent call last\):/);
    assert.match(pair.coroutine.text, /\* File "[^"]*crawler\.ts", line \d+, in fetch {2}\(coroutine\)/);
    assert.match(pair.coroutine.text, /UnknownCharsetError: unknown charset[^\n]*$/);
    const text = formatTracePair(pair);
    const c = text.indexOf('Coroutine traceback');
    const b = text.indexOf('Callback traceback');
    assert.ok(c >= 0 && b > c, 'a Coroutine traceback section, then a Callback traceback section');
    assert.match(text, /Only the coroutine traceback names: work, fetch, parseLinks/);
  });
});

test('demoTracePair (for `coroscope trace --demo`) starts and stops its own demo site', async () => {
  const pair = await demoTracePair();
  assert.match(pair.url, /^http:\/\/127\.0\.0\.1:\d+\/broken\/$/);
  assert.deepEqual(
    program(pair.coroutine.frames).map((f) => f.name),
    ['work', 'fetch', 'parseLinks', 'extractLinks', 'decodeBody'],
  );
});

describe('tracebacks of failed tasks', () => {
  const inner = coroutine(function* inner(n: number): Coroutine<number> {
    yield* sleep(0.5);
    if (n > 0) throw new RangeError(`n must be 0, got ${n}`);
    return n;
  });
  const middle = coroutine(function* middle(): Coroutine<number> {
    return yield* inner(3);
  });
  const outer = coroutine(function* outer(loop: EventLoop): Coroutine<number> {
    const t = loop.createTask(middle(), { name: 'middle-task' });
    return yield* t;
  });

  test('the task awaiting a failed task gets a traceback through both chains', async () => {
    setCoroutineTracking(true);
    const tracer = new ExceptionTracer();
    tracer.install();
    const loop = new EventLoop({ clock: new VirtualClock() });
    const failed: Array<{ task: Task<unknown>; awaitedBy: Task<unknown>[] }> = [];
    loop.setObserver({
      taskDone: (t) => {
        if (!t.cancelled() && t._exception !== undefined) failed.push({ task: t, awaitedBy: wakingTasks(t) });
      },
    });
    try {
      const top = loop.createTask(outer(loop), { name: 'outer-task' });
      await assert.rejects(loop.runUntilComplete(top), RangeError);
      const middleTask = failed.find((f) => f.task.name === 'middle-task')!;
      assert.deepEqual(
        middleTask.awaitedBy.map((t) => t.name),
        ['outer-task'],
      );
      const mid = tracer.tracebackOf(middleTask.task, middleTask.task._exception, middleTask.awaitedBy);
      assert.deepEqual(
        program(mid.frames).map((f) => f.name),
        ['middle', 'inner'],
      );
      assert.match(mid.text, /Awaited by: task #\d+ "outer-task"/);
      const top2 = tracer.tracebackOf(top, top._exception);
      assert.deepEqual(
        program(top2.frames).map((f) => f.name),
        ['outer', 'middle', 'inner'],
      );
      assert.equal(top2.error, 'RangeError: n must be 0, got 3');
      assert.match(top2.title, /"outer-task"/);
      assert.ok(!top2.frames.some((f) => f.name === 'trackedFrame'), 'the tracking wrapper is not shown');
      assert.ok(tracer.captureCount >= 1);
    } finally {
      tracer.uninstall();
      loop.close();
      setCoroutineTracking(false);
    }
  });
});

describe('tracebacks of exception groups', () => {
  const failing = coroutine(function* failing(kind: 'range' | 'type', message: string): Coroutine<void> {
    yield* sleep(0.1);
    throw kind === 'range' ? new RangeError(message) : new TypeError(message);
  });
  const grouped = coroutine(function* grouped(): Coroutine<void> {
    yield* new TaskGroup().run(function* (tg) {
      tg.createTask(failing('range', 'first'));
      tg.createTask(failing('type', 'second'));
    });
  });

  test("a TaskGroup's failure shows each child's exception and where it was raised", async () => {
    setCoroutineTracking(true);
    const tracer = new ExceptionTracer();
    tracer.install();
    const loop = new EventLoop({ clock: new VirtualClock() });
    try {
      const top = loop.createTask(grouped(), { name: 'grouped' });
      await assert.rejects(loop.runUntilComplete(top), ExceptionGroup);
      const tb = tracer.tracebackOf(top, top._exception);
      assert.equal(tb.error, 'ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)');
      const lines = tb.text.split('\n');
      const boxes = lines.filter((l) => /^(\+-\+|  \+)-/.test(l));
      assert.deepEqual(boxes, [
        '+-+---------------- 1 ----------------',
        '  +---------------- 2 ----------------',
        '  +------------------------------------',
      ]);
      const [first, second] = [lines.indexOf(boxes[0]!), lines.indexOf(boxes[1]!)];
      assert.ok(lines.indexOf('  | RangeError: first') > first && lines.indexOf('  | RangeError: first') < second);
      assert.ok(lines.indexOf('  | TypeError: second') > second);
      const raised = lines.slice(first, second).filter((l) => /^ {2}\| {3}File ".*", line \d+, in failing/.test(l));
      assert.equal(raised.length, 1, tb.text);
    } finally {
      tracer.uninstall();
      loop.close();
      setCoroutineTracking(false);
    }
  });

  test('a group within a group is boxed within its box', () => {
    const tb = tracebackFromError(
      new ExceptionGroup('outer', [new ExceptionGroup('inner', [new Error('deepest')])]),
      'nested',
    );
    assert.equal(tb.error, 'ExceptionGroup: outer (1 sub-exception)');
    const lines = tb.text.split('\n');
    assert.ok(lines.includes('  | ExceptionGroup: inner (1 sub-exception)'), tb.text);
    assert.ok(lines.includes('  | +-+---------------- 1 ----------------'), tb.text);
    assert.ok(lines.includes('  |   | Error: deepest'), tb.text);
  });
});

describe('parseStack', () => {
  test('reads V8 frames: names, files, positions, generator resumes, async callers', () => {
    const { header, lines } = parseStack(
      [
        'RangeError: bad',
        '  on two lines',
        '    at decodeBody (/x/links.ts:173:36)',
        '    at _Crawler.parseLinks (/x/crawler.ts:223:21)',
        '    at parseLinks.next (<anonymous>)',
        '    at process.processImmediate (node:internal/timers:483:21)',
        '    at async run (/x/run.ts:1:2)',
        '    at /x/anon.js:5:6',
      ].join('\n'),
    );
    assert.equal(header, 'RangeError: bad\n  on two lines');
    assert.deepEqual(
      lines.map((l) => [l.name, l.file, l.line, l.column, l.resume, l.async]),
      [
        ['decodeBody', '/x/links.ts', 173, 36, false, false],
        ['_Crawler.parseLinks', '/x/crawler.ts', 223, 21, false, false],
        ['parseLinks.next', null, null, null, true, false],
        ['process.processImmediate', 'node:internal/timers', 483, 21, false, false],
        ['run', '/x/run.ts', 1, 2, false, true],
        ['<anonymous>', '/x/anon.js', 5, 6, false, false],
      ],
    );
  });
});
