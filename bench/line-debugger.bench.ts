// The line debugger's figures (issue 14), on the bundled runtime host (dist/runtime-host.js)
// started as the extension starts it, with a client pipe (its worker thread debugs the main
// thread):
// 1. launch to the first line-breakpoint stop: fork, hello, launch the demo crawl held at
//    entry, a breakpoint on an ordinary line of the crawler's fetch, continue, `paused`
//    (target ≤ 1 s; median of rounds);
// 2. a line step to its `paused` event: 100 `lineStep over` in a row from that stop
//    (target median ≤ 200 ms);
// The demo site answers at once (latency 'instant'): the figures are the debugger's, not the
// network's the demo site plays by default (100-800 ms a response would cap both rates alike).
// 4. Step Back at a line stop (the line replay, runtime/host/worker/line-replay-host.ts) on a recorded
//    demo crawl stopped at its 100th fetch, two lines into fetch: the stop's first Step Back
//    (the recording written and opened in the run's replay host, forked at the run's first
//    stop on a line, the walk to the live stop and the walk back), the next one (one walk), a
//    step forward from the past line (the same walk goes on), each to its `paused`, beside a
//    live line step of the same round; the first Step Back is timed twice: pressed at once
//    (the replay host may still be starting) and pressed after 1 s at the stop (a user reading
//    it: the replay host is loaded) (target: a Step Back ≤ 1 s; medians of rounds);
// 5. Reverse Continue to a breakpoint set after a recorded demo crawl ended (pastBreakpointHit,
//    runtime/host/replay-host/past-hit-search.ts), the crawl (the default demo crawl: short, it can end
//    before its replay host is ready) debugged as a debug session does (its breaks set once
//    launched: the run's replay host follows it, and is its hit replay host once it has
//    finished): the breakpoint's setting at the end, from the run's end (the first, pressed at
//    once; the next, from that hit), the first Step Back from that hit (a past line), and from a
//    mid-run past tick, beside a seek to that tick in the same round; Step Back at the end on a
//    worker's thread (its previous suspension); each beside a live line step of the same round,
//    idle and with one busy loop beside (target ≤ 1 s; medians of rounds);
// 6. the first Step Back at a deep line stop, pressed at once: a recorded 2,000-page demo crawl
//    debugged (its breaks set once launched), stopped on fetch's line at its 1,450th fetch
//    (about tick 1,250), Step Back asked as soon as the stop's `paused` arrives, to its
//    `paused`; beside a live line step of the same round; idle and with one busy loop beside
//    (target ≤ 1 s; medians of rounds);
// 3. crawl rate with the line debugger attached (pipe, a breakpoint set on a line the crawl
//    never runs) against the same host over its IPC channel without it, rounds alternated,
//    the ratio of medians (target ≥ 0.9).
// 7. the follower's cost: a recorded demo crawl (the site's realistic latency, 100 tasks: a
//    long crawl) with the line debugger attached, debugged (a
//    breakpoint set on a line the crawl never runs: its line replay host follows it, given the
//    recording's growth now and then) against the same crawl not debugged (no follower),
//    rounds alternated: the crawl rates and their ratio, and the host's main-thread CPU time
//    over the crawl (from /proc), the difference of medians being what the feeds cost it.
// 8. Reverse Continue to a breakpoint on a line with `yield` (the loop's own, a suspension
//    breakpoint: fetch's GET) set after a recorded `pages`-page instant demo crawl (5 workers)
//    ended, from its end, pressed at once (the crawl debugged as a debug session does), beside
//    Reverse Continue to fetch's ordinary line after the page is parsed (a line breakpoint, the
//    peer) from the end of a crawl of its own in the same round (medians of rounds; the ratio).
// Usage: npm run bench:line [-- pages rounds figures], figures a comma list of
// start,steps,back,rc,deep,rate,follow,rcyield (default: all but follow and rcyield); e.g. npm run bench:line --
// 1000 5 deep,rc; npm run bench:line -- 2000 5 follow; npm run bench:line -- 2000 5 rcyield.
// COROSCOPE_HOST_BUNDLE: another host
// bundle to run (a build of another commit, for a before/after).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forkHost, median, processCpuMs, ROOT, type HostClient } from '../test/runtime/host/host-client';
import { PROTOCOL_VERSION } from '../protocol/host-protocol';
import { previousSuspension } from '../extension/debug/time-travel';

