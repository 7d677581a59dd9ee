// Step Back at a stop on a line (runtime/host/worker/line-replay-host.ts, past-line-walk.ts): the live
// host's main thread is held on a line of the crawler's fetch, mid-tick; lineStepBack shows the
// lines the task ran before, replayed in a replay host process of its own, with the locals they
// had then; lineStep goes forward through them to the live stop again; a seek to a past tick
// is served there too, and every view is told the moment shown (viewedTick, a line within the
// tick) and the present again. The run's replay host is forked at its first stop on a line (idle until
// asked), kept across its stops (its run grown: a stop past tick 200 replays too), and ended
// with the run. A run not recorded is refused, and gets no replay host. A feed of a followed
// run's recording asked just before its first line stop is withdrawn, never run.
// Runs against the bundle (the line debugger's worker and the replay host run the bundle).
import assert from 'node:assert/strict';
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HostEvents } from '../../../../protocol/host-protocol';
import { RemoteError } from '../../../../protocol/rpc';
import { forkHost, HostClient, ROOT } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const ROBOTS_WAIT = lineOf(CRAWLER, '(yield* this.robotsAllow(url))');
const BUSY_PROGRAM = join(ROOT, 'test', 'fixtures', 'busy-first-step.ts');
const STOP_LINE = lineOf(BUSY_PROGRAM, 'const stoppedHere = 1;');

/** The processes the host has started (the line replay host among them). */
function childrenOf(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['--ppid', String(pid), '-o', 'pid='], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when there are none.
  }
  return out
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}

/** The host's children once it has one (within `ms`). */
async function childrenWithin(host: HostClient, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (childrenOf(host.child.pid!).length === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return childrenOf(host.child.pid!);
}

/** Waits until the host has no child process left (within 10 s). */
async function noChildren(host: HostClient): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (childrenOf(host.child.pid!).length > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(childrenOf(host.child.pid!), []);
}

async function stopAtBreakpoint(host: HostClient, record: boolean): Promise<HostEvents['paused']> {
  await host.rpc.request('launch', {
    target: { kind: 'demo', pages: 20 },
    options: { maxTasks: 2, stopOnEntry: true, record },
  });
  const line = lineOf(CRAWLER, 'let response: ClientResponse | null = null;');
  await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line }] });
  const stop = await host.continueToLineStop(15_000);
  await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
  return stop;
}

/** A move and the `paused` it shows. */
async function moved(host: HostClient, ask: () => Promise<unknown>): Promise<HostEvents['paused']> {
  const from = host.events.length;
  await ask();
  return host.waitFor('paused', () => true, 15000, from);
}

