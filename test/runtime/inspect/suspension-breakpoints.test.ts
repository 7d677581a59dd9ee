// Tests of runtime/inspect/suspension-breakpoints.ts: the check of breakpoints on suspension
// points on a real loop (a task waiting in queue.get, the runtime's own TypeScript line): a hit
// where a frame newly arrives at the line, where the task resumes from it unless it stopped
// there when it suspended; and the helpers (hit conditions, conditions over primitive locals,
// which lines verify).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventLoop, Queue, VirtualClock, coroutine, sleep, type Coroutine, type Task } from '../../../runtime/index';
import { CoroutineHooksHub } from '../../../runtime/inspect/coroutine-hooks';
import {
  SuspensionBreakpoints,
  checkBreakpoints,
  evaluateCondition,
} from '../../../runtime/inspect/suspension-breakpoints';
import { parseHitCondition } from '../../../runtime/inspect/hit-count';

const ROOT = join(__dirname, '..', '..', '..');
const CRAWLER_TS = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const QUEUE_TS = join(ROOT, 'runtime', 'queue.ts');

/** The 1-based line of `file` containing `text`. */
function lineIn(file: string, text: string): number {
  const i = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text));
  assert.ok(i >= 0, `${file} has a line with ${text}`);
  return i + 1;
}
const lineOf = (text: string): number => lineIn(CRAWLER_TS, text);
/** queue.get's wait for an item: the innermost frame of a consumer waiting on an empty queue. */
const GETTER = lineIn(QUEUE_TS, 'yield* getter;');

/** A call that suspends three times, and its caller's line (a breakpoint where a frame waits on a call it made). */
const inner = coroutine(function* inner(): Coroutine<number> {
  yield* sleep(1);
  yield* sleep(1);
  yield* sleep(1);
  return 1;
});
const outer = coroutine(function* outer(): Coroutine<number> {
  const got = yield* inner(); // outer's call
  return got;
});
const OUTER_CALL = lineIn(__filename, "const got = yield* inner(); // outer's call");