const BUNDLE = process.env.COROSCOPE_HOST_BUNDLE ?? join(ROOT, 'dist', 'runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const pages = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 3);
const figures = new Set((process.argv[4] ?? 'start,steps,back,rc,deep,rate').split(','));

/** Runs `measure` with one busy loop beside it (a process spinning on a core), ended after. */
async function besideBusyLoop<T>(measure: () => Promise<T>): Promise<T> {
  const busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  try {
    return await measure();
  } finally {
    busy.kill();
  }
}

function lineOf(needle: string): number {
  const i = readFileSync(CRAWLER, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`crawler.ts has no line with ${needle}`);
  return i + 1;
}

async function hello(h: HostClient): Promise<void> {
  await h.rpc.request('hello', { client: 'bench', protocolVersion: PROTOCOL_VERSION });
}

/** Fork to the first stop on fetch's first ordinary line; then `steps` line steps. */
async function firstStopAndSteps(steps: number): Promise<{ firstStopMs: number; stepMs: number[] }> {
  const t0 = performance.now();
  const h = forkHost({ bundle: BUNDLE, pipe: true });
  try {
    await hello(h);
    await h.rpc.request('launch', {
      target: { kind: 'demo', pages: 200, latency: 'instant' },
      options: { maxTasks: 5, stopOnEntry: true },
    });
    const line = lineOf('let response: ClientResponse | null = null;');
    await h.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line }] });
    await h.rpc.request('continue', {});
    await h.waitFor('paused', (b) => b.line !== undefined, 10_000);
    const firstStopMs = performance.now() - t0;
    await h.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    const stepMs: number[] = [];
    for (let i = 0; i < steps; i++) {
      const from = h.events.length;
      const s0 = performance.now();
      await h.rpc.request('lineStep', { kind: 'over' });
      await h.waitFor('paused', (b) => b.line !== undefined, 10_000, from);
      stepMs.push(performance.now() - s0);
    }
    return { firstStopMs, stepMs };
  } finally {
    await h.close();
  }
}

/** Milliseconds from a request to the `paused` it brings. */
async function toPaused(h: HostClient, ask: () => Promise<unknown>): Promise<number> {
  const from = h.events.length;
  const t0 = performance.now();
  await ask();
  await h.waitFor('paused', (b) => b.line !== undefined, 30_000, from);
  return performance.now() - t0;
}

/** One round of figure 4: a recorded crawl stopped on a line; its Step Backs timed. */
async function stepBackRound(
  lookMs: number,
): Promise<{ first: number; next: number; forward: number; liveStep: number }> {
  const h = forkHost({ bundle: BUNDLE, pipe: true });
  try {
    await hello(h);
    await h.rpc.request('launch', {
      target: { kind: 'demo', pages: 200, latency: 'instant' },
      options: { maxTasks: 5, stopOnEntry: true, record: true },
    });
    const line = lineOf('let response: ClientResponse | null = null;');
    await h.rpc.request('setBreakpoints', {
      file: CRAWLER,
      breakpoints: [{ file: CRAWLER, line, hitCondition: '==100' }],
    });
    await toPaused(h, () => h.rpc.request('continue', {}));
    await toPaused(h, () => h.rpc.request('lineStep', { kind: 'over' }));
    const liveStep = await toPaused(h, () => h.rpc.request('lineStep', { kind: 'over' }));
    await new Promise((resolve) => setTimeout(resolve, lookMs));
    const back = async (): Promise<number> => {
      const from = h.events.length;
      const t0 = performance.now();
      const r = await h.rpc.request('lineStepBack', {});
      if (r.landed !== 'line') throw new Error(`Step Back landed on ${r.landed}, not a line`);
      await h.waitFor('paused', (b) => b.line !== undefined, 30_000, from);
      return performance.now() - t0;
    };
    const first = await back();
    const next = await back();
    const forward = await toPaused(h, () => h.rpc.request('lineStep', { kind: 'over' }));
    return { first, next, forward, liveStep };
  } finally {
    await h.close();
  }
}