describe('Step Back at a line stop (bundle)', {
  timeout: 120_000,
}, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  test('back line by line with the locals of then, forward to the live stop again, a past tick at the first line, continue keeps the replay host until the run ends', async () => {
    const first = await stopAtBreakpoint(host, true);
    const bpLine = first.line!.line;
    // The breakpoint's line is the task's first line of this step (fetch resumed from its robots.txt wait): a
    // step back goes to
    // the last line it ran in its step before, an earlier tick (the `yield*` it suspended at), replayed,
    // every view there.
    let from = host.events.length;
    const into = await host.rpc.request('lineStepBack', {});
    assert.equal(into.landed, 'line', JSON.stringify(into));
    let p = await host.waitFor('paused', (b) => b.pastLine === true, 15000, from);
    assert.ok(p.tick < first.tick, `${p.tick} < ${first.tick}`);
    assert.equal(p.taskId, first.taskId);
    assert.match(
      p.description,
      new RegExp(
        `on a past line at .*crawler\\.ts:\\d+ \\(tick ${p.tick}, replayed\\): the last line of its step at tick ${p.tick}, before its step at tick ${first.tick}`,
      ),
    );
    // fetch's one `yield*` before the breakpoint: its robots.txt wait.
    assert.deepEqual(p.line && [p.line.file, p.line.line], [CRAWLER, ROBOTS_WAIT]);
    assert.deepEqual(
      (await host.rpc.request('lineStack', {})).frames.slice(0, 2).map((f) => f.name),
      ['fetch', 'work'],
    );
    assert.deepEqual(
      host
        .eventsOf('viewedTick')
        .slice(-1)
        .map((v) => [v.tick, v.line]),
      [[p.tick, true]],
    );
    assert.equal((await host.rpc.request('snapshot', {})).tick, p.tick);
    const replayHosts = childrenOf(host.child.pid!);
    assert.equal(replayHosts.length, 1, 'one replay host for the stop');
    // Over it: the task's next line once resumed is the live stop, the present again.
    from = host.events.length;
    p = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.doesNotMatch(p.description, /past line/);
    assert.deepEqual(p.line, first.line);
    assert.deepEqual(
      host
        .eventsOf('viewedTick')
        .slice(-1)
        .map((v) => v.tick),
      [null],
    );
    assert.equal((await host.rpc.request('snapshot', {})).tick, first.tick);
    // next, to the line of the `yield*` that gets the page (the retry loop's head between): `response` was
    // assigned null since.
    const getLine = lineOf(CRAWLER, 'response = yield* this.session.get(url, NO_REDIRECTS);');
    let live = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    for (let i = 0; i < 2 && live.line!.line !== getLine; i++)
      live = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.equal(live.line!.line, getLine);
    assert.equal(
      (await host.lineLocals()).get('response') ??
        (await host.rpc.request('lineEvaluate', { expression: 'response' })).value,
      'null',
    );

    // Back: the line before in fetch, replayed (the task's, in the same tick).
    from = host.events.length;
    const back1 = await host.rpc.request('lineStepBack', {});
    assert.equal(back1.landed, 'line');
    p = await host.waitFor('paused', () => true, 15000, from);
    assert.equal(p.taskId, live.taskId);
    assert.equal(p.tick, live.tick);
    assert.ok(p.line!.line > bpLine && p.line!.line < live.line!.line, `${p.line!.line}`);
    assert.deepEqual([p.reason, p.pastLine], ['step', true], 'a past line, not a breakpoint hit');
    // Line steps in the same tick keep the tick's replay host (its recording through the tick's start still holds).
    assert.deepEqual(childrenOf(host.child.pid!), replayHosts);
    const stack = await host.rpc.request('lineStack', {});
    assert.deepEqual(
      stack.frames.slice(0, 2).map((f) => f.name),
      ['fetch', 'work'],
    );
    // Back again: the breakpoint's line, before `response` is declared (in its dead zone: `<uninitialized>`).
    from = host.events.length;
    assert.equal((await host.rpc.request('lineStepBack', {})).landed, 'line');
    p = await host.waitFor('paused', () => true, 15000, from);
    assert.equal(p.line!.line, bpLine);
    const then = await host.lineLocals();
    assert.equal(then.get('response'), '<uninitialized>');
    assert.match(then.get('url') ?? '', /^"http:\/\/127\.0\.0\.1:\d+\/"$/);
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'depth + 1' })).value, '1');
    assert.ok(childrenOf(host.child.pid!).length >= 1, 'a replay host runs');

    // Forward: the past line after it, then the live stop (the present) again.
    p = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.deepEqual([p.reason, p.pastLine], ['step', true], 'a past line, not a breakpoint hit');
    assert.ok(p.line!.line > bpLine && p.line!.line < live.line!.line);
    p = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.equal(p.pastLine, undefined, 'the live stop again');
    assert.deepEqual(p.line, live.line);
    assert.equal(
      (await host.lineLocals()).get('response') ??
        (await host.rpc.request('lineEvaluate', { expression: 'response' })).value,
      'null',
    );

    // Back to the breakpoint's line, once more into the step before, and on back line by line there: the
    // lines before its `yield*` (work's call of fetch).
    for (let i = 0; i < 3; i++) p = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.ok(p.tick < live.tick, `${p.tick} < ${live.tick}`);
    const earlier = p.line!;
    // Over from there: into the live stop's step, its first line (a past line: the live stop is further on in it).
    p = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.equal(p.pastLine, true);
    assert.equal(p.tick, live.tick);
    assert.equal(p.line!.line, bpLine);
    assert.equal((await host.lineLocals()).get('response'), '<uninitialized>');
    assert.deepEqual(
      host
        .eventsOf('viewedTick')
        .slice(-1)
        .map((v) => [v.tick, v.line]),
      [[live.tick, true]],
    );
    // Back into the step before again, and once more there.
    p = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.deepEqual(p.line, earlier);
    p = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.equal(p.pastLine, true);
    assert.ok(p.line!.line !== earlier.line || p.line!.file !== earlier.file, JSON.stringify([earlier, p.line]));
    assert.equal(p.taskId, live.taskId);
    // A past tick at a line stop: served by the replay host, told in the live run's words.
    from = host.events.length;
    const moment = await host.rpc.request('seekTick', { tick: live.tick - 1 });
    assert.equal(moment.tick, live.tick - 1);
    const told = await host.waitFor('viewedTick', () => true, 15000, from);
    assert.equal(told.tick, live.tick - 1);
    const snap = await host.rpc.request('snapshot', {});
    assert.equal(snap.tick, live.tick - 1);
    assert.ok(
      snap.tasks.some((t) => t.id === live.taskId && t.state === 'suspended'),
      JSON.stringify(snap.tasks.map((t) => [t.id, t.state])),
    );
    const present = await host.rpc.request('seekTick', { tick: null });
    assert.equal(present.tick, null);
    assert.equal((await host.rpc.request('snapshot', {})).tick, live.tick);

    // Continue: the run goes on, its replay host stays (for its next stops) until the run ends.
    await host.rpc.request('continue', {});
    assert.deepEqual(childrenOf(host.child.pid!), replayHosts);
    await host.rpc.request('stop', {});
    await noChildren(host);
  });

  test("the run's replay host is forked ahead of its first stop, kept across its stops in later ticks, ended with the run", async () => {
    const from = host.events.length;
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 300, latency: 'instant' },
      options: { maxTasks: 2, stopOnEntry: true, record: true },
    });
    const line = lineOf(CRAWLER, 'let response: ClientResponse | null = null;');
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line }] });
    await host.rpc.request('continue', {});
    const first = await host.waitFor('paused', (b) => b.line !== undefined, 15000, from);
    // Forked ahead of need: before any Step Back.
    const forked = await childrenWithin(host, 15_000);
    assert.equal(forked.length, 1, 'one replay host, forked ahead of the first stop');
    await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.equal((await host.rpc.request('lineStepBack', {})).landed, 'line');
    // Continue to a stop in a later tick, past tick 200 (the replay host's checkpoints are replays of it with
    // frames recorded, as the run's).
    await host.rpc.request('setBreakpoints', {
      file: CRAWLER,
      breakpoints: [{ file: CRAWLER, line, hitCondition: '==200' }],
    });
    const again = await moved(host, () => host.rpc.request('continue', {}));
    assert.ok(again.tick > 200 && again.tick > first.tick, `stopped at tick ${again.tick}`);
    await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    const back = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.deepEqual([back.reason, back.pastLine], ['step', true], 'a past line, not a breakpoint hit');
    assert.equal(back.tick, again.tick);
    assert.equal(back.line!.line, line);
    assert.deepEqual(childrenOf(host.child.pid!), forked, 'the same replay host');
    await host.rpc.request('stop', {});
    await noChildren(host);
  });

  test("a debugged recorded run: its replay host is forked at once and follows it; when the run has finished it is the run's hit replay host", async () => {
    // No line breakpoint left by the tests before (a new run counts their hits from its start again).
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 300, latency: 'instant' },
      options: { maxTasks: 2, stopOnEntry: true, record: true },
    });
    // A debugger sets its breaks (none on a line here): the replay host is forked now, before any stop on a line.
    await host.rpc.request('setExceptionBreaks', { taskFailed: true, taskCancelled: false });
    const forked = await childrenWithin(host, 15_000);
    assert.equal(forked.length, 1, 'one replay host, forked before any stop');
    const from = host.events.length;
    await host.rpc.request('continue', {});
    const done = await host.waitFor('finished', () => true, 60_000, from);
    assert.equal(done.ok, true);
    // The run has finished: the same process is kept, given the whole recording, for the searches of its past.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(childrenOf(host.child.pid!), forked, 'the same replay host, kept');
    const ticks = (await host.rpc.request('timeline', {})).ticks;
    await host.rpc.request('setBreakpoints', {
      file: CRAWLER,
      breakpoints: [{ file: CRAWLER, line: lineOf(CRAWLER, 'const { stat, links } = parsed;') }],
    });
    const hit = await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks });
    assert.equal(hit.landed, 'line');
    assert.deepEqual(childrenOf(host.child.pid!), forked, 'the search ran in it, no other started');
    await host.rpc.request('stop', {});
    await noChildren(host);
  });

  test('at a past line the other tasks are as they were then (the replay host answers the task table), and as they are again at the live stop', async () => {
    const from = host.events.length;
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 20, latency: 'instant' },
      options: { maxTasks: 2, stopOnEntry: true, record: true },
    });
    // Just after crawl() has created its workers.
    const line = lineOf(CRAWLER, 'let finished = false;');
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line }] });
    await host.rpc.request('continue', {});
    await host.waitFor('paused', (b) => b.line !== undefined, 15000, from);
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    const workers = async (): Promise<string[]> =>
      (await host.rpc.request('snapshot', {})).tasks
        .filter((t) => /^worker-/.test(t.name))
        .map((t) => `${t.name} ${t.state}`);
    const present = await workers();
    assert.deepEqual(present, ['worker-1 scheduled', 'worker-2 scheduled']);
    // Back to the loop that creates them, before it ran: no worker yet.
    const viewed = (since: number): Array<HostEvents['viewedTick']> =>
      host.events
        .slice(since)
        .filter((e) => e.event === 'viewedTick')
        .map((e) => e.body as HostEvents['viewedTick']);
    const before = host.events.length;
    const back = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.equal(back.pastLine, true);
    assert.equal(back.line!.line, line - 1);
    assert.deepEqual(await workers(), []);
    // Every view is told: the panel's cursor goes to that tick (a line within it), its table is that moment's.
    assert.deepEqual(
      viewed(before).map((v) => [v.tick, v.line]),
      [[back.tick, true]],
    );
    // Forward to the live stop: the present's table again, and the views back at the present.
    const forward = host.events.length;
    const again = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.notEqual(again.pastLine, true);
    assert.equal(again.line!.line, line);
    assert.deepEqual(await workers(), present);
    assert.deepEqual(
      viewed(forward).map((v) => v.tick),
      [null],
    );
    await host.rpc.request('stop', {});
  });

  test("step in at a past line enters the call that line makes (a helper not on the live stop's frames), steps on from inside it, and the live stop is the present again", async () => {
    const from = host.events.length;
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 20, latency: 'instant' },
      options: { maxTasks: 2, stopOnEntry: true, record: true },
    });
    // A stop on the line that calls `isRedirect(response)`, then a line step: the live stop is after the call
    // returned (the page is no redirect).
    const callLine = lineOf(CRAWLER, 'if (isRedirect(response)) {');
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: callLine }] });
    await host.rpc.request('continue', {});
    await host.waitFor('paused', (b) => b.line !== undefined, 15000, from);
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    const live = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.equal(live.line!.line, lineOf(CRAWLER, 'let parsed: { stat: FetchStatistic; links: string[] };'));
    const back = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.equal(back.pastLine, true);
    assert.equal(back.line!.line, callLine);
    // Step in: inside isRedirect, as it ran then (its frames and locals are the replay's).
    const inside = await moved(host, () => host.rpc.request('lineStep', { kind: 'into' }));
    assert.equal(inside.pastLine, true, inside.description);
    assert.equal(
      inside.line!.line,
      lineOf(CRAWLER, 'return isRedirectStatus(response.status) && response.headers.has('),
    );
    const stack = await host.rpc.request('lineStack', {});
    assert.deepEqual(
      stack.frames.slice(0, 2).map((f) => f.name),
      ['isRedirect', 'fetch'],
    );
    assert.ok((await host.lineLocals()).has('response'));
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'response.status' })).value, '200');
    // Over, out of it: back in fetch (past lines), then the live stop, the present.
    const seen: string[] = [];
    let p = inside;
    for (let i = 0; i < 4 && p.pastLine === true; i++) {
      p = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
      seen.push(`${p.line!.line}${p.pastLine === true ? ' past' : ''}`);
      if (p.pastLine === true) assert.equal((await host.rpc.request('lineStack', {})).frames[0]!.name, 'fetch');
    }
    assert.notEqual(p.pastLine, true, seen.join(', '));
    assert.deepEqual(p.line, live.line);
    // Again from the call's line: step in, then step out of the helper, then on to the present.
    await moved(host, () => host.rpc.request('lineStepBack', {}));
    await moved(host, () => host.rpc.request('lineStep', { kind: 'into' }));
    assert.equal((await host.rpc.request('lineStack', {})).frames[0]!.name, 'isRedirect');
    p = await moved(host, () => host.rpc.request('lineStep', { kind: 'out' }));
    for (let i = 0; i < 3 && p.pastLine === true; i++) {
      assert.equal((await host.rpc.request('lineStack', {})).frames[0]!.name, 'fetch');
      p = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    }
    assert.notEqual(p.pastLine, true);
    assert.deepEqual(p.line, live.line);
    await host.rpc.request('stop', {});
  });

  test('a run not recorded is refused with the reason', async () => {
    await stopAtBreakpoint(host, false);
    await assert.rejects(
      host.rpc.request('lineStepBack', {}),
      (e: unknown) =>
        e instanceof RemoteError &&
        e.code === 'notRecorded' &&
        /Step Back needs a recorded run: launch with record/.test(e.message),
    );
    assert.deepEqual(childrenOf(host.child.pid!), [], 'no replay host for a run not recorded');
    await host.rpc.request('stop', {});
  });
});

