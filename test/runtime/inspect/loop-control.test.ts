// Tests of runtime/inspect/loop-control.ts on a real crawl of the demo site (loopback), the
// loop held and stepped as the runtime host does: ten single ticks step exactly the tasks
// the ready queue held, in its order (checked against the controller's event log); step a
// task, step out of a frame; line breakpoints (with a condition) on the crawler's TypeScript
// lines; breaks when a task fails or is cancelled.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EventLoop, VirtualClock, coroutine, gather, sleep, type Coroutine, type Task } from '../../../runtime/index';
import { startDemoSite, type DemoSite } from '../../../runtime/demo-site/index';
import { Crawler } from '../../../runtime/crawler/crawler';
import { CoroutineHooksHub } from '../../../runtime/inspect/coroutine-hooks';
import { ObserverFanout } from '../../../runtime/observer-fanout';
import { taskFrames } from '../../../runtime/inspect/task-snapshot';
import { taskState } from '../../../runtime/inspect/task-summaries';
import { LoopController, readyTasks, type PauseInfo } from '../../../runtime/inspect/loop-control';

const CRAWLER_TS = join(__dirname, '..', '..', '..', 'runtime', 'crawler', 'crawler.ts');
const crawlerLines = readFileSync(CRAWLER_TS, 'utf8').split('\n');
/** The 1-based line of crawler.ts containing `text`. */
function lineOf(text: string): number {
  const i = crawlerLines.findIndex((l) => l.includes(text));
  assert.ok(i >= 0, `crawler.ts has a line with ${text}`);
  return i + 1;
}

const hub = new CoroutineHooksHub();

/** A loop with a controller installed as the host installs it; pauses are recorded. */
function controlledLoop(loop: EventLoop): { controller: LoopController; pauses: PauseInfo[]; remove: () => void } {
  const pauses: PauseInfo[] = [];
  const controller = new LoopController(loop, { events: { paused: (p) => pauses.push(p) } });
  loop.setObserver(new ObserverFanout([controller]));
  const remove = hub.add({ finished: (f) => controller.finished(f) });
  return { controller, pauses, remove };
}

