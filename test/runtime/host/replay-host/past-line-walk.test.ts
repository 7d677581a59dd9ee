// The lines around a breakpoint hit found in the recorded past (runtime/host/replay-host/past-line-walk.ts,
// a walk anchored at the hit): a recorded demo crawl finishes, Reverse Continue
// (pastBreakpointHit) stops on a hit in the crawler's fetch, and from there the line steps are
// the hit task's lines, replayed: over goes to fetch's next line, and over a `yield*` that
// suspends (the GET) to the same task's next line once it is resumed, in a later tick; a step
// back comes back across that suspension to the GET's line, with the locals of then; into
// enters the call the line makes, and a step back inside it goes to its line before (the
// calling line only from its first line); before the task's first line of the step it is the
// last line of the task's step before, in an earlier tick, and forward from there the step of
// the hit again. A line shown is read again after a values walk from it. Runs against the bundle (the line debugger's worker and the replay
// host run the bundle).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type {
  BreakpointHitLanding,
  HostEvents,
  HostMethods,
  PastLineLanding,
} from '../../../../protocol/host-protocol';
import { forkHost, landedOnLine, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { PastLineWalk } from '../../../../runtime/host/replay-host/past-line-walk';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const SESSION = join(ROOT, 'runtime', 'http', 'client-session.ts');

const DECL = lineOf(CRAWLER, 'let response: ClientResponse | null = null;');
const FOR = lineOf(CRAWLER, 'for (let tries = 1; ; tries++) {', DECL);
const GET = lineOf(CRAWLER, 'response = yield* this.session.get(url, NO_REDIRECTS);');
const BREAK = lineOf(CRAWLER, 'break;', GET);
/** In the session's request coroutine: the send, which suspends, and its next line. */
const SEND = lineOf(SESSION, 'const response = yield* send(');
const LOCATION = lineOf(SESSION, "const location = response.headers.get('location');", SEND);
/** The session's get, and its request coroutine's first line. */
const GET_CALL = lineOf(SESSION, "return sessionRequest(this, 'GET', url, options);");
const REQUEST_FIRST = lineOf(
  SESSION,
  "if (session.isClosed()) throw new HttpConnectionError(url, 'the session is closed');",
);
/** The request coroutine's lines after its first, through the send: each a line step over (`for (;;) {` is none). */
const REQUEST_TO_SEND = Array.from({ length: SEND - REQUEST_FIRST }, (_, i) => REQUEST_FIRST + 1 + i).filter(
  (l) => readFileSync(SESSION, 'utf8').split('\n')[l - 1]?.trim() !== 'for (;;) {',
);
/** fetch's first line; work's lines that call it, after the queue's item is taken, and its `finally`. */
const FETCH_FIRST = lineOf(CRAWLER, 'if (this.respectRobots && !(this.robotsAllowNow(url)');
const WORK_GET = lineOf(CRAWLER, 'const item = yield* this.q.get();');
const WORK_CALLS = [
  lineOf(CRAWLER, 'yield* this.fetch(item.url, item.maxRedirect, item.depth);'),
  lineOf(CRAWLER, 'this.fetching.add(item.url);', WORK_GET),
  lineOf(CRAWLER, 'this.busy++;', WORK_GET),
  WORK_GET,
];
const WORK_FINALLY_BACK = [
  lineOf(CRAWLER, 'this.q.taskDone();', WORK_GET),
  lineOf(CRAWLER, 'this.fetching.delete(item.url);', WORK_GET),
  lineOf(CRAWLER, 'this.busy--;', WORK_GET),
];
/** A program whose main calls a helper that suspends five times, then inner, where the stop is. */
const HELPER_PROGRAM = join(ROOT, 'test', 'fixtures', 'helper-steps.ts');
const IN_INNER = lineOf(HELPER_PROGRAM, 'const inInner = 2;');
const MAIN_FIRST = lineOf(HELPER_PROGRAM, 'yield* sleep(0.001);', lineOf(HELPER_PROGRAM, 'export const main'));
const CALLS_HELPER = lineOf(HELPER_PROGRAM, 'yield* helper();');

/** The top frames shown: function names and the innermost's file and line. */
async function shown(host: HostClient): Promise<{ names: string[]; file: string; line: number }> {
  const stack = await host.rpc.request('lineStack', {});
  const top = stack.frames[0]!;
  return { names: stack.frames.map((f) => f.name), file: top.position?.file ?? '', line: top.position?.line ?? 0 };
}

/** A line move from the hit shown, and the `paused` of the line it lands on (none when it leaves the lines). */
async function move(
  host: HostClient,
  ask: 'back' | HostMethods['lineStep']['params']['kind'],
): Promise<{ landing: PastLineLanding; paused: HostEvents['paused'] | null }> {
  const from = host.events.length;
  const landing =
    ask === 'back'
      ? await host.rpc.request('lineStepBack', {})
      : (await host.rpc.request('lineStep', { kind: ask })).landing;
  assert.ok(landing !== undefined, 'a step at a hit says where it landed');
  const paused =
    landing.landed === 'line' ? await host.waitFor('paused', (b) => b.pastLine === true, 30_000, from) : null;
  return { landing, paused };
}

/**
 * A live 12-page demo crawl (two workers, recorded), held at entry, with a breakpoint on `line` of the crawler;
 * the host is closed if the launch fails.
 */
async function liveCrawl(line: number): Promise<HostClient> {
  const live = forkHost({ bundle: BUNDLE, pipe: true });
  try {
    await live.rpc.request('launch', {
      target: { kind: 'demo', pages: 12, latency: 'instant' },
      options: { maxTasks: 2, stopOnEntry: true, record: true },
    });
    await live.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line }] });
    return live;
  } catch (e) {
    await live.close();
    throw e;
  }
}

