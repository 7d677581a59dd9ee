// Tests of the main thread's end of the line debugger's bridge (runtime/host/main-thread/line-debug-bridge.ts),
// with a stand-in worker (fake-line-debug-worker.mjs) that echoes what it is sent and says what it is told to:
// the transport both ways (bridge controls kept out, closed once, nothing sent once closed), serve() returning
// what the endpoint sends meanwhile, a request of the worker's own withdrawn unread, and the handle the worker
// calls (`__coroscopeLine`) over a run's loop on the virtual clock: the current task, where, live, traced,
// the steps counted, a task gone, its suspension in words, a logpoint's hits counted, the pinned objects.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { COLLECTED_PIN } from '../../../../protocol/line-readings';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { LineDebugBridge } from '../../../../runtime/host/main-thread/line-debug-bridge';
import { startLineDebugWorker } from '../../../../runtime/host/main-thread/line-debug-worker-start';
import type { Run } from '../../../../runtime/host/main-thread/run';
import { type Coroutine, coroutine, EventLoop, Future, sleep, VirtualClock } from '../../../../runtime/index';

const WORKER = join(__dirname, 'fake-line-debug-worker.mjs');

/** The handle the worker calls, as far as these tests call it. */
interface Handle {
  serve(json: string): string;
  current(): number | null;
  pin(object: unknown): number;
  pinned(id: number): object;
  live(): boolean;
  traced(taskId: number, line?: string, generation?: number): boolean;
  everyRun(generation: number): void;
  where(): { taskId: number | null; taskName: string | null; tick: number; recorded: boolean };
  logHit(key: number, hitCondition: string): boolean;
  scanHit(location: number, met: Array<boolean | string | null>): boolean;
  scanPause(): string | null;
  scanMarked(matched: boolean): boolean;
  scanUntil(reached: boolean): boolean;
  scanPrinted(): string[];
  writeMidTick(path: string): unknown;
  withdraw(id: number): boolean;
  stepCounts(): Array<[number, string, number]>;
  gone(taskId: number): boolean;
  suspension(taskId: number, yielded: unknown, ended?: 'returned' | 'raised' | null): string;
}

function handle(): Handle {
  return (globalThis as Record<string, unknown>).__coroscopeLine as Handle;
}

/** A bridge to the stand-in worker: what its receivers heard, its close reasons, a wait for a message heard. */
class Bridged {
  readonly bridge = new LineDebugBridge(startLineDebugWorker({ script: '/host.js', worker: WORKER }, 9, []));
  readonly heard: unknown[] = [];
  readonly closed: string[] = [];
  private waiting: Array<() => void> = [];
  private readonly exited: Promise<void>;

  constructor() {
    this.bridge.onMessage((m) => {
      this.heard.push(m);
      for (const w of this.waiting.splice(0)) w();
    });
    let exited: () => void = () => undefined;
    this.exited = new Promise((resolve) => (exited = resolve));
    this.bridge.onClose((reason) => {
      this.closed.push(reason);
      if (reason === "the line debugger's worker exited") exited();
    });
  }