/**
 * A live line step's time, the peer of the figures of the past: a demo crawl stopped on fetch's line, then
 * `steps` line steps; their median.
 */
async function liveLineStep(steps = 3): Promise<number> {
  return median((await firstStopAndSteps(steps)).stepMs);
}

/**
 * One round of figure 5: the demo crawl of `coroscope crawl --demo` (its default pages, a
 * short crawl: it may end before the run's replay host, forked when the debugger set its breaks
 * at the launch, is ready), recorded, finished; a breakpoint set then on fetch's line after a
 * page is parsed (timed: the live host's line debugger reads its source map for it); Reverse
 * Continue (pastBreakpointHit) timed from the run's end (the first: whatever the replay host
 * still had to do; the next: from that hit), the first Step Back from that hit (lineStepBack:
 * its line before, replayed: the first past line), and from a mid-run past tick, beside a plain
 * seek to that tick (a peer) in the same round; Step Back at the end on a worker's thread (its
 * previous suspension, replayed: a seek of the live host, as the debugger asks it); and a live
 * line step of another host in the same round (the peer the ratios are to).
 */
async function reverseContinueRound(): Promise<{
  setBreakpoint: number;
  first: number;
  backFromHit: number;
  next: number;
  fromMid: number;
  seek: number;
  backAtEnd: number;
  liveStep: number;
  pages: number;
}> {
  const liveStep = await liveLineStep();
  const h = forkHost({ bundle: BUNDLE, pipe: true });
  try {
    await hello(h);
    await h.rpc.request('launch', { target: { kind: 'demo', latency: 'instant' }, options: { record: true } });
    // As a debug session does once it has launched the run.
    await h.rpc.request('setExceptionBreaks', { taskFailed: true, taskCancelled: false });
    const done = await h.waitFor('finished', () => true, 120_000);
    const crawled = Number(/crawled (\d+) urls/.exec(done.summary)?.[1] ?? 0);
    const timeline = await h.rpc.request('timeline', {});
    const ticks = timeline.ticks;
    const b0 = performance.now();
    await h.rpc.request('setBreakpoints', {
      file: CRAWLER,
      breakpoints: [{ file: CRAWLER, line: lineOf('const { stat, links } = parsed;') }],
    });
    const setBreakpoint = performance.now() - b0;
    const hit = async (tick: number): Promise<number> => {
      const t0 = performance.now();
      const r = await h.rpc.request('pastBreakpointHit', { direction: 'back', tick });
      if (r.landed !== 'line') throw new Error(`Reverse Continue from tick ${tick} found no hit`);
      await h.rpc.request('lineStack', {});
      return performance.now() - t0;
    };
    const first = await hit(ticks);
    const k0 = performance.now();
    const back = await h.rpc.request('lineStepBack', {});
    if (back.landed !== 'line') throw new Error(`Step Back from the hit landed on ${back.landed}, not a line`);
    await h.rpc.request('lineStack', {});
    const backFromHit = performance.now() - k0;
    const next = await hit(ticks);
    const mid = Math.floor(ticks / 2);
    const s0 = performance.now();
    await h.rpc.request('seekTick', { tick: mid });
    const seek = performance.now() - s0;
    const fromMid = await hit(mid);
    // Step Back at the end on worker-1's thread: to its previous suspension, replayed (its frames with
    // positions and locals).
    const worker = timeline.lanes.find((l) => l.name === 'worker-1');
    const before = worker === undefined ? null : previousSuspension(worker, ticks);
    if (before === null) throw new Error('worker-1 has no suspension before the end');
    await h.rpc.request('seekTick', { tick: null });
    const e0 = performance.now();
    await h.rpc.request('seekTick', { tick: before, replayed: true });
    await h.rpc.request('taskDetail', { taskId: worker!.taskId, locals: true });
    const backAtEnd = performance.now() - e0;
    return { setBreakpoint, first, backFromHit, next, fromMid, seek, backAtEnd, liveStep, pages: crawled };
  } finally {
    await h.close();
  }
}