describe('loop control on a demo crawl', () => {
  let site: DemoSite;
  let loop: EventLoop;
  let controller: LoopController;
  let pauses: PauseInfo[];
  let removeHooks: () => void;
  let crawlTask: Task<void>;
  let crawler: Crawler;
  let run: Promise<void>;

  before(async () => {
    hub.enable(true);
    // Every response late enough that a fetch always suspends waiting for it, even on a loaded
    // machine: a breakpoint at a `yield*` stops only a task that suspends there (with 5 ms, the
    // responses were often in before the worker read, and a breakpoint hit only near the end).
    site = await startDemoSite({ latencyMs: 40 });
    loop = new EventLoop();
    ({ controller, pauses, remove: removeHooks } = controlledLoop(loop));
    crawler = new Crawler([site.url], { maxTasks: 10 });
    crawlTask = loop.createTask(crawler.crawl(), { name: 'crawl' });
    controller.pauseOnEntry();
    run = loop.runUntilComplete(crawlTask);
  });

  after(async () => {
    for (const file of [CRAWLER_TS]) controller.setBreakpoints(file, []);
    controller.setExceptionBreaks(false, false);
    controller.continue();
    await run;
    removeHooks();
    loop.close();
    hub.enable(false);
    await site.close();
  });

  const workers = (): Task<unknown>[] => loop.allTasks().filter((t) => t.name.startsWith('worker-'));

  test('ten single ticks step exactly the tasks the ready queue held, in its order', async () => {
    assert.equal(pauses[0]?.reason, 'entry');
    for (let i = 0; i < 5; i++) await controller.stepTick(); // into the crawl: workers exist and run
    controller.enableEventLog();
    let steps = 0;
    for (let i = 0; i < 10; i++) {
      const predicted = readyTasks(loop);
      const before = new Map(loop.allTasks().map((t) => [t, taskState(t)] as const));
      const lastSeq = controller.eventLog().at(-1)?.seq ?? 0;
      const tickBefore = loop.tickCount();
      const tick = await controller.stepTick();
      assert.equal(tick, tickBefore + 1, 'one tick');
      assert.equal(loop.isPaused(), true);
      assert.deepEqual(pauses.at(-1), { reason: 'step', tick, description: `Stepped tick ${tick}` });
      const entries = controller.eventLog().filter((e) => e.seq > lastSeq);
      assert.ok(
        entries.every((e) => e.tick === tick),
        'every entry belongs to this tick',
      );
      assert.equal(entries[0]?.kind, 'tickStart');
      assert.equal(entries.at(-1)?.kind, 'tickEnd');
      // The steps: exactly the ready queue's tasks, in its order.
      const stepped = entries
        .filter((e) => e.kind === 'stepStart')
        .map((e) => (e.kind === 'stepStart' ? e.taskId : -1));
      assert.deepEqual(
        stepped,
        predicted.map((t) => t.id),
        `tick ${tick}`,
      );
      steps += stepped.length;
      // Each stepped task's logged state after its step is the state it is in now.
      for (const t of predicted) {
        const states = entries.filter((e) => e.kind === 'state' && e.taskId === t.id);
        assert.ok(states.length >= 1, `a state entry for #${t.id}`);
        const last = states.at(-1)!;
        assert.equal(last.kind === 'state' ? last.state : null, taskState(t), `#${t.id} ${t.name}`);
      }
      // No other task changed state; new tasks were logged as created.
      for (const t of loop.allTasks()) {
        if (predicted.includes(t)) continue;
        const was = before.get(t);
        if (was !== undefined) assert.equal(taskState(t), was, `#${t.id} ${t.name} did not step and kept its state`);
        else
          assert.ok(
            entries.some((e) => e.kind === 'created' && e.taskId === t.id),
            `#${t.id} was created in this tick`,
          );
      }
      for (const [t] of before) if (t.done()) assert.ok(predicted.includes(t), `#${t.id} finished, so it stepped`);
    }
    assert.ok(steps >= 5, `the ten ticks ran task steps (${steps})`);
  });

  test('stepTask runs until the task has resumed and suspended again', async () => {
    let worker: Task<unknown> | undefined;
    for (let i = 0; i < 2000 && worker === undefined; i++) {
      await controller.stepTick();
      worker = workers().find((w) => (w._frames?.length ?? 0) >= 3 && w._waiter !== null);
    }
    assert.ok(worker !== undefined, 'a busy worker');
    const steps = worker.steps();
    const n = pauses.length;
    await controller.stepTask(worker);
    assert.equal(worker.steps(), steps + 1, 'exactly one more step');
    assert.ok(worker.done() || worker._waiter !== null, 'suspended again (or finished)');
    assert.equal(loop.isPaused(), true);
    const p = pauses.slice(n);
    assert.equal(p.length, 1);
    assert.equal(p[0]!.reason, 'step');
    assert.equal(p[0]!.taskId, worker.id);
  });

  test('stepOut runs until the frame at the depth has returned', async () => {
    let worker: Task<unknown> | undefined;
    for (let i = 0; i < 2000 && worker === undefined; i++) {
      await controller.stepTick();
      worker = workers().find(
        (w) => (w._frames?.length ?? 0) >= 4 && w._frames![1]!.fn.name === 'fetch' && w._waiter !== null,
      );
    }
    assert.ok(worker !== undefined, 'a worker deep in fetch');
    const frame = worker._frames![2]!;
    await controller.stepOut(worker, 2);
    assert.ok(!(worker._frames ?? []).includes(frame), `the ${frame.fn.name} frame at depth 2 has returned`);
    assert.equal(pauses.at(-1)?.reason, 'step');
    await assert.rejects(controller.stepOut(worker, 99), /no frame at depth 99/);
  });

  test('a line breakpoint stops a task suspending at that line; a condition selects by locals', async () => {
    // `yield* this.fetch(...)` in work: every worker suspends there while its fetch waits.
    const fetchCall = lineOf('yield* this.fetch(item.url');
    const status = controller.setBreakpoints(CRAWLER_TS, [
      { file: CRAWLER_TS, line: fetchCall },
      { file: CRAWLER_TS, line: 1 },
    ]);
    assert.deepEqual(
      status.map((s) => s.verified),
      [true, false],
    );
    assert.match(status[1]!.message ?? '', /only stop where it suspends/);
    const n = pauses.length;
    controller.continue();
    while (pauses.length === n && !crawlTask.done()) await new Promise((r) => setTimeout(r, 5));
    const hit = pauses[n];
    assert.ok(hit !== undefined, 'the breakpoint hit');
    assert.equal(hit.reason, 'breakpoint', hit.description);
    const task = loop.allTasks().find((t) => t.id === hit.taskId)!;
    assert.ok(task.name.startsWith('worker-'));
    const frames = taskFrames(task);
    assert.equal(frames[0]!.functionName, 'work');
    assert.equal(frames[0]!.line, fetchCall);
    assert.equal(
      basename(frames[0]!.file ?? ''),
      'crawler.ts',
      'the stop is at the breakpoint: work, crawler.ts, its line',
    );

    // In fetch, only for content pages (a condition on its locals), from the second such hit on.
    const fetchLine = lineOf('response = yield* this.session.get(url');
    controller.setBreakpoints(CRAWLER_TS, [
      { file: CRAWLER_TS, line: fetchLine, condition: "url.includes('/page/') && depth >= 1", hitCondition: '2' },
    ]);
    const m = pauses.length;
    const doneBefore = crawler.progress().done;
    controller.continue();
    while (pauses.length === m && !crawlTask.done()) await new Promise((r) => setTimeout(r, 5));
    const cond = pauses[m];
    assert.ok(
      cond !== undefined,
      `the conditional breakpoint hit (crawl done: ${crawlTask.done()}, ${doneBefore} pages done before)`,
    );
    assert.equal(cond.reason, 'breakpoint', cond.description);
    const t2 = loop.allTasks().find((t) => t.id === cond.taskId)!;
    const fetchFrame = taskFrames(t2, { locals: true }).find((f) => f.functionName === 'fetch')!;
    assert.equal(fetchFrame.line, fetchLine);
    const url = fetchFrame.locals!.find((l) => l.name === 'url')!;
    assert.match(url.value.text, /\/page\/\d+/);
    controller.setBreakpoints(CRAWLER_TS, []);
  });
});