  /** Resolves once a message heard is deep-equal to `m`. */
  async hear(m: unknown): Promise<void> {
    const seen = (): boolean => this.heard.some((h) => JSON.stringify(h) === JSON.stringify(m));
    while (!seen()) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Disconnects (the stand-in exits) and waits for the bridge to close (told once: not again if closed before). */
  async end(): Promise<void> {
    const closedBefore = this.closed.length > 0;
    await this.bridge.disconnect();
    if (!closedBefore) await this.exited;
  }
}

let open: Bridged | null = null;
afterEach(async () => {
  await open?.end();
  open = null;
  delete (globalThis as Record<string, unknown>).__coroscopeLine;
});

function bridged(): Bridged {
  open = new Bridged();
  return open;
}

describe('the transport to the worker', () => {
  test("the worker is given the host's fd and script; messages go both ways; bridge controls are the bridge's", async () => {
    const b = bridged();
    await b.hear({ started: { fd: 9, script: '/host.js' } });
    b.bridge.send({ n: 1 });
    await b.hear({ got: { n: 1 } });
    b.bridge.send({
      say: [{ bridge: 'closed', reason: 'the pipe closed' }, { bridge: 'closed', reason: 'again' }, { after: 1 }],
    });
    await b.hear({ after: 1 });
    assert.deepStrictEqual(b.closed, ['the pipe closed']);
    // Closed: nothing more is sent (the worker would have echoed it before it disconnects).
    b.bridge.send({ late: 1 });
    await b.end();
    open = null;
    assert.deepStrictEqual(b.heard, [{ started: { fd: 9, script: '/host.js' } }, { got: { n: 1 } }, { after: 1 }]);
    assert.deepStrictEqual(b.closed, ['the pipe closed']);
  });

  test('serve(): what the endpoint sends while it runs is returned, in order, not posted; after it, posted', async () => {
    const b = bridged();
    const endpoint = {
      receiveNow: (m: unknown): void => {
        const q = (m as { q: number }).q;
        if (q < 0) throw new Error('bad request');
        b.bridge.send({ answer: q });
        b.bridge.send({ and: 'more' });
      },
    };
    b.bridge.attach(endpoint, () => null);
    assert.deepStrictEqual(JSON.parse(handle().serve('{"q":5}')), [{ answer: 5 }, { and: 'more' }]);
    assert.throws(() => handle().serve('{"q":-1}'), /^Error: bad request$/);
    b.bridge.send({ n: 2 });
    await b.hear({ got: { n: 2 } });
    assert.deepStrictEqual(
      b.heard.filter((h) => 'got' in (h as object)),
      [{ got: { n: 2 } }],
    );
  });

  test("a request of the worker's own withdrawn before it was read is dropped; one read, or a client's, is not", async () => {
    const b = bridged();
    b.bridge.attach({ receiveNow: () => undefined }, () => null);
    const ask = (id: number): object => ({ kind: 'request', id, method: 'feed' });
    // None read yet: any of its own may be withdrawn.
    assert.equal(handle().withdraw(-2), true);
    b.bridge.send({ say: [ask(-1), ask(-2), ask(-3), { end: 1 }] });
    await b.hear({ end: 1 });
    assert.deepStrictEqual(b.heard.slice(1), [ask(-1), ask(-3), { end: 1 }]);
    // -3 read: it and those before it cannot be withdrawn; a later one can; a client's id never.
    assert.deepStrictEqual(
      [handle().withdraw(-3), handle().withdraw(-1), handle().withdraw(-4), handle().withdraw(4)],
      [false, false, true, false],
    );
  });
});

describe('the handle the worker calls', () => {
  test('pinned objects: named by an id, the oldest let go past 64; a value that is no object refused', () => {
    const b = bridged();
    b.bridge.attach({ receiveNow: () => undefined }, () => null);
    const objects = Array.from({ length: 65 }, (_, i) => ({ i }));
    const ids = objects.map((o) => handle().pin(o));
    assert.deepStrictEqual(
      ids,
      Array.from({ length: 65 }, (_, i) => i + 1),
    );
    assert.equal(handle().pinned(2), objects[1]);
    assert.equal(handle().pinned(65), objects[64]);
    assert.throws(
      () => handle().pinned(1),
      /^Error: the watched object is not pinned here \(another replay, or let go\)$/,
    );
    assert.throws(() => handle().pin(3), /^TypeError: not an object: 3$/);
    assert.throws(() => handle().pin(null), /^TypeError: not an object: null$/);
  });

  test('a pinned object collected: said apart, as nothing can write it any more', async () => {
    const b = bridged();
    b.bridge.attach({ receiveNow: () => undefined }, () => null);
    const id = (() => handle().pin({ field: 1 }))();
    // A WeakRef's target lives to the end of the job that made it: collected after, once nothing holds it.
    await new Promise((r) => setImmediate(r));
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    assert.throws(
      () => handle().pinned(id),
      (e: unknown) => e instanceof Error && e.message === COLLECTED_PIN,
    );
  });

  test('with no run: nothing current, nowhere, live, nothing to scan, nothing to write', () => {
    const b = bridged();
    b.bridge.attach({ receiveNow: () => undefined }, () => null);
    const h = handle();
    assert.deepStrictEqual(
      [
        h.current(),
        h.where(),
        h.live(),
        h.traced(1),
        h.logHit(1, ''),
        h.scanHit(0, [true]),
        h.scanPause(),
        h.scanMarked(true),
        h.scanUntil(true),
        h.scanPrinted(),
        h.writeMidTick('/nowhere.corotrace'),
        h.stepCounts(),
        h.gone(1),
        h.suspension(3, undefined),
      ],
      [
        null,
        { taskId: null, taskName: null, tick: 0, recorded: false },
        true,
        false,
        false,
        false,
        null,
        false,
        false,
        [],
        { refused: 'nothing is running' },
        [],
        true,
        'task #3 ended',
      ],
    );
  });

  test("a run's loop: the current task, where it is, live or traced, its steps, a task gone, its suspension", async () => {
    const b = bridged();
    const loop = new EventLoop({ clock: new VirtualClock() });
    const other = new EventLoop({ clock: new VirtualClock() });
    const replayHost: { tracedLoop: EventLoop | null; hitScan: null } = { tracedLoop: null, hitScan: null };
    const run = { id: 1, loop, replayHost, recording: { recorded: true } } as unknown as Run;
    b.bridge.attach({ receiveNow: () => undefined }, () => run);
    const h = handle();
    const seen: unknown[] = [];
    const waiting = new Future<void>(loop);
    const worker = coroutine(function* worker(): Coroutine<void> {
      seen.push(h.current(), h.where(), h.live(), h.traced(1));
      yield;
      seen.push(h.where().tick);
      yield* waiting;
    });
    const idle = coroutine(function* idle(): Coroutine<void> {
      yield* sleep(10);
    });
    const w = loop.createTask(worker(), { name: 'worker' });
    const i = loop.createTask(idle(), { name: 'idle' });
    await loop.runOnce();
    await loop.runOnce();
    await loop.runOnce();
    assert.deepStrictEqual(seen, [
      w.id,
      { taskId: w.id, taskName: 'worker', tick: 1, recorded: true },
      true,
      // Not the traced replay's loop.
      false,
      2,
    ]);
    // Between ticks: the run's loop; its tasks and their steps.
    assert.deepStrictEqual(h.stepCounts(), [
      [w.id, 'worker', 2],
      [i.id, 'idle', 1],
    ]);
    assert.deepStrictEqual([h.gone(w.id), h.gone(999)], [false, true]);
    // The next task step the loop runs: idle's, once its sleep is over.
    assert.equal(h.suspension(w.id, waiting), 'worker suspended on future; the loop runs idle');
    // What a task waits on, read from the task when it yielded no future; the next step is another task's.
    assert.equal(h.suspension(i.id, undefined), 'idle suspended on sleep (10s); the loop waits for I/O or a timer');
    assert.equal(h.suspension(w.id, undefined, 'raised'), "worker's coroutine raised: the task ends");
    // Another loop's tick (a replay of the run's past) is not live.
    let liveThere: boolean | null = null;
    other.createTask(
      coroutine(function* replayed(): Coroutine<void> {
        liveThere = h.live();
      })(),
    );
    await other.runOnce();
    assert.equal(liveThere, false);
    i.cancel();
    await loop.runOnce();
    assert.deepStrictEqual(
      [h.gone(i.id), h.suspension(w.id, waiting)],
      [true, 'worker suspended on future; the loop waits for I/O or a timer'],
    );
    waiting.setResult(undefined);
    await loop.runOnce();
    assert.deepStrictEqual([h.gone(w.id), h.suspension(w.id, undefined)], [true, `task #${w.id} ended`]);
    loop.close();
    other.close();
  });

  /** A bridge whose current run is a replay host's, its traced tick running on the loop returned. */
  function tracedReplayLoop(): EventLoop {
    const b = bridged();
    const traced = new EventLoop({ clock: new VirtualClock() });
    const run = {
      id: 1,
      loop: new EventLoop({ clock: new VirtualClock() }),
      replayHost: { tracedLoop: traced, hitScan: null },
      recording: { recorded: false },
    } as unknown as Run;
    b.bridge.attach({ receiveNow: () => undefined }, () => run);
    return traced;
  }

  test("the traced replay's loop: traced() by task, a line run again at once in a tick only once", async () => {
    const traced = tracedReplayLoop();
    const h = handle();
    const answers: boolean[][] = [];
    let id = 0;
    const walked = coroutine(function* walked(): Coroutine<void> {
      answers.push([
        h.live(),
        h.traced(id, 'a'),
        h.traced(id, 'a'),
        h.traced(id, 'b'),
        h.traced(id + 1),
        h.traced(id, 'b'),
      ]);
      yield;
      answers.push([h.traced(id, 'b'), h.traced(id, 'b'), h.traced(id), h.traced(id, 'b')]);
    });
    id = traced.createTask(walked()).id;
    await traced.runOnce();
    await traced.runOnce();
    assert.deepStrictEqual(answers, [
      [true, true, false, true, false, false],
      [true, false, true, true],
    ]);
    traced.close();
  });

  test("told at a stop, a planting's breakpoints stop at every run of their line from then; another planting's do not", async () => {
    const traced = tracedReplayLoop();
    const h = handle();
    const answers: boolean[] = [];
    let id = 0;
    const walked = coroutine(function* walked(): Coroutine<void> {
      answers.push(h.traced(id, 'a', 7), h.traced(id, 'a', 7));
      h.everyRun(7);
      answers.push(h.traced(id, 'a', 7), h.traced(id, 'a', 7), h.traced(id, 'b', 8), h.traced(id, 'b', 8));
      yield;
    });
    id = traced.createTask(walked()).id;
    await traced.runOnce();
    assert.deepStrictEqual(answers, [true, false, true, true, true, false]);
    traced.close();
  });

  test("a logpoint's hits counted per run: its hit condition decides; the worker told its first tick's hits and one after", async () => {
    const b = bridged();
    const loop = new EventLoop({ clock: new VirtualClock() });
    let run = { id: 1, loop, replayHost: { tracedLoop: null, hitScan: null }, recording: { recorded: true } };
    b.bridge.attach({ receiveNow: () => undefined }, () => run as unknown as Run);
    const h = handle();
    const printed: boolean[] = [];
    const hits = coroutine(function* hits(): Coroutine<void> {
      printed.push(h.logHit(7, '>= 2'), h.logHit(7, '>= 2'));
      yield;
      printed.push(h.logHit(7, '>= 2'));
      yield;
      printed.push(h.logHit(7, '>= 2'), h.logHit(8, 'nonsense'));
    });
    loop.createTask(hits());
    for (let i = 0; i < 3; i++) await loop.runOnce();
    assert.deepStrictEqual(printed, [false, true, true, true, true]);
    b.bridge.send({ n: 'sync' });
    await b.hear({ got: { n: 'sync' } });
    assert.deepStrictEqual(
      b.heard.filter((m) => (m as { got?: { bridge?: string } }).got?.bridge === 'logHit'),
      [
        { got: { bridge: 'logHit', key: 7, tick: 1 } },
        { got: { bridge: 'logHit', key: 7, tick: 1 } },
        { got: { bridge: 'logHit', key: 7, tick: 2 } },
        { got: { bridge: 'logHit', key: 8, tick: 3 } },
      ],
    );
    // Another run counts from nothing.
    run = { ...run, id: 2 };
    assert.equal(h.logHit(7, '>= 2'), false);
    loop.close();
  });
});
