// Runtime micro-benchmarks, each measured in the same run against Node's native
// async/await, printed as ns or bytes and as a ratio (ours / native):
//   1. the sleep(0) task switch vs `await new Promise(r => setImmediate(r))`, with the
//      longest gap between Node I/O polls seen while our loop spins;
//   2. resuming 100k tasks whose futures were resolved (then gather) vs 100k async
//      functions awaiting resolved promises (then Promise.all);
//   3. heap bytes per suspended task (100k) vs per suspended async function, and
//      1,000,000 suspended tasks alive at once.
// Two shapes of task. The users' shape (what a program writes): a parent task makes a
// future, hands it to a child task it creates (`createTask(child(fut))`, the child does
// `return yield* fut`) and later sets its result, against an async function awaiting a
// promise its caller made (`child(new Promise(...))`); and the same with the child a chain
// of 3 coroutines (`yield*` of a coroutine of a coroutine) against 3 nested async functions.
// The lighter shape measured first: a task that makes its own future and awaits it, against
// an async function that makes its own promise and awaits it; memory also against the leanest
// native form, whose executor captures nothing per call. Every figure is measured in paired
// rounds (ours, then native, back to back); printed are the medians of each side and the
// median of the rounds' ratios (sleep(0): the best of each side).
// --tracking turns coroutine tracking on first (as `coroscope run --inspect` and the extension's
// host do): every figure then includes the frames the inspector reads.
// Run: npm run bench:runtime  (node --expose-gc dist/bench/runtime.bench.js [--quick] [--json] [--tracking])

import {
  EventLoop,
  coroutine,
  gather,
  getRunningLoop,
  run,
  setCoroutineTracking,
  sleep,
  type Coroutine,
  type Future,
  type Task,
} from '../runtime/index';

const quick = process.argv.includes('--quick');
const asJson = process.argv.includes('--json');
const tracking = process.argv.includes('--tracking');
// Before any coroutine is called: tracking applies to the coroutines created from then on.
if (tracking) setCoroutineTracking(true);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('run with node --expose-gc');
  process.exit(2);
}

function collect(): void {
  for (let i = 0; i < 3; i++) gc!();
}

function nowNs(): number {
  return Number(process.hrtime.bigint());
}

// --- 1. sleep(0) switch -------------------------------------------------------------------

const spinner = coroutine(function* spinner(n: number) {
  for (let i = 0; i < n; i++) yield* sleep(0);
});

async function ourSwitch(n: number): Promise<{ nsPerSwitch: number; maxPollGapMs: number; p99PollGapMs: number }> {
  const loop = new EventLoop();
  // Node's poll phase runs between our slices; a repeating immediate measures the gaps.
  let last = performance.now();
  const gaps: number[] = [];
  let polling = true;
  const probe = (): void => {
    const t = performance.now();
    gaps.push(t - last);
    last = t;
    if (polling) setImmediate(probe);
  };
  setImmediate(probe);
  const t0 = nowNs();
  await loop.runUntilComplete(spinner(n));
  const ns = nowNs() - t0;
  polling = false;
  loop.close();
  gaps.sort((a, b) => a - b);
  return {
    nsPerSwitch: ns / n,
    maxPollGapMs: gaps[gaps.length - 1] ?? 0,
    p99PollGapMs: gaps[Math.floor(gaps.length * 0.99)] ?? 0,
  };
}

async function nativeSwitch(n: number): Promise<number> {
  const t0 = nowNs();
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
  return (nowNs() - t0) / n;
}

// --- 2. resume of tasks whose futures were resolved ---------------------------------------

/** A user's task: makes its own future, hands it out to be resolved, and awaits it. */
const awaitOwnFuture = coroutine(function* awaitOwnFuture(futures: Future<number>[], i: number): Coroutine<number> {
  const fut = getRunningLoop().createFuture<number>();
  futures[i] = fut;
  return yield* fut;
});

/** Native's: an async function that makes its own promise, hands out its resolver, awaits it. */
async function awaitOwnPromise(resolvers: Array<(v: number) => void>, i: number): Promise<number> {
  return await new Promise<number>((resolve) => {
    resolvers[i] = resolve;
  });
}

