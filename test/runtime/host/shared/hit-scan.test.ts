// Tests of runtime/host/shared/hit-scan.ts: a HitScan on a real loop (VirtualClock), whose
// tasks call scan.hit(location, met) in scripted ticks as the worker's planted breakpoints
// would, and answer its marker and `until` pauses as the worker does. Checked: hits recorded
// in replay order with their counts (from `counts`, hit conditions, `since`), nothing of a
// warm-up tick, a logpoint's message with its task and tick time, a silent logpoint counted not
// recorded, the stops (nth, first, first limited to one task and lapsed at its end, marker), the marker's own hits
// neither before nor after it, nothing after `until`, and the scan's end report; the tick hits
// of a suspension breakpoint (queue.get's wait, through the scan's observer) with warm-up and
// `until`, warmUpFrom; messagesAfter.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine } from '../../../../runtime/coroutine';
import { EventLoop } from '../../../../runtime/loop';
import { CoroutineHooksHub } from '../../../../runtime/inspect/coroutine-hooks';
import { Queue } from '../../../../runtime/queue';
import { sleep } from '../../../../runtime/sleep';
import type { Coroutine } from '../../../../runtime/task';
import { HitScan, messagesAfter } from '../../../../runtime/host/shared/hit-scan';
import type { ScanHit, ScanTicksParams } from '../../../../protocol/host-protocol';

type TaskName = 'A' | 'B';

/** One planted location run by a task in a tick, with its breakpoints' conditions (`met`). */
interface Step {
  tick: number;
  task: TaskName;
  location: number;
  met: Array<boolean | string | null>;
  /** The worker's verdict if the scan pauses there for the marker or `until` (default: it is not). */
  matched?: boolean;
  /** What the program does there before the breakpoint's check (a write the trap counts). */
  act?: () => void;
}

interface Scenario {
  scan: HitScan;
  /** What each step got: `tick task Lloc: go|pause <why>`, then the verdict's answer. */
  log: string[];
  ids: Record<TaskName, number>;
  stops: number[];
}

const SCAN_END = '__coroscopeScanEnd';

/**
 * Replays `steps` on a fresh loop: tasks A and B each run their steps in their ticks (one sleep(0) is one
 * tick). `params` is made once the tasks' ids are known. A logpoint's tick time is its tick × 10.
 */
async function replay(
  steps: readonly Step[],
  params: (ids: Record<TaskName, number>) => ScanTicksParams,
): Promise<Scenario> {
  const loop = new EventLoop({ clock: new VirtualClock() });
  const log: string[] = [];
  const stops: number[] = [];
  let scan: HitScan | null = null;
  const run = (name: TaskName) =>
    coroutine(function* runSteps(): Coroutine<void> {
      for (const step of steps.filter((s) => s.task === name)) {
        while (loop.tickCount() < step.tick) yield* sleep(0);
        assert.equal(loop.tickCount(), step.tick, `step of ${name} runs in tick ${step.tick}`);
        const s = scan!;
        step.act?.();
        const paused = s.hit(step.location, step.met);
        const entry = `${step.tick} ${name} L${step.location}`;
        if (!paused) {
          log.push(`${entry}: go`);
          continue;
        }
        const why = s.pausedFor;
        log.push(`${entry}: pause ${why}`);
        const matched = step.matched ?? false;
        if (why === 'marker') log.push(`  markerSeen(${matched}) -> ${s.markerSeen(matched)}`);
        if (why === 'until') log.push(`  untilSeen(${matched}) -> ${s.untilSeen(matched)}`);
      }
    })();
  const a = loop.createTask(run('A'), { name: 'A' });
  const b = loop.createTask(run('B'), { name: 'B' });
  const ids = { A: a.id, B: b.id };
  scan = new HitScan(params(ids), (tick) => tick * 10);
  scan.loop = loop;
  scan.onStop = (tick) => stops.push(tick);
  try {
    await loop.runUntilComplete(
      coroutine(function* both(): Coroutine<void> {
        yield* a;
        yield* b;
      })(),
    );
  } finally {
    loop.close();
  }
  return { scan, log, ids, stops };
}