/**
 * One round of figure 6: a recorded 2,000-page demo crawl, debugged, stopped on fetch's line at
 * its 1,450th fetch; the stop's first Step Back asked at once, to its `paused`; then a live line
 * step (the peer) from the live stop.
 */
async function deepStepBackRound(): Promise<{ first: number; liveStep: number; tick: number }> {
  const h = forkHost({ bundle: BUNDLE, pipe: true });
  try {
    await hello(h);
    await h.rpc.request('launch', {
      target: { kind: 'demo', pages: 2000, latency: 'instant' },
      options: { maxTasks: 5, stopOnEntry: true, record: true },
    });
    await h.rpc.request('setExceptionBreaks', { taskFailed: true, taskCancelled: false });
    const line = lineOf('let response: ClientResponse | null = null;');
    await h.rpc.request('setBreakpoints', {
      file: CRAWLER,
      breakpoints: [{ file: CRAWLER, line, hitCondition: '==1450' }],
    });
    const from = h.events.length;
    await h.rpc.request('continue', {});
    const stop = await h.waitFor('paused', (b) => b.line !== undefined, 120_000, from);
    const t0 = performance.now();
    const r = await h.rpc.request('lineStepBack', {});
    if (r.landed !== 'line') throw new Error(`Step Back landed on ${r.landed}, not a line`);
    await h.waitFor('paused', (b) => b.line !== undefined && b.pastLine === true, 30_000, from);
    const first = performance.now() - t0;
    // Forward to the live stop again, then the peer: a live line step.
    for (let i = 0; i < 20; i++) {
      const at = h.events.length;
      await h.rpc.request('lineStep', { kind: 'over' });
      if ((await h.waitFor('paused', (b) => b.line !== undefined, 30_000, at)).pastLine !== true) break;
    }
    await h.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    const liveStep = await toPaused(h, () => h.rpc.request('lineStep', { kind: 'over' }));
    return { first, liveStep, tick: stop.tick };
  } finally {
    await h.close();
  }
}

/**
 * Half a round of figure 8: a recorded `pages`-page instant demo crawl (5 workers), debugged,
 * finished; then, pressed at once, Reverse Continue from its end to a breakpoint on `line`.
 */
async function reverseContinueFromEnd(
  line: number,
  landed: 'tick' | 'line',
): Promise<{ ms: number; ticks: number; hitTick: number }> {
  const h = forkHost({ bundle: BUNDLE, pipe: true });
  try {
    await hello(h);
    await h.rpc.request('launch', {
      target: { kind: 'demo', pages, latency: 'instant' },
      options: { maxTasks: 5, record: true },
    });
    await h.rpc.request('setExceptionBreaks', { taskFailed: true, taskCancelled: false });
    await h.waitFor('finished', () => true, 300_000);
    const ticks = (await h.rpc.request('timeline', {})).ticks;
    await h.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line }] });
    const t0 = performance.now();
    const r = await h.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks });
    if (r.landed !== landed) throw new Error(`Reverse Continue to line ${line} landed ${r.landed}, not ${landed}`);
    return { ms: performance.now() - t0, ticks, hitTick: r.tick };
  } finally {
    await h.close();
  }
}

/**
 * One round of figure 8: to a breakpoint on fetch's GET (a line with yield), and to one on its line after the
 * page is parsed (the peer), each in a crawl of its own.
 */