describe('SuspensionBreakpoints on a loop', () => {
  const hub = new CoroutineHooksHub();
  before(() => hub.enable(true));
  after(() => hub.enable(false));

  /**
   * A consumer that takes two items a producer puts one virtual second apart, with a breakpoint in queue.get;
   * `stops`: what the owner answers a hit.
   */
  async function hitsOf(stops: boolean): Promise<string[]> {
    const loop = new EventLoop({ clock: new VirtualClock() });
    const said: string[] = [];
    const check = new SuspensionBreakpoints((bp, task, description) => {
      assert.equal(bp.line, GETTER);
      said.push(
        description.replace(/ at .*queue\.ts:/, ' at queue.ts:').replace(/ from .*queue\.ts:/, ' from queue.ts:'),
      );
      return stops;
    });
    assert.deepEqual(
      check.set(QUEUE_TS, [{ file: QUEUE_TS, line: GETTER }]).map((s) => s.verified),
      [true],
    );
    loop.addObserver({ taskStepStart: (t) => check.stepStarted(t), taskStepEnd: (t) => check.stepEnded(t) });
    const q = new Queue<number>();
    const consumer = coroutine(function* consumer(): Coroutine<number> {
      return (yield* q.get()) + (yield* q.get());
    });
    const producer = coroutine(function* producer(): Coroutine<void> {
      yield* sleep(1);
      q.putNowait(1);
      yield* sleep(1);
      q.putNowait(2);
    });
    const main = coroutine(function* main(): Coroutine<number> {
      const c = loop.createTask(consumer(), { name: 'consumer' });
      yield* loop.createTask(producer(), { name: 'producer' });
      return yield* c;
    });
    assert.equal(await loop.runUntilComplete(loop.createTask(main(), { name: 'main' })), 3);
    loop.close();
    return said.map((d) => d.replace(/^Task #\d+ /, ''));
  }

  test('a hit where the consumer arrives at the line in each get; its resume is its own step onwards once it stopped there', async () => {
    assert.deepEqual(await hitsOf(true), [
      `"consumer" suspended at queue.ts:${GETTER} in get`,
      `"consumer" suspended at queue.ts:${GETTER} in get`,
    ]);
  });

  test('when a hit does not stop (a hit condition said no), the resume from the line is a hit too', async () => {
    assert.deepEqual(await hitsOf(false), [
      `"consumer" suspended at queue.ts:${GETTER} in get`,
      `"consumer" resumed from queue.ts:${GETTER} in get`,
      `"consumer" suspended at queue.ts:${GETTER} in get`,
      `"consumer" resumed from queue.ts:${GETTER} in get`,
    ]);
  });

  test('set while a frame already waits on the line (inside a call it made there): no hit until a frame newly arrives', async () => {
    const loop = new EventLoop({ clock: new VirtualClock() });
    const said: number[] = [];
    // Any hit fails the test (`said` stays empty), whatever its words.
    const check = new SuspensionBreakpoints(() => {
      said.push(loop.tickCount());
      return true;
    });
    const observer = {
      taskStepStart: (t: Task<unknown>) => check.stepStarted(t),
      taskStepEnd: (t: Task<unknown>) => check.stepEnded(t),
    };
    let arrivals = 0;
    const main = coroutine(function* main(): Coroutine<void> {
      yield* outer();
      arrivals++;
      // The check begins here, `outer` of the second call waiting on the line, inside `inner`.
      yield* outer();
    });
    loop.addObserver({
      taskStepEnd: () => {
        if (arrivals === 1 && !check.active) {
          check.set(__filename, [{ file: __filename, line: OUTER_CALL }]);
          loop.addObserver(observer);
        }
      },
    });
    await loop.runUntilComplete(loop.createTask(main(), { name: 'main' }));
    loop.close();
    // The second call's outer frame arrived before the check began: none of its later steps is an arrival.
    assert.deepEqual(said, []);
  });

  test('nothing is checked without a breakpoint', async () => {
    const check = new SuspensionBreakpoints(() => assert.fail('no breakpoint is set'));
    assert.equal(check.active, false);
    check.set(QUEUE_TS, [{ file: QUEUE_TS, line: GETTER }]);
    assert.equal(check.active, true);
    check.set(QUEUE_TS, []);
    assert.equal(check.active, false);
  });
});

describe('breakpoint helpers', () => {
  test('hit conditions', () => {
    assert.equal(parseHitCondition('3')!(2), false);
    assert.equal(parseHitCondition('3')!(3), true);
    assert.equal(parseHitCondition('==2')!(3), false);
    assert.equal(parseHitCondition('%2')!(4), true);
    assert.equal(parseHitCondition('>1')!(1), false);
    assert.equal(parseHitCondition('every other'), null);
  });

  test('conditions see the primitive locals; a throwing condition counts as a hit', () => {
    const local = (name: string, type: 'number' | 'string' | 'object', text: string) => ({
      name,
      scope: 'local' as const,
      value: {
        type,
        text,
        className: type === 'object' ? 'Object' : null,
        size: type === 'string' ? JSON.parse(text).length : null,
        handle: null,
      },
    });
    const locals = [
      local('n', 'number', '4'),
      local('url', 'string', '"http://x/page/3/"'),
      local('obj', 'object', '{}'),
    ];
    assert.deepEqual(evaluateCondition('n > 3 && url.endsWith("/3/")', locals), { value: true, error: null });
    assert.deepEqual(evaluateCondition('n === 5', locals), { value: false, error: null });
    assert.equal(evaluateCondition('obj === undefined', locals).value, true);
    const thrown = evaluateCondition('missing.x', locals);
    assert.equal(thrown.value, true);
    assert.equal(thrown.error, 'ReferenceError: missing is not defined');
  });

  test('checkBreakpoints verifies lines with yield only', () => {
    const { statuses } = checkBreakpoints(CRAWLER_TS, [
      { file: CRAWLER_TS, line: lineOf('yield* this.q.join();') },
      { file: CRAWLER_TS, line: 100000 },
      { file: CRAWLER_TS, line: lineOf('yield* this.q.join();'), hitCondition: 'sometimes' },
      { file: CRAWLER_TS, line: lineOf('yield* this.q.join();'), condition: 'a +' },
    ]);
    assert.deepEqual(
      statuses.map((s) => s.verified),
      [true, false, false, false],
    );
  });
});