describe('exception breaks', () => {
  const failing = coroutine(function* failing(): Coroutine<number> {
    yield* sleep(0.01);
    throw new RangeError('bad');
  });
  const sleeper = coroutine(function* sleeper(): Coroutine<void> {
    yield* sleep(10);
  });

  test('a failed task pauses the loop after its tick, with the task and the error', async () => {
    const loop = new EventLoop({ clock: new VirtualClock() });
    const { controller, pauses, remove } = controlledLoop(loop);
    controller.setExceptionBreaks(true, false);
    const made: Task<number>[] = [];
    const main = coroutine(function* main(): Coroutine<unknown[]> {
      made.push(loop.createTask(failing(), { name: 'failing' }));
      return yield* gather(made[0]!, { returnExceptions: true });
    });
    const done = loop.runUntilComplete(loop.createTask(main(), { name: 'main' }));
    while (pauses.length === 0) await new Promise((r) => setTimeout(r, 1));
    assert.equal(pauses[0]!.reason, 'exception');
    // The stop names the task that failed, and that task holds the error.
    const failingTask = made[0]!;
    assert.equal(pauses[0]!.taskId, failingTask.id);
    assert.ok(failingTask.exception() instanceof RangeError);
    assert.equal((failingTask.exception() as RangeError).message, 'bad');
    const failed = loop.allTasks().find((t) => t.name === 'main');
    assert.ok(failed !== undefined && loop.isPaused());
    controller.continue();
    const [r] = await done;
    assert.ok(r instanceof RangeError);
    remove();
    loop.close();
  });

  test('a cancelled task pauses the loop only when asked', async () => {
    const loop = new EventLoop({ clock: new VirtualClock() });
    const { controller, pauses, remove } = controlledLoop(loop);
    controller.setExceptionBreaks(false, true);
    const made: Task<void>[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      const t = loop.createTask(sleeper(), { name: 'sleeper' });
      made.push(t);
      yield* sleep(1);
      t.cancel();
      yield* sleep(1);
    });
    const done = loop.runUntilComplete(loop.createTask(main(), { name: 'main' }));
    while (pauses.length === 0) await new Promise((r) => setTimeout(r, 1));
    assert.equal(pauses[0]!.reason, 'cancelled');
    assert.equal(pauses[0]!.taskId, made[0]!.id);
    assert.ok(made[0]!.cancelled());
    controller.continue();
    await done;
    remove();
    loop.close();
  });
});