/** Hits as compact lines: `bp@tick task #count` and the logpoint's `"message" taskName time`. */
function lines(hits: readonly ScanHit[], ids: Record<TaskName, number>): string[] {
  const nameOf = (id: number | null): string => (id === ids.A ? 'A' : id === ids.B ? 'B' : String(id));
  return hits.map(
    (h) =>
      `bp${h.bp}@${h.tick} ${nameOf(h.taskId)} #${h.count}` +
      (h.message === undefined ? '' : ` "${h.message}" ${h.taskName} ${h.time}`),
  );
}

describe('HitScan recording', () => {
  test('hits in replay order, counted from `counts` through hit conditions and `since`; warm-up ticks not', async () => {
    const { scan, log, ids } = await replay(
      [
        { tick: 2, task: 'A', location: 0, met: [true, true] },
        { tick: 3, task: 'A', location: 0, met: [true, true] },
        { tick: 3, task: 'B', location: 1, met: [true] },
        { tick: 4, task: 'A', location: 0, met: [true, true] },
        { tick: 4, task: 'B', location: 0, met: [false, true] },
        { tick: 6, task: 'B', location: 1, met: [true] },
      ],
      () => ({
        from: 2,
        to: 8,
        breakpoints: [{}, { hitCondition: '%2' }, { hitCondition: '>=1', since: 4 }],
        locations: [[0, 1], [2]],
        counts: [10, 0, 0],
      }),
    );
    assert.deepEqual(log, ['2 A L0: go', '3 A L0: go', '3 B L1: go', '4 A L0: go', '4 B L0: go', '6 B L1: go']);
    // bp1 counts 1 (tick 3), 2 (tick 4, A: %2 lets it), 3 (tick 4, B); bp2 counts only after tick 4.
    assert.deepEqual(lines(scan.hits, ids), ['bp0@3 A #11', 'bp0@4 A #12', 'bp1@4 A #2', 'bp2@6 B #1']);
    assert.deepEqual(scan.result(), { hits: scan.hits, marked: null, stopped: false, tickHits: [] });
  });

  test("a logpoint's hit carries its message, task name and tick time; a silent one is counted, not recorded", async () => {
    const { scan, ids } = await replay(
      [
        { tick: 1, task: 'A', location: 0, met: [null] },
        { tick: 2, task: 'B', location: 0, met: ['x is 2'] },
        { tick: 3, task: 'A', location: 0, met: [null] },
        { tick: 4, task: 'A', location: 0, met: ['x is 4'] },
      ],
      () => ({ from: 0, to: 5, breakpoints: [{ hitCondition: '>=2' }], locations: [[0]] }),
    );
    assert.deepEqual(lines(scan.hits, ids), ['bp0@2 B #2 "x is 2" B 20', 'bp0@4 A #4 "x is 4" A 40']);
    assert.deepEqual(scan.printed(), ['x is 2', 'x is 4']);
  });

  test('without a loop the scan records nothing', () => {
    const scan = new HitScan({ from: 0, to: 3, breakpoints: [{}], locations: [[0]] });
    assert.equal(scan.hit(0, [true]), false);
    assert.deepEqual(scan.hits, []);
  });
});

describe('HitScan stops', () => {
  test('nth: pauses at that hit of that tick, tells onStop, then records nothing more', async () => {
    const { scan, log, ids, stops } = await replay(
      [
        { tick: 1, task: 'A', location: 0, met: [true] },
        { tick: 2, task: 'A', location: 0, met: [true] },
        { tick: 2, task: 'B', location: 0, met: [true] },
        { tick: 3, task: 'A', location: 0, met: [true] },
      ],
      () => ({ from: 0, to: 4, breakpoints: [{}], locations: [[0]], stop: { kind: 'nth', tick: 2, ordinal: 1 } }),
    );
    assert.deepEqual(log, ['1 A L0: go', '2 A L0: go', '2 B L0: pause stop', '3 A L0: go']);
    assert.deepEqual(stops, [2]);
    assert.deepEqual(lines(scan.hits, ids), ['bp0@1 A #1', 'bp0@2 A #2', 'bp0@2 B #3']);
    assert.equal(scan.result().stopped, true);
  });

  test('first: the first breakpoint hit after afterTick stops; a logpoint there only prints', async () => {
    const { scan, log, ids, stops } = await replay(
      [
        { tick: 1, task: 'A', location: 0, met: [true, false] },
        { tick: 3, task: 'A', location: 0, met: [false, 'printed on the way'] },
        { tick: 4, task: 'B', location: 0, met: [true, 'same moment'] },
      ],
      () => ({
        from: 0,
        to: 5,
        breakpoints: [{}, {}],
        locations: [[0, 1]],
        stop: { kind: 'first', afterTick: 2 },
      }),
    );
    assert.deepEqual(log, ['1 A L0: go', '3 A L0: go', '4 B L0: pause stop']);
    assert.deepEqual(stops, [4]);
    assert.deepEqual(lines(scan.hits, ids), [
      'bp0@1 A #1',
      'bp1@3 A #1 "printed on the way" A 30',
      'bp0@4 B #2',
      'bp1@4 B #2 "same moment" B 40',
    ]);
    // Printed: the messages after afterTick.
    assert.deepEqual(scan.printed(), ['printed on the way', 'same moment']);
  });
});