async function yieldReverseContinueRound(): Promise<{
  yieldMs: number;
  lineMs: number;
  ticks: number;
  hitTick: number;
}> {
  const y = await reverseContinueFromEnd(lineOf('response = yield* this.session.get(url, NO_REDIRECTS);'), 'tick');
  const l = await reverseContinueFromEnd(lineOf('const { stat, links } = parsed;'), 'line');
  return { yieldMs: y.ms, lineMs: l.ms, ticks: y.ticks, hitTick: y.hitTick };
}

/** Pages per second of a demo crawl; `attached`: over the pipe with a breakpoint that never hits. */
async function crawlRate(attached: boolean): Promise<number> {
  const h = forkHost(attached ? { bundle: BUNDLE, pipe: true } : { bundle: BUNDLE });
  try {
    await hello(h);
    await h.rpc.request('launch', {
      target: { kind: 'demo', pages, latency: 'instant' },
      options: { maxTasks: 50, stopOnEntry: true },
    });
    if (attached) {
      const never = lineOf("this.excluded.set(nextUrl, 'redirectLimit');");
      const set = await h.rpc.request('setBreakpoints', {
        file: CRAWLER,
        breakpoints: [{ file: CRAWLER, line: never }],
      });
      if (set.breakpoints[0]?.verified !== true) throw new Error('the never-hit breakpoint was not set');
    }
    const from = h.events.length;
    const t0 = performance.now();
    await h.rpc.request('continue', {});
    await h.waitFor('finished', () => true, 300_000, from);
    const seconds = (performance.now() - t0) / 1000;
    const last = h.eventsOf('progress').at(-1);
    if (h.eventsOf('paused').some((p) => p.line !== undefined)) throw new Error('a line breakpoint was hit');
    return (last?.done ?? pages) / seconds;
  } finally {
    await h.close();
  }
}

async function main(): Promise<void> {
  if (figures.has('start') || figures.has('steps')) await startAndSteps();
  if (figures.has('back')) await stepBacks();
  if (figures.has('rc')) await reverseContinues();
  if (figures.has('deep')) await deepStepBacks();
  if (figures.has('rate')) await rates();
  if (figures.has('follow')) await follows();
  if (figures.has('rcyield')) await yieldReverseContinues();
}

async function yieldReverseContinues(): Promise<void> {
  const rs: Array<Awaited<ReturnType<typeof yieldReverseContinueRound>>> = [];
  for (let r = 0; r < rounds; r++) rs.push(await yieldReverseContinueRound());
  const y = median(rs.map((x) => x.yieldMs));
  const l = median(rs.map((x) => x.lineMs));
  console.log(
    `Reverse Continue from the end of a recorded ${pages}-page instant demo crawl (ticks ${rs.map((x) => x.ticks).join(', ')}; hit at ${rs.map((x) => x.hitTick).join(', ')}): to a breakpoint on a yield line (fetch's GET) ${y.toFixed(0)} ms (${rs.map((x) => x.yieldMs.toFixed(0)).join(', ')}), to a line breakpoint (after the page is parsed) ${l.toFixed(0)} ms (${rs.map((x) => x.lineMs.toFixed(0)).join(', ')}) (medians of ${rounds}; ratio yield/line ${(y / l).toFixed(2)})`,
  );
}

async function startAndSteps(): Promise<void> {
  const firsts: number[] = [];
  let steps: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const m = await firstStopAndSteps(r === 0 ? 100 : 0);
    firsts.push(m.firstStopMs);
    if (r === 0) steps = m.stepMs;
  }
  console.log(
    `launch to the first line-breakpoint stop: median ${median(firsts).toFixed(0)} ms of ${rounds} (${firsts.map((x) => x.toFixed(0)).join(', ')}) (target ≤ 1000)`,
  );
  const sorted = [...steps].sort((a, b) => a - b);
  console.log(
    `line step to its paused event: median ${median(steps).toFixed(1)} ms of ${steps.length}, p90 ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (target median ≤ 200)`,
  );
}