/**
 * From the run's end, Reverse Continue to fetch's last hit at DECL (the breakpoint then cleared), then over
 * to its GET line.
 */
async function lastHitThenOverToGet(
  host: HostClient,
  ticks: number,
): Promise<Extract<BreakpointHitLanding, { landed: 'line' }> & { atGet: Awaited<ReturnType<typeof move>> }> {
  await host.rpc.request('seekTick', { tick: null });
  await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: DECL }] });
  const hit = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks }));
  await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
  const atFor = await move(host, 'over');
  assert.equal(atFor.paused?.line?.line, FOR, JSON.stringify(atFor.landing));
  const atGet = await move(host, 'over');
  assert.equal(atGet.paused?.line?.line, GET, JSON.stringify(atGet.landing));
  return { ...hit, atGet };
}

describe('line steps from a breakpoint hit in the recorded past (bundle)', {
  timeout: 240_000,
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

  test("over to the next lines, over a yield* that suspends to the task's next line in a later tick, back across it, back to the hit, into the task's step before (its last line, an earlier tick), and forward from there", async () => {
    await host.rpc.request('seekTick', { tick: null });
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: DECL }] });
    const hit = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks }));
    assert.equal(hit.line?.line, DECL);
    const url = (await host.lineLocals()).get('url');
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });

    // Over: fetch's next lines, in the hit's tick, the hit's task.
    let at = await move(host, 'over');
    assert.equal(at.paused?.line?.line, FOR, JSON.stringify(at));
    assert.equal(at.paused?.tick, hit.tick);
    assert.equal(at.paused?.taskId, hit.taskId);
    assert.equal((await shown(host)).line, FOR);
    at = await move(host, 'over');
    assert.equal(at.paused?.line?.line, GET, JSON.stringify(at));
    assert.equal((await host.lineLocals()).get('response'), 'null');
    // Over the GET, which suspends the task: its next line once resumed, a later tick.
    at = await move(host, 'over');
    assert.equal(at.paused?.line?.line, BREAK, JSON.stringify(at));
    assert.equal(at.paused?.taskId, hit.taskId);
    assert.ok((at.paused?.tick ?? 0) > hit.tick, `${at.paused?.tick} > ${hit.tick}`);
    assert.equal((await host.lineLocals()).get('response') ?? '', 'ClientResponse');
    assert.equal((await host.lineLocals()).get('url'), url);
    assert.deepEqual((await shown(host)).names.slice(0, 2), ['fetch', 'work']);

    // Back across the suspension: the GET's line, the locals of then.
    at = await move(host, 'back');
    assert.equal(at.paused?.line?.line, GET, JSON.stringify(at));
    assert.equal(at.paused?.tick, hit.tick);
    assert.equal((await host.lineLocals()).get('response'), 'null');
    at = await move(host, 'back');
    assert.equal(at.paused?.line?.line, FOR);
    at = await move(host, 'back');
    assert.equal(at.paused?.line?.line, DECL);
    assert.equal((await host.lineLocals()).get('response'), '<uninitialized>');
    // Back again past the task's first line of the step: the last line of its step before (an earlier tick,
    // where it suspended), replayed.
    // In the hit's tick: fetch's first line, work's lines that called it; and, when the queue had an item as the
    // task asked (so its step began in the previous item's `finally`), those lines too. Then the step before.
    const inHitTick: number[] = [];
    for (
      at = await move(host, 'back');
      at.landing.landed === 'line' && at.paused?.tick === hit.tick && inHitTick.length < 12;
      at = await move(host, 'back')
    )
      inHitTick.push(at.paused?.line?.line ?? 0);
    const fromFinally = inHitTick.length > 5;
    assert.deepEqual(inHitTick, [FETCH_FIRST, ...WORK_CALLS, ...(fromFinally ? WORK_FINALLY_BACK : [])]);
    assert.equal(at.landing.landed, 'line', JSON.stringify(at.landing));
    const before = at.paused!;
    assert.ok(before.tick < hit.tick, `${before.tick} < ${hit.tick}`);
    assert.equal(before.taskId, hit.taskId);
    assert.match(
      before.description,
      new RegExp(
        `on a past line at .*crawler\\.ts:\\d+ \\(tick ${before.tick}, replayed\\): the last line of its step at tick ${before.tick}, before its step at tick ${hit.tick}`,
      ),
    );
    const then = await shown(host);
    assert.equal(then.file, CRAWLER, JSON.stringify(then));
    assert.equal(then.names[then.names.length - 1], 'work', JSON.stringify(then));
    // The previous fetch's GET (its step then began in the `finally`), else the queue's get.
    assert.deepEqual([then.names[0], then.line], fromFinally ? ['fetch', GET] : ['work', WORK_GET]);
    // Forward from there: on to the step of the hit, its first line (the same task, resumed).
    at = await move(host, 'over');
    assert.equal(at.paused?.line?.line, fromFinally ? BREAK : WORK_CALLS[2], JSON.stringify(at.landing));
    assert.equal(at.paused?.tick, hit.tick);
    assert.equal(at.paused?.taskId, hit.taskId);
  });

  test('into the call a line makes, over inside it, back to its line before (not the calling line), back to the calling line from its first line', async () => {
    const hit = await lastHitThenOverToGet(host, ticks);
    let at = hit.atGet;
    // Into: the session's get, as it ran then.
    at = await move(host, 'into');
    const first = await shown(host);
    assert.equal(first.file, SESSION, JSON.stringify(first));
    assert.deepEqual(first.names.slice(0, 3), ['get', 'fetch', 'work']);
    assert.equal(at.paused?.tick, hit.tick);
    // Into again: the request coroutine get hands the GET to (it runs in fetch's yield*).
    assert.equal(first.line, GET_CALL);
    at = await move(host, 'into');
    const inRequest = await shown(host);
    assert.deepEqual([inRequest.names[0], inRequest.file, inRequest.line], ['request', SESSION, REQUEST_FIRST]);
    // Over, twice, inside the request coroutine.
    at = await move(host, 'over');
    const second = await shown(host);
    at = await move(host, 'over');
    const third = await shown(host);
    assert.equal(third.names[0], 'request', JSON.stringify(third));
    assert.deepEqual([second.line, third.line], REQUEST_TO_SEND.slice(0, 2));
    // Back: the line before in the callee, twice; the locals of then.
    at = await move(host, 'back');
    assert.deepEqual(await shown(host), second);
    at = await move(host, 'back');
    assert.deepEqual(await shown(host), inRequest);
    // Back from the steps' first line in the calls: the lines that led there, to the calling line.
    at = await move(host, 'back');
    assert.deepEqual((await shown(host)).line, GET_CALL);
    at = await move(host, 'back');
    const calling = await shown(host);
    assert.equal(calling.names[0], 'fetch');
    assert.equal(calling.line, GET);
  });

  test("inside a yield* coroutine entered by a step in (not on the hit's frames): over its own yield* that suspends to its next line once resumed, and back", async () => {
    const hit = await lastHitThenOverToGet(host, ticks);
    let at = hit.atGet;
    at = await move(host, 'into');
    assert.equal((await shown(host)).line, GET_CALL);
    at = await move(host, 'into');
    assert.deepEqual([(await shown(host)).names[0], (await shown(host)).line], ['request', REQUEST_FIRST]);
    const lines: number[] = [];
    for (const _ of REQUEST_TO_SEND) {
      at = await move(host, 'over');
      lines.push((await shown(host)).line);
    }
    assert.deepEqual(lines, REQUEST_TO_SEND);
    assert.equal(at.paused?.tick, hit.tick);
    // Over the send, which suspends the task: request's next line once resumed, a later tick, the same task.
    at = await move(host, 'over');
    const resumed = await shown(host);
    assert.equal(resumed.file, SESSION);
    assert.equal(resumed.line, LOCATION, JSON.stringify(resumed));
    assert.deepEqual(resumed.names.slice(0, 3), ['request', 'fetch', 'work']);
    assert.equal(at.paused?.taskId, hit.taskId);
    assert.ok((at.paused?.tick ?? 0) > hit.tick, `${at.paused?.tick} > ${hit.tick}`);
    // (`response` is a block's local there: evaluated in the frame.)
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'response' })).value, 'ClientResponse');
    // Back: the send's line, in the hit's tick, before its response.
    at = await move(host, 'back');
    assert.equal((await shown(host)).line, SEND);
    assert.equal(at.paused?.tick, hit.tick);
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'typeof response' })).value, '"undefined"');
    // Out of request: fetch, on past the GET (the rest of the `yield*`), the task's next line in fetch.
    at = await move(host, 'out');
    const out = await shown(host);
    assert.equal(out.names[0], 'fetch', JSON.stringify(out));
    assert.equal(out.line, BREAK);
    assert.ok((at.paused?.tick ?? 0) > hit.tick, `${at.paused?.tick} > ${hit.tick}`);
  });

  test("before the first line of a task's first step there is no step before: the start of the task, its first line shown again, saying so", async () => {
    await host.rpc.request('seekTick', { tick: null });
    const first = lineOf(CRAWLER, 'let finished = false;');
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: first }] });
    const hit = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: ticks }));
    await host.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
    // crawl's lines before it, back to its first: each a line of the step, none saying more.
    const crawl = lineOf(CRAWLER, '*crawl(): Coroutine<void> {');
    const expected = [
      'for (let i = 0; i < this.maxTasks; i++) this.workers.push(',
      'this.workers = [];',
      'this.t0 = loop.time();',
      'this.clock = loop;',
      'const loop = getRunningLoop();',
    ].map((text) => lineOf(CRAWLER, text, crawl));
    const lines: number[] = [];
    let at = await move(host, 'back');
    for (const _ of expected) {
      assert.equal(at.landing.landed === 'line' ? at.landing.note : 'left', undefined, JSON.stringify(at.landing));
      lines.push(at.paused?.line?.line ?? 0);
      at = await move(host, 'back');
    }
    assert.deepEqual(lines, expected);
    assert.equal(at.landing.landed, 'line', JSON.stringify(at.landing));
    assert.equal(
      at.landing.landed === 'line' ? at.landing.note : '',
      `the start of the task: its step at tick ${hit.tick} is its first, nothing of it ran before`,
    );
    assert.equal(at.paused?.line?.line, lines[lines.length - 1] ?? hit.line?.line, 'the first line, shown again');
    assert.equal(
      at.paused?.description,
      `crawl on a past line at ${CRAWLER}:${at.paused?.line?.line} (tick ${hit.tick}, replayed): the start of the task: its step at tick ${hit.tick} is its first, nothing of it ran before`,
    );
  });

  test("at a live line stop, back before the task's first line of its step: the line it suspended at in the functions on the stop's frames (the GET), passing over its steps spent inside that call, every view at that tick; over from there is the live stop again", async () => {
    const live = await liveCrawl(BREAK);
    try {
      // The second worker's first page: its GET opens a connection of its own (the first worker's reuses
      // robots.txt's), so it suspends more than once inside the session.
      const firstWorker = await live.continueToLineStop();
      let stop = firstWorker;
      for (let i = 0; i < 4 && stop.taskId === firstWorker.taskId; i++) stop = await live.continueToLineStop();
      assert.notEqual(stop.taskId, firstWorker.taskId);
      await live.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
      assert.equal(stop.line?.line, BREAK);
      assert.equal((await live.lineLocals()).get('response') ?? '', 'ClientResponse');
      // Back once: the stop is its step's first line (the GET resumed), so the task's step before (an earlier tick).
      const at = await move(live, 'back');
      assert.equal(at.landing.landed, 'line', JSON.stringify(at.landing));
      const before = at.paused!;
      assert.ok(before.tick < stop.tick, `${before.tick} < ${stop.tick}`);
      assert.equal(before.taskId, stop.taskId);
      // fetch's GET, where it called the session (not a line inside the session's code): its response not there yet.
      assert.equal(before.line?.line, GET, before.description);
      assert.equal((await shown(live)).names[0], 'fetch');
      assert.equal((await live.lineLocals()).get('response'), 'null');
      // The steps inside the GET (connecting, sending, reading) are passed over, by their recorded frames.
      assert.match(
        before.description,
        new RegExp(
          `the last line of its step at tick ${before.tick}, before its step at tick ${stop.tick} \\(its (step|\\d+ steps) between ran no line of these frames' functions\\)`,
        ),
      );
      assert.deepEqual(
        live
          .eventsOf('viewedTick')
          .slice(-1)
          .map((v) => [v.tick, v.line]),
        [[before.tick, true]],
      );
      assert.equal((await live.rpc.request('snapshot', {})).tick, before.tick);
      // Over the GET from there: the task's next line once resumed, in the stop's tick: the live stop again
      // (the present).
      const from = live.events.length;
      const over = await live.rpc.request('lineStep', { kind: 'over' });
      // The step over the GET suspends the task, as live: the landing carries the words the live step says.
      const landing = over.landing;
      assert.ok(landing !== undefined && landing.landed === 'present', JSON.stringify(landing));
      assert.equal(landing.said?.length, 1, JSON.stringify(landing));
      assert.match(
        landing.said?.[0] ?? '',
        /^\S+ suspended on socket\.\w+ \(<Socket .*>\); the loop waits for I\/O or a timer\n$/,
      );
      const again = await live.waitFor('paused', () => true, 30_000, from);
      assert.equal(again.pastLine, undefined);
      assert.deepEqual(again.line, stop.line);
      assert.deepEqual(
        live
          .eventsOf('viewedTick')
          .slice(-1)
          .map((v) => v.tick),
        [null],
      );
      await live.rpc.request('stop', {});
    } finally {
      await live.close();
    }
  });

  test("at a live line stop, back before the task's first line of its step, past any number of its steps in a call as deep as the stop's that ran none of its frames' functions (by the recorded chains' names): the line that made the call, then on back to the start of the task", async () => {
    const live = forkHost({ bundle: BUNDLE, pipe: true });
    try {
      await live.rpc.request('launch', {
        target: { kind: 'program', path: HELPER_PROGRAM },
        options: { stopOnEntry: true, record: true },
      });
      await live.rpc.request('setBreakpoints', {
        file: HELPER_PROGRAM,
        breakpoints: [{ file: HELPER_PROGRAM, line: IN_INNER }],
      });
      const stop = await live.continueToLineStop();
      assert.equal(stop.line?.line, IN_INNER);
      // Back: main's line that made the call, in the stop's tick (inner's first step ran in it).
      let at = await move(live, 'back');
      const seen: string[] = [JSON.stringify(at.landing)];
      assert.equal(at.paused?.line?.line, lineOf(HELPER_PROGRAM, 'return yield* inner();'), seen.join(' | '));
      assert.equal(at.paused?.tick, stop.tick);
      at = await move(live, 'back');
      seen.push(JSON.stringify(at.landing));
      // helper's five steps (its last one the stop's own step before) are passed over: main's line that
      // called it, an earlier tick.
      assert.equal(at.landing.landed, 'line', seen.join(' | '));
      assert.equal(at.paused?.line?.line, CALLS_HELPER, at.paused?.description);
      assert.ok((at.paused?.tick ?? stop.tick) < stop.tick);
      assert.equal(
        at.paused?.description ?? '',
        `main on a past line at ${ROOT}/test/fixtures/helper-steps.ts:18 (tick 3, replayed): the last line of its step at tick 3, before its step at tick 13 (its 4 steps between ran no line of these frames' functions)`,
      );
      // On back: main's first step, and before its first line the start of the task (that line again, saying so).
      at = await move(live, 'back');
      seen.push(JSON.stringify(at.landing));
      assert.equal(at.paused?.line?.line, MAIN_FIRST, seen.join(' | '));
      assert.equal(
        at.paused?.description ?? '',
        `main on a past line at ${ROOT}/test/fixtures/helper-steps.ts:17 (tick 1, replayed): the last line of its step at tick 1, before its step at tick 3`,
      );
      at = await move(live, 'back');
      seen.push(JSON.stringify(at.landing));
      assert.equal(at.landing.landed, 'line', seen.join(' | '));
      assert.equal(at.paused?.line?.line, MAIN_FIRST, seen.join(' | '));
      assert.equal(
        at.paused?.description ?? '',
        `main on a past line at ${ROOT}/test/fixtures/helper-steps.ts:17 (tick 1, replayed): the start of the task: its step at tick 1 is its first, nothing of it ran before`,
      );
      await live.rpc.request('stop', {});
    } finally {
      await live.close();
    }
  });

  test('at a live line stop, back a line, the values read back from there (a values walk lets the thread go): the line shown is read again, its stack and its locals', async () => {
    const live = await liveCrawl(BREAK);
    try {
      await live.continueToLineStop();
      await live.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
      const at = await move(live, 'back');
      assert.equal(at.landing.landed, 'line', JSON.stringify(at.landing));
      const before = await shown(live);
      const locals = await live.lineLocals();
      const { readings } = await live.rpc.request('lineValuesBack', {
        watched: [{ expression: 'url', functionName: 'fetch', depth: 0 }],
      });
      assert.ok(readings !== null && readings.length > 0, 'values read back from the line shown');
      // Before: "lineStack: the program is not stopped on a line" (the values walk had let the thread go).
      assert.deepEqual(await shown(live), before);
      assert.deepEqual(await live.lineLocals(), locals);
      // And a move back from there goes on from the line shown, as without the values walk.
      const again = await move(live, 'back');
      assert.equal(again.landing.landed, 'line', JSON.stringify(again.landing));
    } finally {
      await live.close();
    }
  });

  test("at a live line stop, a hit of its own task in an earlier tick: over goes on into the stop's tick, through the task's lines there before the stop (replayed), to the stop itself, the present", async () => {
    const live = await liveCrawl(lineOf(CRAWLER, 'if (isRedirect(response)) {', GET));
    try {
      const stop = await live.continueToLineStop();
      const url = (await live.lineLocals()).get('url')!;
      // Its own fetch of that URL, in an earlier tick (a breakpoint whose condition names the URL), then over
      // to the GET.
      await live.rpc.request('setBreakpoints', {
        file: CRAWLER,
        breakpoints: [{ file: CRAWLER, line: FOR, condition: `url === ${url}` }],
      });
      const hit = landedOnLine(await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: stop.tick }));
      await live.rpc.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
      assert.equal(hit.taskId, stop.taskId);
      assert.ok(hit.tick < stop.tick, `${hit.tick} < ${stop.tick}`);
      let at = await move(live, 'over');
      assert.equal(at.paused?.line?.line, GET, JSON.stringify(at.landing));
      assert.equal(at.paused?.tick, hit.tick);
      // Over the GET, which suspends: the task's next line once resumed, in the live stop's tick, replayed
      // (before the stop).
      at = await move(live, 'over');
      assert.equal(at.paused?.line?.line, BREAK, JSON.stringify(at.landing));
      assert.equal(at.paused?.tick, stop.tick);
      // On: the live stop itself (the next line), the present (not its line replayed, nor what its tick ran after it).
      at = await move(live, 'over');
      assert.deepEqual(at.landing, { landed: 'present' });
      await live.rpc.request('stop', {});
    } finally {
      await live.close();
    }
  });

  test("at a live line stop: every view follows to the hit before it, over goes to the hit task's next line, back to the hit's line, and continue goes on live, the views back at the present", async () => {
    const live = await liveCrawl(DECL);
    try {
      const stop = (): Promise<HostEvents['paused']> => live.continueToLineStop();
      await stop();
      await stop();
      const second = await stop();
      const viewed = (since: number): Array<HostEvents['viewedTick']> =>
        live.events
          .slice(since)
          .filter((e) => e.event === 'viewedTick')
          .map((e) => e.body as HostEvents['viewedTick']);
      const before = live.events.length;
      const hit = landedOnLine(await live.rpc.request('pastBreakpointHit', { direction: 'back', tick: second.tick }));
      assert.ok(hit.tick < second.tick, `${hit.tick} < ${second.tick}`);
      // Every view follows to the hit's tick (a line within it): the task table is that moment's, not the live stop's.
      assert.deepEqual(
        viewed(before).map((v) => [v.tick, v.line]),
        [[hit.tick, true]],
      );
      assert.equal((await live.rpc.request('snapshot', {})).tick, hit.tick);
      let at = await move(live, 'over');
      assert.equal(at.paused?.line?.line, FOR, JSON.stringify(at));
      assert.equal(at.paused?.tick, hit.tick);
      assert.equal((await live.rpc.request('snapshot', {})).tick, hit.tick);
      at = await move(live, 'back');
      assert.equal(at.paused?.line?.line, DECL, JSON.stringify(at));
      assert.equal((await live.lineLocals()).get('response'), '<uninitialized>');
      // Continue: the views back at the present, the live stop goes on, to the next live hit.
      const going = live.events.length;
      const third = await stop();
      assert.ok(third.tick >= second.tick);
      assert.deepEqual(
        viewed(going).map((v) => v.tick),
        [null],
      );
      await live.rpc.request('stop', {});
    } finally {
      await live.close();
    }
  });
});