// The leanest native form: the executor captures nothing of the call (no closure context per
// task), the resolver goes to the next slot of a shared list. Memory is also compared with it.
let leanResolvers: Array<(v: number) => void> = [];
let leanNext = 0;
async function awaitOwnPromiseLean(): Promise<number> {
  return await new Promise<number>((resolve) => {
    leanResolvers[leanNext++] = resolve;
  });
}

// Both sides are driven from outside the way a user would: set up n waiters and let each
// suspend, then time "resolve every future, then wait for all of them" (asyncio's gather
// on our side, Promise.all on Node's).
async function ourResume(n: number): Promise<number> {
  const loop = new EventLoop();
  const futures: Future<number>[] = new Array<Future<number>>(n);
  const tasks: Task<number>[] = [];
  for (let i = 0; i < n; i++) tasks.push(loop.createTask(awaitOwnFuture(futures, i)));
  await loop.runOnce(); // every task takes its first step and suspends on its future
  // Both sides start the measured part with the set-up's objects out of the young
  // generation, so what is timed is the resumes, not the copying of 100k fresh tasks.
  collect();
  const t0 = nowNs();
  for (let i = 0; i < n; i++) futures[i]!.setResult(i);
  const results = await loop.runUntilComplete(gather(...tasks));
  const elapsed = nowNs() - t0;
  if (results.length !== n || results[n - 1] !== n - 1) throw new Error('resume benchmark: wrong results');
  loop.close();
  return elapsed / n;
}

async function nativeResume(n: number): Promise<number> {
  const resolvers: Array<(v: number) => void> = new Array<(v: number) => void>(n);
  const promises: Promise<number>[] = [];
  for (let i = 0; i < n; i++) promises.push(awaitOwnPromise(resolvers, i));
  await new Promise<void>((r) => setImmediate(r));
  collect();
  const t0 = nowNs();
  for (let i = 0; i < n; i++) resolvers[i]!(i);
  const results = await Promise.all(promises);
  const elapsed = nowNs() - t0;
  if (results.length !== n || results[n - 1] !== n - 1) throw new Error('resume benchmark: wrong results');
  return elapsed / n;
}

// The same, written as a program would: inside run() (a new loop each round) with `yield*
// gather(...)` from the main coroutine; Node's side (nativeResume) is already an async
// function awaiting Promise.all.
const resumeInside = coroutine(function* resumeInside(n: number): Coroutine<number> {
  const loop = getRunningLoop();
  const futures: Future<number>[] = new Array<Future<number>>(n);
  const tasks: Task<number>[] = [];
  for (let i = 0; i < n; i++) tasks.push(loop.createTask(awaitOwnFuture(futures, i)));
  yield* sleep(0); // every task takes its first step and suspends on its future
  collect();
  const t0 = nowNs();
  for (let i = 0; i < n; i++) futures[i]!.setResult(i);
  const results = yield* gather(...tasks);
  const elapsed = nowNs() - t0;
  if (results.length !== n || results[n - 1] !== n - 1) throw new Error('resume benchmark: wrong results');
  return elapsed / n;
});

// --- the users' shape: a future its parent made, a chain of coroutines -------------------

/** A child task awaiting the future its parent made and will complete. */
const awaitParentFuture = coroutine(function* awaitParentFuture(fut: Future<number>): Coroutine<number> {
  return yield* fut;
});

// A chain of 3 coroutines: the task runs outer, which `yield*`s middle, which `yield*`s inner.
const chainInner = coroutine(function* chainInner(fut: Future<number>): Coroutine<number> {
  return yield* fut;
});
const chainMiddle = coroutine(function* chainMiddle(fut: Future<number>): Coroutine<number> {
  return yield* chainInner(fut);
});
const chainOuter = coroutine(function* chainOuter(fut: Future<number>): Coroutine<number> {
  return yield* chainMiddle(fut);
});