async function stepBacks(): Promise<void> {
  const backs: Array<Awaited<ReturnType<typeof stepBackRound>>> = [];
  const looked: Array<Awaited<ReturnType<typeof stepBackRound>>> = [];
  for (let r = 0; r < rounds; r++) {
    backs.push(await stepBackRound(0));
    looked.push(await stepBackRound(1000));
  }
  const m = (pick: (x: (typeof backs)[number]) => number, of = backs): number => median(of.map(pick));
  console.log(
    `Step Back at a line (recorded demo crawl, 100th fetch): first of the stop ${m((x) => x.first).toFixed(0)} ms pressed at once, ${m((x) => x.first, looked).toFixed(0)} ms after 1 s at the stop; next ${m((x) => x.next).toFixed(0)} ms, a step forward from the past line ${m((x) => x.forward).toFixed(0)} ms, beside a live line step ${m((x) => x.liveStep).toFixed(0)} ms (medians of ${rounds}; ratios first/next ${(m((x) => x.first) / m((x) => x.next)).toFixed(1)} at once, ${(m((x) => x.first, looked) / m((x) => x.next, looked)).toFixed(1)} after 1 s) (target ≤ 1000)`,
  );
}

async function reverseContinues(): Promise<void> {
  for (const busy of [false, true]) {
    const reverse: Array<Awaited<ReturnType<typeof reverseContinueRound>>> = [];
    for (let r = 0; r < rounds; r++)
      reverse.push(busy ? await besideBusyLoop(reverseContinueRound) : await reverseContinueRound());
    const rc = (pick: (x: (typeof reverse)[number]) => number): number => median(reverse.map(pick));
    const live = rc((x) => x.liveStep);
    console.log(
      `Reverse Continue to a breakpoint set after a ${reverse[0]!.pages}-page demo crawl ended${busy ? ', one busy loop beside' : ', idle'} (medians of ${rounds}; a live line step of the same rounds ${live.toFixed(0)} ms):\n` +
        `  the breakpoint set at the end ${rc((x) => x.setBreakpoint).toFixed(0)} ms; from the end, first ${rc((x) => x.first).toFixed(0)} ms pressed at once (${reverse.map((x) => x.first.toFixed(0)).join(', ')}), ratio to the live step ${(rc((x) => x.first) / live).toFixed(1)} (target ≤ 1000)\n` +
        `  the first Step Back from that hit (its line before) ${rc((x) => x.backFromHit).toFixed(0)} ms (${reverse.map((x) => x.backFromHit.toFixed(0)).join(', ')}), ratio ${(rc((x) => x.backFromHit) / live).toFixed(1)}; Step Back at the end on worker-1's thread (its previous suspension, replayed) ${rc((x) => x.backAtEnd).toFixed(0)} ms, ratio ${(rc((x) => x.backAtEnd) / live).toFixed(1)}\n` +
        `  the next from the end ${rc((x) => x.next).toFixed(0)} ms; from a mid-run tick ${rc((x) => x.fromMid).toFixed(0)} ms, beside a seek to that tick ${rc((x) => x.seek).toFixed(0)} ms (ratios first/seek ${(rc((x) => x.first) / rc((x) => x.seek)).toFixed(1)}, from-mid/seek ${(rc((x) => x.fromMid) / rc((x) => x.seek)).toFixed(1)})`,
    );
  }
}

async function deepStepBacks(): Promise<void> {
  for (const busy of [false, true]) {
    const deep: Array<Awaited<ReturnType<typeof deepStepBackRound>>> = [];
    for (let r = 0; r < rounds; r++)
      deep.push(busy ? await besideBusyLoop(deepStepBackRound) : await deepStepBackRound());
    const first = median(deep.map((x) => x.first));
    const live = median(deep.map((x) => x.liveStep));
    console.log(
      `Step Back at a deep line stop (recorded 2000-page demo crawl, 1450th fetch, ticks ${deep.map((x) => x.tick).join(', ')})${busy ? ', one busy loop beside' : ', idle'}: first of the stop pressed at once ${first.toFixed(0)} ms (${deep.map((x) => x.first.toFixed(0)).join(', ')}), beside a live line step ${live.toFixed(0)} ms (medians of ${rounds}; ratio ${(first / live).toFixed(1)}) (target ≤ 1000)`,
    );
  }
}

