// Reverse Continue to a line breakpoint's earlier hits (runtime/host/replay-host/past-hit-search.ts): a
// recorded demo crawl finishes; a breakpoint set afterwards in the crawler's fetch is armed in
// a replay of the recording (a line replay host), and pastBreakpointHit stops on its last hit
// before the moment shown, with that moment's frames and locals (the URL differs between
// hits), then the hit before, then forward again; conditions, hit conditions, logpoints and a
// line that never ran. A breakpoint on a suspension point (a line with yield: the loop's own)
// set before a live recorded run: every stop the live run made at it is found again in the
// past, backwards and forwards, at its tick, on its task, in its words (a condition, a hit
// condition, a task resuming from the line). Runs against the bundle (the line debugger's worker and the replay host
// run the bundle).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Breakpoint, HostEvents } from '../../../../protocol/host-protocol';
import { RemoteError } from '../../../../protocol/rpc';
import { forkHost, landedOnLine, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { PastHitSearch } from '../../../../runtime/host/replay-host/past-hit-search';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');

/** fetch's line after the page's links are parsed: once per page fetched, `url` its URL. */
const PARSED = lineOf(CRAWLER, 'const { stat, links } = parsed;');
/** fetch's GET: a suspension point (the loop's own breakpoint), where fetch's frame arrives once per try. */
const GET = lineOf(CRAWLER, 'response = yield* this.session.get(url, NO_REDIRECTS);');
const EVENT = join(ROOT, 'runtime', 'event.ts');
/**
 * Event.wait's wait: the innermost frame of the crawl task in q.join (it arrives there at the start and
 * resumes from it at the end).
 */
const EVENT_WAIT = lineOf(EVENT, 'yield* fut;');
const QUEUE = join(ROOT, 'runtime', 'queue.ts');
/** queue.get's wait: the innermost frame of a worker waiting for a URL, which arrives there and resumes from it. */
const GETTER = lineOf(QUEUE, 'yield* getter;');
/** A Location header that is not a URL: never on the demo site. */
const NEVER = lineOf(CRAWLER, 'this.recordFailure(url, new HttpProtocolError(url, `invalid Location');

async function armed(host: HostClient, breakpoints: Array<Omit<Breakpoint, 'file'>>): Promise<void> {
  await host.rpc.request('setBreakpoints', {
    file: CRAWLER,
    breakpoints: breakpoints.map((b) => ({ file: CRAWLER, ...b })),
  });
}

/**
 * The views show right after `tick` (null: the run's end), as the scrubber or a step would (a past hit shown
 * is left).
 */
async function shows(host: HostClient, tick: number | null): Promise<void> {
  await host.rpc.request('seekTick', { tick });
}

/** A stop at a breakpoint on a suspension point: after its tick, on its task, in the loop's words. */
interface LoopStop {
  tick: number;
  taskId: number | undefined;
  description: string;
}

/** Whether a worker of the run is connecting in fetch's GET now (its frames): its next step is still in that GET. */
async function aWorkerConnectingInGet(host: HostClient): Promise<boolean> {
  for (const t of (await host.rpc.request('snapshot', {})).tasks) {
    if (!t.name.startsWith('worker')) continue;
    const frames = (await host.rpc.request('taskDetail', { taskId: t.id })).frames;
    if (
      frames.some((f) => f.name === 'fetch' && f.position?.line === GET) &&
      frames.some((f) => f.name === 'openConnection')
    )
      return true;
  }
  return false;
}

/**
 * A recorded demo crawl (`pages`, 12 by default) with `breakpoints` set in `file`: every stop the
 * live run makes at them (continued each time). Set before it, or with `setMidRun`, while it
 * goes: held at entry, stepped tick by tick until a worker is connecting in fetch's GET (a frame
 * the breakpoint's line holds since an earlier step), set there.
 */
async function liveStops(
  host: HostClient,
  file: string,
  breakpoints: Array<Omit<Breakpoint, 'file'>>,
  run: { pages?: number; setMidRun?: boolean } = {},
): Promise<{ stops: LoopStop[]; ticks: number; setAt: number }> {
  const set = (): Promise<unknown> =>
    host.rpc.request('setBreakpoints', { file, breakpoints: breakpoints.map((b) => ({ file, ...b })) });
  if (run.setMidRun !== true) await set();
  let from = host.events.length;
  await host.rpc.request('launch', {
    target: { kind: 'demo', pages: run.pages ?? 12, latency: 'instant' },
    options: { maxTasks: 2, record: true, stopOnEntry: run.setMidRun === true },
  });
  let setAt = 0;
  if (run.setMidRun === true) {
    await host.waitFor('paused', () => true, 30_000, from);
    while (!(await aWorkerConnectingInGet(host))) {
      setAt = (await host.rpc.request('stepTick', {})).tick;
      assert.ok(setAt < 100, 'no worker connecting in fetch by tick 100');
    }
    await set();
    from = host.events.length;
    await host.rpc.request('continue', {});
  }
  const stops: LoopStop[] = [];
  for (;;) {
    const e = await host.nextOf(['paused', 'finished'], from, 60_000);
    from = e.index + 1;
    if (e.event === 'finished') break;
    const b = e.body as HostEvents['paused'];
    assert.equal(b.reason, 'breakpoint', b.description);
    stops.push({ tick: b.tick, taskId: b.taskId, description: b.description });
    await host.rpc.request('continue', {});
  }
  return { stops, ticks: (await host.rpc.request('timeline', {})).ticks, setAt };
}

/**
 * Every hit the search finds in the past, one search after the other from `tick` in `direction`: where each
 * lands, in its words.
 */
async function pastStops(host: HostClient, direction: 'back' | 'forward', tick: number): Promise<LoopStop[]> {
  const out: LoopStop[] = [];
  for (let at = tick; ; ) {
    const landing = await host.rpc.request('pastBreakpointHit', { direction, tick: at });
    if (landing.landed === 'none') return direction === 'back' ? out.reverse() : out;
    assert.equal(landing.landed, 'tick', JSON.stringify(landing));
    if (landing.landed !== 'tick') return out;
    out.push({ tick: landing.tick, taskId: landing.taskId, description: landing.description });
    at = landing.tick;
  }
}

describe('Reverse Continue to a line breakpoint hit in the recorded past (bundle)', {
  timeout: 180_000,
}, () => {
  let host: HostClient;
  let ticks = 0;
  before(async () => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 12, latency: 'instant' },
      options: { maxTasks: 2, record: true },
    });
    await host.waitFor('finished', () => true, 60_000);
    ticks = (await host.rpc.request('timeline', {})).ticks;
  });
  after(async () => {
    await host.close();
  });

  test('from the run end: the last hit, then the hit before (another URL), then forward to the last again', async () => {
    await shows(host, null);
    await armed(host, [{ line: PARSED }]);
    const last = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks }));
    assert.equal(last.line?.line, PARSED);
    assert.equal(last.breakpoint.line, PARSED);
    assert.ok(last.tick >= 1 && last.tick <= ticks, `${last.tick}`);
    const lastTask = (await host.rpc.request('snapshot', {})).tasks.find((t) => t.id === last.taskId);
    assert.equal(
      last.description,
      `${lastTask?.name} hit a breakpoint on a past line at ${CRAWLER}:${PARSED} (tick ${last.tick}, replayed)`,
    );
    const stack = await host.rpc.request('lineStack', {});
    assert.equal(stack.frames[0]!.name, 'fetch');
    assert.equal(stack.taskId, last.taskId);
    const lastUrl = (await host.lineLocals()).get('url');
    assert.match(lastUrl ?? '', /^"http:\/\/127\.0\.0\.1:\d+\//);
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'parsed.stat.url' })).value, lastUrl);

    const earlier = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks }));
    assert.ok(earlier.tick <= last.tick, `${earlier.tick} <= ${last.tick}`);
    const earlierUrl = (await host.lineLocals()).get('url');
    assert.notEqual(earlierUrl, lastUrl);

    const again = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'forward', tick: ticks }));
    assert.equal(again.tick, last.tick);
    assert.equal((await host.lineLocals()).get('url'), lastUrl);
    // Nothing after the last hit: forward from it finds none (the caller goes back to the present).
    const none = await host.rpc.request('pastBreakpointHit', { direction: 'forward', tick: ticks });
    assert.equal(none.landed, 'none');
  });

  test('from a past tick: only hits before it; a floor bounds the search', async () => {
    await armed(host, [{ line: PARSED }]);
    const mid = Math.floor(ticks / 2);
    await shows(host, mid);
    const hit = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: mid }));
    assert.ok(hit.tick <= mid, `${hit.tick} <= ${mid}`);
    const none = await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: mid, floor: hit.tick });
    assert.equal(none.landed, 'none');
  });

  test('a condition and a hit condition as the live debugger reads them; logpoints never stop', async () => {
    await shows(host, null);
    // The root page (depth 0) is fetched once, first.
    await armed(host, [{ line: PARSED, condition: 'depth === 0' }]);
    const root = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks }));
    const rootLocals = await host.lineLocals();
    assert.equal(rootLocals.get('depth'), '0');
    // From the root's hit there is no earlier depth-0 hit: none, and the hit stays shown.
    const none = await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks });
    assert.equal(none.landed, 'none');
    assert.equal((await host.lineLocals()).get('url'), rootLocals.get('url'));
    // The first hit of the run is the root's (hits counted from the run's start).
    await shows(host, null);
    await armed(host, [{ line: PARSED, hitCondition: '==1' }]);
    const first = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks }));
    assert.equal(first.tick, root.tick);
    assert.equal((await host.lineLocals()).get('url'), rootLocals.get('url'));
    // A logpoint on the line is not a stop.
    await shows(host, null);
    await armed(host, [{ line: PARSED, logMessage: 'fetched {url}' }]);
    const logged = await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks });
    assert.deepEqual(logged, { landed: 'none', breakpoints: [], from: 0, to: ticks });
  });

  test('a line that never ran: none, naming the breakpoint', async () => {
    await shows(host, null);
    await armed(host, [{ line: NEVER }]);
    const none = await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks });
    assert.deepEqual(none, { landed: 'none', breakpoints: [{ file: CRAWLER, line: NEVER }], from: 0, to: ticks });
    await armed(host, []);
  });

  test('at a live line stop: the hit before it in the replayed past (the stop itself not), with its locals; continue goes on live', async () => {
    const live = forkHost({ bundle: BUNDLE, pipe: true });
    try {
      await live.rpc.request('launch', {
        target: { kind: 'demo', pages: 12, latency: 'instant' },
        options: { maxTasks: 2, stopOnEntry: true, record: true },
      });
      await live.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: PARSED }] });
      const stop = async (): Promise<{ tick: number; url: string }> => {
        const paused = await live.continueToLineStop();
        return { tick: paused.tick, url: (await live.rpc.request('lineEvaluate', { expression: 'url' })).value };
      };
      const first = await stop();
      const second = await stop();
      assert.notEqual(second.url, first.url);
      const hit = landedOnLine(await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: second.tick }));
      assert.ok(hit.tick <= second.tick, `${hit.tick} <= ${second.tick}`);
      assert.equal((await live.lineLocals()).get('url'), first.url);
      // Nothing before the first hit: none, and the hit stays shown.
      assert.equal(
        (await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: second.tick })).landed,
        'none',
      );
      assert.equal((await live.rpc.request('lineEvaluate', { expression: 'url' })).value, first.url);
      // Continue: the live stop goes on, to the next live hit.
      const third = await stop();
      assert.ok(third.tick >= second.tick);
      assert.notEqual(third.url, second.url);
      await live.rpc.request('stop', {});
    } finally {
      await live.close();
    }
  });

  test("at a live line stop: Continue from a hit shown finds a later one (another breakpoint, a later tick): every view is that moment's, the task table too", async () => {
    const live = forkHost({ bundle: BUNDLE, pipe: true });
    try {
      await live.rpc.request('launch', {
        target: { kind: 'demo', pages: 12, latency: 'instant' },
        options: { maxTasks: 2, stopOnEntry: true, record: true },
      });
      await armed(live, [{ line: PARSED }]);
      const stop = async (): Promise<number> => {
        return (await live.continueToLineStop()).tick;
      };
      await stop();
      await stop();
      const third = await stop();
      const first = landedOnLine(await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: third }));
      const second = landedOnLine(await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: first.tick }));
      assert.ok(second.tick < first.tick, `${second.tick} < ${first.tick}`);
      assert.equal((await live.rpc.request('snapshot', {})).tick, second.tick);
      // Another breakpoint, hit in fetch before each page is parsed: forward from the hit shown, the first
      // later hit (a tick of its own, found by a scan).
      const DECL = lineOf(CRAWLER, 'let response: ClientResponse | null = null;');
      await armed(live, [{ line: DECL }]);
      // (Hits in the shown hit's own tick first, maybe: on to the first in a later one.)
      let from = live.events.length;
      let later = landedOnLine(
        await live.rpc.request('pastBreakpointHit', { direction: 'forward', tick: second.tick, ceiling: third - 1 }),
      );
      for (let i = 0; i < 4 && later.tick === second.tick; i++) {
        from = live.events.length;
        later = landedOnLine(
          await live.rpc.request('pastBreakpointHit', { direction: 'forward', tick: later.tick, ceiling: third - 1 }),
        );
      }
      assert.ok(later.tick > second.tick && later.tick < third, `${second.tick} < ${later.tick} < ${third}`);
      assert.equal(later.line?.line, DECL);
      const told = live.events
        .slice(from)
        .filter((e) => e.event === 'viewedTick')
        .map((e) => (e.body as { tick: number | null }).tick);
      assert.deepEqual(told, [later.tick]);
      // The task table the views fetch now is that moment's: its tick, the hit's task running.
      const snap = await live.rpc.request('snapshot', {});
      assert.equal(snap.tick, later.tick);
      assert.equal(
        snap.tasks.find((t) => t.id === later.taskId)?.state,
        'running',
        JSON.stringify(snap.tasks.map((t) => [t.id, t.state])),
      );
      await live.rpc.request('stop', {});
    } finally {
      await live.close();
    }
  });

  test('a hit condition set while the run went counts the hits since, in the past as live: Reverse Continue from the end lands on the hit the live run stopped at', async () => {
    const live = forkHost({ bundle: BUNDLE, pipe: true });
    try {
      await live.rpc.request('launch', {
        target: { kind: 'demo', pages: 12, latency: 'instant' },
        options: { maxTasks: 2, stopOnEntry: true, record: true },
      });
      const stop = async (): Promise<{ tick: number; url: string }> => {
        const paused = await live.continueToLineStop();
        return { tick: paused.tick, url: (await live.rpc.request('lineEvaluate', { expression: 'url' })).value };
      };
      // Set at the run's start: the 4th page parsed; then, set there (a line stop in the run), the 3rd page
      // parsed since.
      await live.rpc.request('setBreakpoints', {
        file: CRAWLER,
        breakpoints: [{ file: CRAWLER, line: PARSED, hitCondition: '==4' }],
      });
      const fourth = await stop();
      await live.rpc.request('setBreakpoints', {
        file: CRAWLER,
        breakpoints: [{ file: CRAWLER, line: PARSED, hitCondition: '==3' }],
      });
      const thirdSince = await stop();
      assert.ok(thirdSince.tick > fourth.tick);
      const from = live.events.length;
      await live.rpc.request('continue', {});
      await live.waitFor('finished', () => true, 60_000, from);
      const end = (await live.rpc.request('timeline', {})).ticks;
      // The same breakpoint, searched for in the past: the hit the live run stopped at (the 3rd since it was
      // set), not the run's 3rd.
      const hit = landedOnLine(await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: end }));
      assert.equal(hit.tick, thirdSince.tick);
      assert.equal((await live.lineLocals()).get('url'), thirdSince.url);
      // Set again now that the run has finished: the whole past counts, from the run's start.
      await live.rpc.request('seekTick', { tick: end });
      await live.rpc.request('setBreakpoints', {
        file: CRAWLER,
        breakpoints: [{ file: CRAWLER, line: PARSED, hitCondition: '==4' }],
      });
      const again = landedOnLine(await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: end }));
      assert.equal(again.tick, fourth.tick);
      assert.equal((await live.lineLocals()).get('url'), fourth.url);
    } finally {
      await live.close();
    }
  });

  test('a run not recorded is refused with the reason', async () => {
    const other = forkHost({ bundle: BUNDLE, pipe: true });
    try {
      await other.rpc.request('launch', {
        target: { kind: 'demo', pages: 3, latency: 'instant' },
        options: { maxTasks: 1 },
      });
      await other.waitFor('finished', () => true, 60_000);
      await other.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: PARSED }] });
      await assert.rejects(
        other.rpc.request('pastBreakpointHit', { direction: 'back', tick: 1 }),
        (e: unknown) => e instanceof RemoteError && e.code === 'notRecorded',
      );
    } finally {
      await other.close();
    }
  });

  // A breakpoint on a suspension point (the loop's own): the past's hits are the live run's stops. These
  // launch runs of their own on the host, last.
  test("a yield* line in fetch: every live stop found again, backwards from the end and forwards from the start, each on its worker with the loop's words", async () => {
    await host.rpc.request('setBreakpoints', { file: QUEUE, breakpoints: [] });
    const { stops, ticks } = await liveStops(host, CRAWLER, [{ line: GET }]);
    assert.ok(stops.length >= 10, JSON.stringify(stops));
    for (const s of stops)
      assert.match(
        s.description,
        new RegExp(`^Task #${s.taskId} "worker-\\d+" suspended at .*crawler\\.ts:${GET} in fetch$`),
      );
    assert.deepEqual(await pastStops(host, 'back', ticks), stops);
    assert.deepEqual(await pastStops(host, 'forward', 0), stops);
  });

  test("a condition over the frame's locals: only the broken page's fetch", async () => {
    await host.rpc.request('setBreakpoints', { file: QUEUE, breakpoints: [] });
    const { stops, ticks } = await liveStops(host, CRAWLER, [{ line: GET, condition: 'url.endsWith("/broken/")' }]);
    assert.equal(stops.length, 1, JSON.stringify(stops));
    assert.deepEqual(await pastStops(host, 'back', ticks), stops);
  });

  test('in queue.get, where a waiting worker arrives and resumes from (not again after it stopped there), with a hit condition: the same stops', async () => {
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    const { stops, ticks } = await liveStops(host, QUEUE, [{ line: GETTER, hitCondition: '%2' }]);
    assert.ok(stops.length >= 2, JSON.stringify(stops));
    // worker-2 waits at the start (the queue holds the root only), not stopped there (its 1st hit): its
    // resume is the 2nd hit, a stop.
    assert.ok(
      stops.some((s) => / resumed from .*queue\.ts:\d+ in get$/.test(s.description)),
      JSON.stringify(stops),
    );
    assert.deepEqual(await pastStops(host, 'back', ticks), stops);
    // From a moment in the middle: only the stops before it.
    const mid = stops[Math.floor(stops.length / 2)]!;
    assert.deepEqual(
      await pastStops(host, 'back', mid.tick),
      stops.filter((s) => s.tick < mid.tick),
    );
  });

  test('set while the run went, with a hit condition (a worker already on the line then, inside its GET): the stops the live run made since, counted alike', async () => {
    await host.rpc.request('setBreakpoints', { file: QUEUE, breakpoints: [] });
    const { stops, ticks, setAt } = await liveStops(host, CRAWLER, [{ line: GET, hitCondition: '%2' }], {
      setMidRun: true,
    });
    assert.ok(stops.length >= 4, JSON.stringify(stops));
    assert.ok(
      stops.every((s) => s.tick > setAt),
      `${setAt}: ${JSON.stringify(stops)}`,
    );
    assert.deepEqual(await pastStops(host, 'back', ticks), stops);
    assert.deepEqual(await pastStops(host, 'forward', setAt), stops);
  });

  test('a task waiting on the line for longer than a searched stretch (the crawl in q.join, in Event.wait): its resume is no stop after it stopped there, as live', async () => {
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    const { stops, ticks } = await liveStops(host, EVENT, [{ line: EVENT_WAIT }], { pages: 120 });
    // Arrived at the start; its resume at the end stops nothing (it stopped there).
    assert.equal(stops.length, 1, JSON.stringify(stops));
    assert.equal(
      stops[0]!.description,
      `Task #${stops[0]!.taskId} "crawl" suspended at ${EVENT}:${EVENT_WAIT} in wait`,
    );
    assert.ok(ticks - stops[0]!.tick > 64, `${stops[0]!.tick} of ${ticks}: longer than the first stretch searched`);
    assert.deepEqual(await pastStops(host, 'back', ticks), stops);
    await host.rpc.request('setBreakpoints', { file: EVENT, breakpoints: [] });
  });
});