test("first, limited to one task: another task's hit counts and is recorded, the task's own stops", async () => {
  const { scan, log, ids, stops } = await replay(
    [
      { tick: 1, task: 'B', location: 0, met: [true] },
      { tick: 2, task: 'A', location: 0, met: [true] },
      { tick: 3, task: 'B', location: 0, met: [true] },
    ],
    (ids) => ({
      from: 0,
      to: 4,
      breakpoints: [{ task: ids.A }],
      locations: [[0]],
      stop: { kind: 'first', afterTick: 0 },
    }),
  );
  assert.deepEqual(log, ['1 B L0: go', '2 A L0: pause stop', '3 B L0: go']);
  assert.deepEqual(stops, [2]);
  assert.deepEqual(lines(scan.hits, ids), ['bp0@1 B #1', 'bp0@2 A #2']);
});

test("first, limited to one task: once that task ended, the limit lapses and another task's hit stops", async () => {
  // A's last step is its hit in tick 2 (its coroutine returns there): B's hit in tick 1 is passed, in tick 3 it stops.
  const { scan, log, ids, stops } = await replay(
    [
      { tick: 1, task: 'B', location: 0, met: [true] },
      { tick: 2, task: 'A', location: 0, met: [true] },
      { tick: 3, task: 'B', location: 0, met: [true] },
      { tick: 4, task: 'B', location: 0, met: [true] },
    ],
    (ids) => ({
      from: 0,
      to: 5,
      breakpoints: [{ task: ids.A }],
      locations: [[0]],
      stop: { kind: 'first', afterTick: 2 },
    }),
  );
  assert.deepEqual(log, ['1 B L0: go', '2 A L0: go', '3 B L0: pause stop', '4 B L0: go']);
  assert.deepEqual(stops, [3]);
  assert.deepEqual(lines(scan.hits, ids), ['bp0@1 B #1', 'bp0@2 A #2', 'bp0@3 B #3']);
  assert.deepEqual(
    scan.hits.map((h) => h.lapsed ?? false),
    [false, false, true],
    'lapsed only once A is gone',
  );
});