/** Native's: an async function awaiting the promise its caller made. */
async function awaitCallerPromise(p: Promise<number>): Promise<number> {
  return await p;
}
async function nativeInner(p: Promise<number>): Promise<number> {
  return await p;
}
async function nativeMiddle(p: Promise<number>): Promise<number> {
  return await nativeInner(p);
}
async function nativeOuter(p: Promise<number>): Promise<number> {
  return await nativeMiddle(p);
}

type Depth = 1 | 3;

/**
 * The parent, a task inside run(): makes n futures, a child task for each, lets them suspend.
 * `measure` 'resume': times "set every result, then gather the children" (ns per child);
 * 'heap': the heap bytes per suspended child (its future, task and generators).
 */
const parentOfChildren = coroutine(function* parentOfChildren(
  n: number,
  depth: Depth,
  measure: 'resume' | 'heap',
): Coroutine<number> {
  const loop = getRunningLoop();
  const futures: Future<number>[] = new Array<Future<number>>(n);
  const children: Task<number>[] = new Array<Task<number>>(n);
  collect();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) {
    const fut = loop.createFuture<number>();
    futures[i] = fut;
    children[i] = loop.createTask(depth === 1 ? awaitParentFuture(fut) : chainOuter(fut));
  }
  yield* sleep(0); // every child takes its first step and suspends on its future
  collect();
  const bytes = (process.memoryUsage().heapUsed - before) / n;
  const t0 = nowNs();
  for (let i = 0; i < n; i++) futures[i]!.setResult(i);
  const results = yield* gather(...children);
  const elapsed = nowNs() - t0;
  if (results.length !== n || results[n - 1] !== n - 1) throw new Error('parent benchmark: wrong results');
  return measure === 'resume' ? elapsed / n : bytes;
});

/** Native's parent: an async function making n promises, calling a child with each. */
async function nativeParentOfChildren(n: number, depth: Depth, measure: 'resume' | 'heap'): Promise<number> {
  const resolvers: Array<(v: number) => void> = new Array<(v: number) => void>(n);
  const children: Promise<number>[] = new Array<Promise<number>>(n);
  collect();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) {
    const p = new Promise<number>((resolve) => {
      resolvers[i] = resolve;
    });
    children[i] = depth === 1 ? awaitCallerPromise(p) : nativeOuter(p);
  }
  await new Promise<void>((r) => setImmediate(r));
  collect();
  const bytes = (process.memoryUsage().heapUsed - before) / n;
  const t0 = nowNs();
  for (let i = 0; i < n; i++) resolvers[i]!(i);
  const results = await Promise.all(children);
  const elapsed = nowNs() - t0;
  if (results.length !== n || results[n - 1] !== n - 1) throw new Error('parent benchmark: wrong results');
  return measure === 'resume' ? elapsed / n : bytes;
}

/** The medians of paired rounds: each side's, and of the rounds' ratios (ours / native). */
interface Paired {
  ours: number;
  native: number;
  ratio: number;
}

async function paired(rounds: number, ours: () => Promise<number>, native: () => Promise<number>): Promise<Paired> {
  const o: number[] = [];
  const x: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const a = await ours();
    collect();
    const b = await native();
    collect();
    o.push(a);
    x.push(b);
    ratios.push(a / b);
  }
  return { ours: median(o), native: median(x), ratio: median(ratios) };
}

// --- 3. memory of suspended tasks ---------------------------------------------------------

async function ourHeapPerTask(n: number): Promise<{ bytes: number; loop: EventLoop; futures: Future<number>[] }> {
  const loop = new EventLoop();
  const futures: Future<number>[] = new Array<Future<number>>(n);
  collect();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) loop.createTask(awaitOwnFuture(futures, i));
  // Run the first steps so every task is suspended on its future.
  while (loop.readyCount() > 0) await loop.runOnce();
  collect();
  const after = process.memoryUsage().heapUsed;
  return { bytes: (after - before) / n, loop, futures };
}