// In-process, with a debugger that only notes what it is asked: the order of a walk's seek and breakpoints.
test("a walk replays the ticks before its own with none of its breakpoints set (a function with a breakpoint runs unoptimized and traps at every break location): planted once the seek has landed, removed before the next walk's seek", async () => {
  const asked: string[] = [];
  let ids = 0;
  const dbg = {
    cdp: async (method: string): Promise<unknown> => {
      asked.push(method.replace('Debugger.', ''));
      return method === 'Debugger.setBreakpointByUrl' ? { breakpointId: `bp-${++ids}` } : {};
    },
    setWalkHook: (): void => undefined,
    dropStep: async (): Promise<void> => undefined,
    isStopped: (): boolean => false,
    lineAt: (): string | null => null,
    resume: async (): Promise<void> => undefined,
  };
  const seekTo = async (tick: number): Promise<void> => {
    asked.push(`seek ${tick}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    asked.push(`landed ${tick}`);
  };
  // The traced tick fails at once: the walk ends there, refused with its reason.
  const replayTick = async (tick: number): Promise<void> => {
    asked.push(`traced ${tick}`);
    throw new Error('no traced tick here');
  };
  const print = {
    frames: [],
    locals: [],
    locations: [
      { url: 'file:///a.js', line: 3, column: 0 },
      { url: 'file:///a.js', line: 4, column: 2 },
    ],
  };
  const walk = new PastLineWalk(dbg as unknown as LineDebugger, replayTick, seekTo, 10, 1, print);
  for (let i = 0; i < 2; i++) await assert.rejects(walk.move('back'), /no traced tick here/);
  const planted = ['setBreakpointByUrl', 'setBreakpointByUrl'];
  const removed = ['removeBreakpoint', 'removeBreakpoint'];
  const walkOf = (before: string[]): string[] => [
    ...before,
    'setBreakpointsActive',
    'seek 9',
    'landed 9',
    ...planted,
    'setBreakpointsActive',
    'traced 10',
  ];
  const release = ['setBreakpointsActive'];
  assert.deepEqual(asked, [...walkOf([]), ...release, ...walkOf(removed), ...release]);
});