describe('HitScan marker', () => {
  /** Hits in ticks 1..4 by A, B running the marker's location in tick 2 (and A in tick 2 too, not the marker). */
  const steps = (matched: boolean): Step[] => [
    { tick: 1, task: 'A', location: 0, met: ['before'] },
    { tick: 2, task: 'A', location: 1, met: [true] },
    { tick: 2, task: 'B', location: 1, met: [true], matched },
    { tick: 3, task: 'A', location: 0, met: ['after'] },
    { tick: 4, task: 'A', location: 1, met: [true] },
  ];
  const params =
    (stop?: ScanTicksParams['stop']) =>
    (ids: Record<TaskName, number>): ScanTicksParams => ({
      from: 0,
      to: 5,
      breakpoints: [{}, {}],
      locations: [[0], [1]],
      marker: { location: 1, tick: 2, taskId: ids.B },
      ...(stop === undefined ? {} : { stop }),
    });

  test("the marker's moment: its hits are neither before nor after it; the ones after it are", async () => {
    const { scan, log, ids } = await replay(steps(true), params({ kind: 'first', afterTick: 0 }));
    assert.deepEqual(log, [
      '1 A L0: go',
      '2 A L1: go',
      '2 B L1: pause marker',
      '  markerSeen(true) -> false',
      '3 A L0: go',
      '4 A L1: pause stop',
    ]);
    assert.deepEqual(lines(scan.hits, ids), [
      'bp0@1 A #1 "before" A 10',
      'bp1@2 A #1',
      'bp0@3 A #2 "after" A 30',
      'bp1@4 A #2',
    ]);
    assert.equal(scan.marked, 2);
    assert.deepEqual(scan.printed(), ['after']);
  });

  test('a pause at the marker location that is not the marker records its hits as any moment', async () => {
    const { scan, log, ids } = await replay(steps(false), params());
    assert.deepEqual(log.slice(2, 4), ['2 B L1: pause marker', '  markerSeen(false) -> false']);
    assert.deepEqual(lines(scan.hits, ids).slice(1, 3), ['bp1@2 A #1', 'bp1@2 B #2']);
    assert.equal(scan.marked, null);
    // Without the marker met, nothing was printed after it.
    assert.deepEqual(scan.printed(), []);
  });

  test('stop at the marker: the scan stops there', async () => {
    const { scan, log } = await replay(steps(true), params({ kind: 'marker' }));
    assert.deepEqual(log.slice(2, 4), ['2 B L1: pause marker', '  markerSeen(true) -> true']);
    assert.equal(scan.stopped, true);
    assert.equal(scan.pausedFor, 'stop');
  });
});

describe('HitScan until', () => {
  test('at the live stop: its breakpoint is the untilHit, its logpoint prints, nothing after is recorded', async () => {
    const { scan, log, ids } = await replay(
      [
        { tick: 1, task: 'A', location: 0, met: [true, false] },
        { tick: 2, task: 'A', location: 0, met: [true, 'at the stop'], matched: true },
        { tick: 2, task: 'B', location: 0, met: [true, 'after the stop'] },
      ],
      (ids) => ({
        from: 0,
        to: 3,
        breakpoints: [{}, {}],
        locations: [[0, 1]],
        until: { location: 0, tick: 2, taskId: ids.A },
      }),
    );
    assert.deepEqual(log, ['1 A L0: go', '2 A L0: pause until', '  untilSeen(true) -> false', '2 B L0: go']);
    assert.deepEqual(lines(scan.hits, ids), ['bp0@1 A #1', 'bp1@2 A #1 "at the stop" A 20']);
    const result = scan.result();
    assert.deepEqual([result.untilReached, result.untilHit], [true, 0]);
  });

  test('not the live stop: the hits there are recorded and the scan goes on', async () => {
    const { scan, log, ids } = await replay(
      [
        { tick: 2, task: 'A', location: 0, met: [true], matched: false },
        { tick: 3, task: 'A', location: 0, met: [true] },
      ],
      (ids) => ({
        from: 0,
        to: 3,
        breakpoints: [{}],
        locations: [[0]],
        until: { location: 0, tick: 2, taskId: ids.A },
      }),
    );
    assert.deepEqual(log, ['2 A L0: pause until', '  untilSeen(false) -> false', '3 A L0: go']);
    assert.deepEqual(lines(scan.hits, ids), ['bp0@2 A #1', 'bp0@3 A #2']);
    assert.deepEqual([scan.result().untilReached, scan.result().untilHit], [false, undefined]);
  });
});