test("a feed of the followed run's recording asked just before its first line stop is withdrawn: the main thread never writes it, not when the program goes on either (bundle)", {
  timeout: 120_000,
}, async () => {
  // The host writes each recording it hands its replay host to a temporary file: in a folder of its own here, watched.
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-feeds-'));
  const written = new Set<string>();
  const watcher = watch(dir, (_event, name) => {
    // (The program's own TypeScript loader keeps a cache there too.)
    if (name !== null && /^coroscope-line-replay-|^sentinel$/.test(name)) written.add(String(name));
  });
  const child = fork(BUNDLE, ['--client-fd=4'], {
    cwd: ROOT,
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc', 'pipe'],
    env: { ...process.env, TMPDIR: dir },
  });
  const host = new HostClient(child);
  try {
    // A debugger's breaks, then a recorded launch held at entry: the run is followed, its first feed (the
    // whole recording so far) written meanwhile.
    await host.rpc.request('setExceptionBreaks', { taskFailed: false, taskCancelled: false });
    await host.rpc.request('launch', {
      target: { kind: 'program', path: BUSY_PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    const deadline = Date.now() + 30_000;
    while (written.size === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(written.size > 0, 'the first feed was written');
    await host.rpc.request('setBreakpoints', {
      file: BUSY_PROGRAM,
      breakpoints: [{ file: BUSY_PROGRAM, line: STOP_LINE }],
    });
    // The first step holds the main thread for seconds (the next feed, asked meanwhile, waits unread), then
    // stops on the line.
    let from = host.events.length;
    await host.rpc.request('continue', {});
    const stop = await host.waitFor('paused', (b) => b.line !== undefined, 30_000, from);
    assert.equal(stop.line?.line, STOP_LINE);
    const before = [...written];
    // On to the end: the withdrawn feed is not run by the main thread going on (nothing more is written).
    from = host.events.length;
    await host.rpc.request('continue', {});
    await host.waitFor('finished', () => true, 30_000, from);
    // A request the main thread reads after anything the worker asked it before (one port, in order)...
    await host.rpc.request('snapshot', {});
    // ... and a file of the test's own, whose event comes after any the host's writes made.
    writeFileSync(join(dir, 'sentinel'), '');
    const seen = Date.now() + 10_000;
    while (!written.has('sentinel') && Date.now() < seen) await new Promise((resolve) => setTimeout(resolve, 20));
    written.delete('sentinel');
    assert.deepEqual([...written], before, 'no recording written after the line stop');
  } finally {
    watcher.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