// In-process, with a debugger that only notes what it is asked: the order of a search's seeks and scan breakpoints.
test('a search replays the ticks before each stretch with its scan breakpoints removed (a function with a breakpoint runs unoptimized and traps at every break location), and sets them again for the stretch', async () => {
  const asked: string[] = [];
  let ids = 0;
  const dbg = {
    cdp: async (method: string, params: { breakpointId?: string; condition?: string }): Promise<unknown> => {
      const name = method.replace('Debugger.', '');
      if (name === 'setBreakpointByUrl') {
        const id = `bp-${++ids}`;
        asked.push(`${params.condition === 'false' ? 'probe' : 'set'} ${id}`);
        return { breakpointId: id, locations: [{ scriptId: '1', lineNumber: 3, columnNumber: 0 }] };
      }
      asked.push(name === 'removeBreakpoint' ? `remove ${params.breakpointId}` : name);
      return {};
    },
    generatedLocations: () => [{ url: 'file:///a.js', line0: 3, column0: 0, line: 4 }],
    setWalkHook: (): void => undefined,
    isStopped: (): boolean => false,
    resume: async (): Promise<void> => undefined,
  };
  const scanTicks = async (params: {
    from: number;
    to: number;
  }): Promise<{ hits: []; marked: null; stopped: false; tickHits: [] }> => {
    asked.push(`scan ${params.from}..${params.to}`);
    return { hits: [], marked: null, stopped: false, tickHits: [] };
  };
  const seekTo = async (tick: number): Promise<void> => {
    asked.push(`seek ${tick}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    asked.push(`landed ${tick}`);
  };
  const search = new PastHitSearch(dbg as unknown as LineDebugger, scanTicks, seekTo);
  const landing = await search.find('back', { tick: 100 }, 0, 100, [{ file: CRAWLER, line: 4 }]);
  assert.equal(landing.landed, 'none');
  assert.deepEqual(asked, [
    'probe bp-1',
    'remove bp-1',
    'set bp-2',
    'setBreakpointsActive',
    // The last 64 ticks: the replay to their start made without the scan breakpoint.
    'remove bp-2',
    'seek 36',
    'landed 36',
    'set bp-3',
    'scan 36..100',
    // The stretch before, from tick 0: no tick before it to replay.
    'scan 0..36',
    'remove bp-3',
  ]);
});