describe('HitScan end report', () => {
  const g = globalThis as Record<string, unknown>;

  test("a scan run to its end adds the logpoint's report as its last hit, once", async () => {
    g[SCAN_END] = { bp: 0, read: () => 'stale' };
    const { scan, ids } = await replay([{ tick: 1, task: 'A', location: 0, met: ['first'] }], () => {
      // A report left before the scan began is not this scan's.
      return { from: 0, to: 7, breakpoints: [{}], locations: [[0]] };
    });
    assert.equal(g[SCAN_END], undefined);
    g[SCAN_END] = { bp: 0, read: () => 'field written 3 times' };
    const first = scan.result();
    const again = scan.result();
    assert.deepEqual(lines(first.hits, ids), ['bp0@1 A #1 "first" A 10', 'bp0@7 null #0 "field written 3 times"  70']);
    assert.equal(again.hits.length, 2);
    assert.equal(g[SCAN_END], undefined);
  });

  test('a scan ending at the live stop (`until`) reads the report there: what its tick runs after it is not in it', async () => {
    let writes = 0;
    const trap = { bp: 0, read: () => `field written ${writes} times` };
    const write = (): void => {
      writes++;
      // The trap's state is made once per scan: a message met later leaves no report again.
      if (writes === 1) g[SCAN_END] = trap;
    };
    const { scan, ids } = await replay(
      [
        { tick: 1, task: 'A', location: 0, met: ['1'], act: write },
        { tick: 2, task: 'A', location: 0, met: ['2'], act: write, matched: true },
        { tick: 2, task: 'B', location: 0, met: ['3'], act: write },
      ],
      (ids) => ({
        from: 0,
        to: 2,
        breakpoints: [{}],
        locations: [[0]],
        until: { location: 0, tick: 2, taskId: ids.A },
      }),
    );
    assert.equal(writes, 3);
    assert.deepEqual(lines(scan.result().hits, ids), [
      'bp0@1 A #1 "1" A 10',
      'bp0@2 A #2 "2" A 20',
      'bp0@2 null #0 "field written 2 times"  20',
    ]);
    assert.equal(scan.result().hits.length, 3);
  });

  test('a report for no such logpoint, or whose text throws, adds nothing; a stopped scan reads none', async () => {
    const reports = [
      { bp: 3, read: () => 'unknown logpoint' },
      {
        bp: 0,
        read: () => {
          throw new Error('message threw');
        },
      },
      { bp: 0, read: () => 42 },
    ];
    for (const report of reports) {
      const scan = new HitScan({ from: 0, to: 2, breakpoints: [{}], locations: [[0]] });
      g[SCAN_END] = report;
      assert.deepEqual(scan.result().hits, []);
    }
    const { scan } = await replay([{ tick: 1, task: 'A', location: 0, met: [true] }], () => ({
      from: 0,
      to: 2,
      breakpoints: [{}],
      locations: [[0]],
      stop: { kind: 'nth', tick: 1, ordinal: 0 },
    }));
    g[SCAN_END] = { bp: 0, read: () => 'not read' };
    assert.equal(scan.result().hits.length, 1);
    assert.notEqual(g[SCAN_END], undefined);
    delete g[SCAN_END];
  });
});