async function rates(): Promise<void> {
  const plain: number[] = [];
  const withDebugger: number[] = [];
  for (let r = 0; r < rounds; r++) {
    plain.push(await crawlRate(false));
    withDebugger.push(await crawlRate(true));
  }
  const ratio = median(withDebugger) / median(plain);
  console.log(
    `crawl of ${pages} demo pages: ${median(withDebugger).toFixed(0)} pages/s with the line debugger attached vs ${median(plain).toFixed(0)} without (medians of ${rounds}): ratio ${ratio.toFixed(2)} (target ≥ 0.90)`,
  );
}

/**
 * One round of figure 7: a recorded demo crawl, debugged (followed) or not; its rate and the host's
 * main-thread CPU time over it.
 */
async function followRound(followed: boolean): Promise<{ rate: number; mainCpuMs: number }> {
  const h = forkHost({ bundle: BUNDLE, pipe: true });
  try {
    await hello(h);
    // The demo site's network-like latency: a long crawl (about 10 s for 2,000 pages), as a user's is.
    await h.rpc.request('launch', {
      target: { kind: 'demo', pages, latency: 'realistic' },
      options: { maxTasks: 100, stopOnEntry: true, record: true },
    });
    if (followed) {
      const never = lineOf("this.excluded.set(nextUrl, 'redirectLimit');");
      const set = await h.rpc.request('setBreakpoints', {
        file: CRAWLER,
        breakpoints: [{ file: CRAWLER, line: never }],
      });
      if (set.breakpoints[0]?.verified !== true) throw new Error('the never-hit breakpoint was not set');
    }
    const pid = h.child.pid!;
    const from = h.events.length;
    const cpu0 = processCpuMs(pid, pid);
    const t0 = performance.now();
    await h.rpc.request('continue', {});
    await h.waitFor('finished', () => true, 600_000, from);
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = processCpuMs(pid, pid);
    if (cpu0 === null || cpu1 === null) throw new Error("no /proc: the main thread's CPU time cannot be read");
    const last = h.eventsOf('progress').at(-1);
    return { rate: (last?.done ?? pages) / seconds, mainCpuMs: cpu1 - cpu0 };
  } finally {
    await h.close();
  }
}

async function follows(): Promise<void> {
  const off: Array<{ rate: number; mainCpuMs: number }> = [];
  const on: Array<{ rate: number; mainCpuMs: number }> = [];
  for (let r = 0; r < rounds; r++) {
    off.push(await followRound(false));
    on.push(await followRound(true));
  }
  const rate = (xs: typeof on): number => median(xs.map((x) => x.rate));
  const cpu = (xs: typeof on): number => median(xs.map((x) => x.mainCpuMs));
  console.log(
    `recorded crawl of ${pages} demo pages (realistic latency), debugged (followed by its line replay host) vs not (medians of ${rounds}):`,
  );
  console.log(
    `  rate ${rate(on).toFixed(0)} vs ${rate(off).toFixed(0)} pages/s: ratio ${(rate(on) / rate(off)).toFixed(2)}`,
  );
  console.log(
    `  host main-thread CPU ${cpu(on).toFixed(0)} vs ${cpu(off).toFixed(0)} ms: the feeds ${(cpu(on) - cpu(off)).toFixed(0)} ms (ratio ${(cpu(on) / cpu(off)).toFixed(2)}) [on: ${on.map((x) => x.mainCpuMs.toFixed(0)).join(', ')}; off: ${off.map((x) => x.mainCpuMs.toFixed(0)).join(', ')}]`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