async function nativeHeapPerTask(n: number, lean: boolean): Promise<{ bytes: number; keep: unknown[] }> {
  const resolvers: Array<(v: number) => void> = new Array<(v: number) => void>(n);
  const keep: unknown[] = new Array<unknown>(n);
  leanResolvers = new Array<(v: number) => void>(n);
  leanNext = 0;
  collect();
  const before = process.memoryUsage().heapUsed;
  if (lean) for (let i = 0; i < n; i++) keep[i] = awaitOwnPromiseLean();
  else for (let i = 0; i < n; i++) keep[i] = awaitOwnPromise(resolvers, i);
  await new Promise<void>((r) => setImmediate(r));
  collect();
  const after = process.memoryUsage().heapUsed;
  keep.push(resolvers, leanResolvers);
  return { bytes: (after - before) / n, keep };
}

async function finish(loop: EventLoop, futures: Future<number>[]): Promise<void> {
  for (let i = 0; i < futures.length; i++) futures[i]!.setResult(i);
  while (loop.readyCount() > 0) await loop.runOnce();
  loop.close();
}

function median(xs: number[]): number {
  const sorted = xs.slice().sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function ratio(a: number, b: number): string {
  return (a / b).toFixed(2);
}

async function main(): Promise<void> {
  const switches = quick ? 200_000 : 2_000_000;
  const resumeN = 100_000;
  const rounds = quick ? 1 : 5;
  const pairedRounds = quick ? 3 : 7;
  const results: Record<string, number> = {};

  // Warm both sides up, then keep the best of a few rounds (least disturbed by the machine).
  await ourSwitch(50_000);
  await nativeSwitch(20_000);
  let ours = Infinity;
  let gap = 0;
  let p99 = 0;
  let native = Infinity;
  for (let r = 0; r < rounds; r++) {
    const o = await ourSwitch(switches);
    if (o.nsPerSwitch < ours) ours = o.nsPerSwitch;
    gap = Math.max(gap, o.maxPollGapMs);
    p99 = Math.max(p99, o.p99PollGapMs);
    native = Math.min(native, await nativeSwitch(Math.floor(switches / 4)));
  }
  results.sleep0_ns = ours;
  results.sleep0_native_ns = native;
  results.sleep0_ratio = ours / native;
  results.max_io_poll_gap_ms = gap;
  results.p99_io_poll_gap_ms = p99;

  for (let w = 0; w < 3; w++) {
    await ourResume(10_000);
    await nativeResume(10_000);
    await run(parentOfChildren(10_000, 3, 'resume'));
    await nativeParentOfChildren(10_000, 3, 'resume');
  }
  const record = (key: string, p: Paired): void => {
    results[`${key}`] = p.ours;
    results[`${key}_native`] = p.native;
    results[`${key}_ratio`] = p.ratio;
  };
  // The machine's load drifts: each round times both sides back to back.
  record(
    'resume_ns',
    await paired(
      pairedRounds,
      () => ourResume(resumeN),
      () => nativeResume(resumeN),
    ),
  );
  record(
    'resume_inside_ns',
    await paired(
      pairedRounds,
      () => run(resumeInside(resumeN)),
      () => nativeResume(resumeN),
    ),
  );
  for (const depth of [1, 3] as const) {
    record(
      `parent_resume_d${depth}_ns`,
      await paired(
        pairedRounds,
        () => run(parentOfChildren(resumeN, depth, 'resume')),
        () => nativeParentOfChildren(resumeN, depth, 'resume'),
      ),
    );
    record(
      `parent_heap_d${depth}_bytes`,
      await paired(
        pairedRounds,
        () => run(parentOfChildren(resumeN, depth, 'heap')),
        () => nativeParentOfChildren(resumeN, depth, 'heap'),
      ),
    );
  }

  // Paired rounds: heap is steadier than time, but what else the process holds drifts.
  const heapRatios: number[] = [];
  const leanRatios: number[] = [];
  const ourHeap: number[] = [];
  const nativeHeap: number[] = [];
  const leanHeap: number[] = [];
  for (let r = 0; r < Math.max(rounds, 3); r++) {
    const mem = await ourHeapPerTask(resumeN);
    await finish(mem.loop, mem.futures);
    collect();
    const nmem = await nativeHeapPerTask(resumeN, false);
    nmem.keep.length = 0;
    collect();
    const lean = await nativeHeapPerTask(resumeN, true);
    lean.keep.length = 0;
    leanResolvers = [];
    collect();
    ourHeap.push(mem.bytes);
    nativeHeap.push(nmem.bytes);
    leanHeap.push(lean.bytes);
    heapRatios.push(mem.bytes / nmem.bytes);
    leanRatios.push(mem.bytes / lean.bytes);
  }
  results.heap_bytes_per_task = median(ourHeap);
  results.heap_bytes_per_native = median(nativeHeap);
  results.heap_ratio = median(heapRatios);
  results.heap_bytes_per_native_lean = median(leanHeap);
  results.heap_ratio_lean = median(leanRatios);

  const million = quick ? 200_000 : 1_000_000;
  const big = await ourHeapPerTask(million);
  results.million_tasks = million;
  results.million_tasks_heap_mib = (big.bytes * million) / (1 << 20);
  await finish(big.loop, big.futures);

  if (asJson) {
    console.log(JSON.stringify(results));
    return;
  }
  const ns = (v: number): string => `${v.toFixed(0)} ns`;
  const bytes = (v: number): string => `${v.toFixed(0)} B`;
  const pairedRow = (label: string, key: string, unit: (v: number) => string, target: string): string[] => [
    label,
    unit(results[key]!),
    unit(results[`${key}_native`]!),
    results[`${key}_ratio`]!.toFixed(2),
    target,
  ];
  const rows: string[][] = [
    ['the lighter shape: a task awaiting a future it made'],
    [
      'sleep(0) switch (best)',
      ns(results.sleep0_ns!),
      ns(results.sleep0_native_ns!),
      ratio(results.sleep0_ns!, results.sleep0_native_ns!),
      '<= 0.50',
    ],
    pairedRow('resume 100k resolved', 'resume_ns', ns, '<= 1.00'),
    pairedRow('  same, inside run()', 'resume_inside_ns', ns, '<= 1.00'),
    [
      'heap per suspended task',
      bytes(results.heap_bytes_per_task!),
      bytes(results.heap_bytes_per_native!),
      results.heap_ratio!.toFixed(2),
      '<= 1.00',
    ],
    [
      '  vs the leanest native',
      bytes(results.heap_bytes_per_task!),
      bytes(results.heap_bytes_per_native_lean!),
      results.heap_ratio_lean!.toFixed(2),
      '<= 1.00',
    ],
    ["the users' shape: a child task awaiting a future its parent made"],
    pairedRow('resume 100k children', 'parent_resume_d1_ns', ns, '<= 1.00'),
    pairedRow('heap per suspended child', 'parent_heap_d1_bytes', bytes, '<= 1.00'),
    pairedRow('  chain of 3: resume', 'parent_resume_d3_ns', ns, '<= 1.00'),
    pairedRow('  chain of 3: heap', 'parent_heap_d3_bytes', bytes, '<= 1.00'),
  ];
  console.log(
    'Coroscope runtime vs native async/await (same run; medians of %d paired rounds, sleep(0): best of %d)%s',
    pairedRounds,
    rounds,
    tracking ? '; coroutine tracking on' : '',
  );
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(i === 0 ? 28 : 12))
      .join('')
      .trimEnd();
  console.log(line(['measure', 'coroscope', 'native', 'ratio', 'target']));
  for (const row of rows) console.log(row.length === 1 ? `-- ${row[0]}` : line(row));
  console.log(
    `gap between Node I/O polls while switching: p99 ${results.p99_io_poll_gap_ms!.toFixed(1)} ms, longest ${results.max_io_poll_gap_ms!.toFixed(1)} ms (slice 2 ms)`,
  );
  console.log(
    `${million.toLocaleString('en')} suspended tasks alive at once: ${results.million_tasks_heap_mib!.toFixed(0)} MiB of heap`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