describe('HitScan suspension breakpoints', () => {
  const hub = new CoroutineHooksHub();
  before(() => hub.enable(true));
  after(() => hub.enable(false));
  const QUEUE_TS = join(__dirname, '..', '..', '..', '..', 'runtime', 'queue.ts');
  /** queue.get's wait for an item: where a consumer of an empty queue suspends. */
  const GETTER =
    readFileSync(QUEUE_TS, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('yield* getter;')) + 1;

  /**
   * The scan's tickHits (`tick #count description`) over a consumer taking two items a producer puts one
   * virtual second apart, with a breakpoint on GETTER; `params` adds to the scan's.
   */
  async function tickHitsOf(params: Partial<ScanTicksParams>, hitCondition?: string): Promise<string[]> {
    const loop = new EventLoop({ clock: new VirtualClock() });
    const scan = new HitScan({
      from: 0,
      to: 100,
      breakpoints: [{ atSuspension: { file: QUEUE_TS, line: GETTER }, ...(hitCondition ? { hitCondition } : {}) }],
      locations: [],
      ...params,
    });
    assert.ok(scan.observer !== null);
    scan.loop = loop;
    loop.addObserver(scan.observer);
    const q = new Queue<number>();
    const consumer = loop.createTask(
      coroutine(function* consumer(): Coroutine<number> {
        return (yield* q.get()) + (yield* q.get());
      })(),
      { name: 'consumer' },
    );
    const producer = coroutine(function* producer(): Coroutine<void> {
      yield* sleep(1);
      q.putNowait(1);
      yield* sleep(1);
      q.putNowait(2);
    });
    try {
      await loop.runUntilComplete(loop.createTask(producer(), { name: 'producer' }));
      assert.equal(await loop.runUntilComplete(consumer), 3);
    } finally {
      loop.close();
    }
    return scan.tickHits.map((h) => {
      assert.deepEqual([h.bp, h.taskId], [0, consumer.id]);
      const where = (h.description ?? '')
        .replace(/^Task #\d+ /, '')
        .replace(/ (at|from) .*queue\.ts:/, ' $1 queue.ts:');
      return `${h.tick} #${h.count} ${where}`;
    });
  }

  test('each arrival at the line is a tick hit; ticks up to `from` warm up and count nothing; `until` ends them', async () => {
    const all = await tickHitsOf({});
    assert.equal(all.length, 2);
    const [first, second] = all.map((h) => Number(h.split(' ')[0]));
    assert.deepEqual(all, [
      `${first} #1 "consumer" suspended at queue.ts:${GETTER} in get`,
      `${second} #2 "consumer" suspended at queue.ts:${GETTER} in get`,
    ]);
    // The first arrival is in a warm-up tick: not counted, but it stopped there live, so its resume is no hit.
    assert.deepEqual(await tickHitsOf({ from: first! }), [
      `${second} #1 "consumer" suspended at queue.ts:${GETTER} in get`,
    ]);
    // Nothing in or after the live stop's tick.
    const until = { location: 0, tick: second!, taskId: 0 };
    assert.deepEqual(await tickHitsOf({ until }), [all[0]]);
  });

  test('warmUpFrom: before the last step of each task waiting on a breakpoint line, else `from`', async () => {
    const loop = new EventLoop({ clock: new VirtualClock() });
    const q = new Queue<number>();
    const waiting = loop.createTask(q.get(), { name: 'waiting' });
    const elsewhere = loop.createTask(
      coroutine(function* elsewhere(): Coroutine<void> {
        yield* sleep(50);
      })(),
      { name: 'elsewhere' },
    );
    try {
      await loop.runOnce();
      const atGetter = new HitScan({
        from: 9,
        to: 20,
        breakpoints: [{ atSuspension: { file: QUEUE_TS, line: GETTER } }],
        locations: [],
      });
      const plain = new HitScan({ from: 9, to: 20, breakpoints: [{}], locations: [[0]] });
      const lastSteps: Record<number, number | null> = { [waiting.id]: 6, [elsewhere.id]: 2 };
      const asked: number[] = [];
      const lastStep = (id: number): number | null => {
        asked.push(id);
        return lastSteps[id] ?? null;
      };
      assert.deepEqual(
        [atGetter.warmUpFrom(loop, lastStep), asked, plain.warmUpFrom(loop, lastStep)],
        [5, [waiting.id], 9],
      );
      // A last step after `from` (or none) moves nothing.
      lastSteps[waiting.id] = 12;
      assert.equal(atGetter.warmUpFrom(loop, lastStep), 9);
      lastSteps[waiting.id] = null;
      assert.equal(atGetter.warmUpFrom(loop, lastStep), 9);
    } finally {
      waiting.cancel();
      elsewhere.cancel();
      await loop.runOnce();
      loop.close();
    }
  });

  test('a hit its hit condition lets not through makes the resume from the line a hit, counted on', async () => {
    const hits = await tickHitsOf({}, '>=2');
    assert.deepEqual(
      hits.map((h) => h.slice(h.indexOf(' ') + 1)),
      [`#2 "consumer" resumed from queue.ts:${GETTER} in get`, `#3 "consumer" suspended at queue.ts:${GETTER} in get`],
    );
  });
});

describe('messagesAfter', () => {
  test('the messages from the marked index on, in ticks after afterTick, in order', () => {
    const hits: ScanHit[] = [
      { bp: 0, tick: 1, taskId: 1, count: 1, message: 'm1' },
      { bp: 1, tick: 2, taskId: 1, count: 1 },
      { bp: 0, tick: 2, taskId: 1, count: 2, message: 'm2' },
      { bp: 0, tick: 5, taskId: 2, count: 3, message: 'm3' },
    ];
    assert.deepEqual(
      [
        messagesAfter(hits, null, -1),
        messagesAfter(hits, 2, -1),
        messagesAfter(hits, null, 2),
        messagesAfter(hits, 4, -1),
      ],
      [['m1', 'm2', 'm3'], ['m2', 'm3'], ['m3'], []],
    );
  });
});
