// Tests of runtime/host: real protocol messages exchanged with a forked runtime host (from
// the TypeScript source through tsx, and once from an esbuild bundle with source maps).
// A demo crawl launched with stopOnEntry is stepped tick by tick, its tasks listed, a busy
// worker's frames read (work → fetch → … with TypeScript files, the fetch frame's `url`),
// then continued to its report; bad requests get error replies; exceptions, lints, deadlocks
// and traces come through the protocol; the host exits when its parent's channel goes away.
// Measured: a full snapshot of 10k tasks, and frames with locals for one task (round trips).
// Each test's runs are ended after it (stopped, their `finished` awaited) and the exception
// breaks cleared, pass or fail, and each waits for its own run's `finished` (by runId): a
// test failing midway cannot leave a run whose events a later test takes for its own.
import { test, describe, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { RemoteError } from '../../../../protocol/rpc';
import {
  PROTOCOL_VERSION,
  type HostEvents,
  type HostMethods,
  type Snapshot,
  type TaskSummary,
} from '../../../../protocol/host-protocol';
import { forkHost, median, ownCpuMs, processCpuMs, ROOT, HOST_SOURCE, type HostClient } from '../host-client';
import { DEADLOCK_TASKS_LISTED } from '../../../../runtime/host/main-thread/deadlock-stop';

const SOCKET_WAITS = /^(socket\.|stream\.read)/;
const FIXTURES = join(__dirname, '..', 'fixtures');

async function rejectsWith(p: Promise<unknown>, code: string, message?: RegExp): Promise<RemoteError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof RemoteError, `a RemoteError, got ${String(e)}`);
    assert.equal(e.code, code, `error code (message: ${e.message})`);
    if (message !== undefined) assert.match(e.message, message);
    return e;
  }
  assert.fail(`expected an error reply with code ${code}`);
}

/** Steps single ticks until the snapshot shows a worker busy in fetch on a socket. */
async function stepUntilBusyWorker(
  host: HostClient,
  maxTicks = 3000,
): Promise<{ snap: Snapshot; worker: TaskSummary }> {
  for (let i = 0; i < maxTicks; i++) {
    await host.rpc.request('stepTick', {});
    const snap = await host.rpc.request('snapshot', {});
    const worker = snap.tasks.find(
      (t) =>
        t.name.startsWith('worker-') &&
        t.frames.includes('fetch') &&
        t.awaiting !== null &&
        SOCKET_WAITS.test(t.awaiting.kind),
    );
    if (worker !== undefined) return { snap, worker };
  }
  assert.fail(`no worker busy on a socket within ${maxTicks} ticks`);
}

/**
 * Runs `round` until the best time is within `boundMs` (at least `minRounds`, at most
 * `maxRounds` rounds): one slow round under load says nothing, so the bound is checked on the
 * best of many; a real slowdown stays over it in every round.
 */
async function timedRounds(
  round: () => Promise<void>,
  boundMs: number,
  minRounds = 11,
  maxRounds = 61,
): Promise<number[]> {
  const times: number[] = [];
  while (times.length < maxRounds && (times.length < minRounds || Math.min(...times) > boundMs)) {
    const t0 = performance.now();
    await round();
    times.push(performance.now() - t0);
  }
  return times;
}

describe('runtime host over IPC (from source)', () => {
  let host: HostClient;
  /** The runs the current test launched (ended after it, whatever happened). */
  let runs: number[] = [];

  async function launch(params: HostMethods['launch']['params']): Promise<HostMethods['launch']['result']> {
    const launched = await host.rpc.request('launch', params);
    runs.push(launched.runId);
    return launched;
  }

  before(() => {
    host = forkHost();
  });
  afterEach(async () => {
    const mine = runs;
    runs = [];
    await host.rpc.request('setExceptionBreaks', { taskFailed: false, taskCancelled: false });
    await host.rpc.request('stop', {});
    for (const runId of mine) await host.waitFor('finished', (f) => f.runId === runId, 10000);
  });
  after(async () => {
    await host.close();
  });

  test('hello answers with the protocol version and pid; another version is refused', async () => {
    const hello = await host.rpc.request('hello', { client: 'host.test', protocolVersion: PROTOCOL_VERSION });
    assert.equal(hello.protocolVersion, PROTOCOL_VERSION);
    assert.equal(hello.pid, host.child.pid);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(hello.hostVersion, pkg.version, "the package's version");
    await rejectsWith(
      host.rpc.request('hello', { client: 'old', protocolVersion: PROTOCOL_VERSION + 1 }),
      'versionMismatch',
    );
  });

  test('a client of protocol 1 (cancelTask without `by`) is refused at hello, told what changed', async () => {
    assert.equal(PROTOCOL_VERSION, 2);
    await rejectsWith(
      host.rpc.request('hello', { client: 'v1', protocolVersion: 1 }),
      'versionMismatch',
      /speaks protocol version 2, the client 1 \(version 2: cancelTask requires `by`/,
    );
  });

  test('samples lists the tutorial samples the host can launch', async () => {
    const { samples } = await host.rpc.request('samples', {});
    const ids = samples.map((x) => x.id);
    for (const id of ['generators', 'callbacks', 'crawler', 'json-fetch']) assert.ok(ids.includes(id), id);
    for (const x of samples) assert.ok(x.title.length > 0 && x.chapter.length > 0, x.id);
  });

  test('bad requests get error replies, and the host stays up', async () => {
    await rejectsWith(host.rpc.request('snapshot', {}), 'noRun', /launch first/);
    await rejectsWith(host.rpc.request('noSuchMethod' as 'pause', {}), 'unknownMethod');
    await rejectsWith(host.rpc.request('launch', { target: { kind: 'nope' } } as never), 'badRequest', /target\.kind/);
    await rejectsWith(
      host.rpc.request('launch', { target: { kind: 'crawl', urls: [] }, options: {} }),
      'badRequest',
      /at least one URL/,
    );
    await rejectsWith(
      host.rpc.request('launch', { target: { kind: 'demo' }, options: { maxTasks: 'ten' } } as never),
      'badRequest',
      /options\.maxTasks must be a number/,
    );
    // Absurd values are refused with the documented bounds (1e30 workers exhausted the heap).
    await rejectsWith(
      host.rpc.request('launch', { target: { kind: 'demo' }, options: { maxTasks: 1e30 } }),
      'badRequest',
      /options\.maxTasks must be a whole number from 1 to 10000, got 1e\+30/,
    );
    await rejectsWith(
      host.rpc.request('launch', { target: { kind: 'demo' }, options: { maxTries: 1000 } }),
      'badRequest',
      /options\.maxTries must be a whole number from 1 to 100/,
    );
    await rejectsWith(
      host.rpc.request('launch', { target: { kind: 'demo', pages: 1e9 }, options: {} }),
      'badRequest',
      /target\.pages must be a whole number from 1 to 100000/,
    );
    await rejectsWith(
      host.rpc.request('launch', { target: { kind: 'program', path: '/no/such/program.ts' }, options: {} }),
      'launchFailed',
      /does not exist/,
    );
    await rejectsWith(
      host.rpc.request('launch', { target: { kind: 'sample', id: 'no-such-sample' }, options: {} }),
      'unknownSample',
    );
    await rejectsWith(
      host.rpc.request('setExceptionBreaks', { taskFailed: 'yes' } as never),
      'badRequest',
      /taskFailed must be a boolean/,
    );
    const hello = await host.rpc.request('hello', { client: 'still-there', protocolVersion: PROTOCOL_VERSION });
    assert.equal(hello.pid, host.child.pid);
  });

  test('a demo crawl, paused at entry with 10 workers: ticks, tasks, a busy worker’s frames and locals, then its report', async () => {
    const from = host.events.length;
    const launched = await launch({
      target: { kind: 'demo', latency: 'instant' },
      options: { stopOnEntry: true, maxTasks: 10 },
    });
    assert.match(launched.siteUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const entry = await host.waitFor('paused', (p) => p.reason === 'entry', 5000, from);
    assert.equal(entry.tick, 0);

    // Ten single ticks: the tick count follows exactly.
    for (let i = 1; i <= 10; i++) assert.deepEqual(await host.rpc.request('stepTick', {}), { tick: i });
    const snap = await host.rpc.request('snapshot', {});
    assert.equal(snap.full, true);
    assert.equal(snap.paused, true);
    assert.equal(snap.tick, 10);
    const crawl = snap.tasks.find((t) => t.name === 'crawl');
    assert.ok(crawl !== undefined, 'the crawl task is listed');
    assert.equal(crawl.awaiting?.kind, 'queue.join');
    assert.match(crawl.awaiting?.resourceId ?? '', /^resource:queue:/);
    const workers = snap.tasks.filter((t) => t.name.startsWith('worker-'));
    assert.equal(workers.length, 10);
    for (const w of workers) assert.equal(w.createdBy, crawl.id, `${w.name} was created by the crawl task`);
    assert.ok(snap.progress !== null && snap.progress.seen >= 1);

    // Nothing ran: a delta since that version is empty.
    const same = await host.rpc.request('snapshot', { since: snap.version });
    assert.equal(same.full, false);
    assert.deepEqual(same.tasks, []);

    // A busy worker: frames work → fetch → … down to a socket wait, in TypeScript files.
    const { worker, snap: busySnap } = await stepUntilBusyWorker(host);
    const detail = await host.rpc.request('taskDetail', { taskId: worker.id, locals: true });
    const names = detail.frames.map((f) => f.name);
    assert.deepEqual(names.slice(0, 2), ['work', 'fetch']);
    assert.ok(names.length >= 4, `a deep chain: ${names.join(' → ')}`);
    for (const f of detail.frames) {
      assert.ok(f.position !== null, `${f.name} has a position`);
      assert.match(f.position.file, /\.ts$/, `${f.name} is in a TypeScript file: ${f.position.file}`);
      assert.ok(f.generated !== null);
    }
    assert.equal(basename(detail.frames[0]!.position!.file), 'crawler.ts');
    assert.equal(basename(detail.frames[1]!.position!.file), 'crawler.ts');
    const fetchFrame = detail.frames[1]!;
    const url = fetchFrame.locals.find((l) => l.name === 'url');
    assert.ok(url !== undefined, `fetch has a url local: ${fetchFrame.locals.map((l) => l.name).join(', ')}`);
    assert.ok(url.value.includes(launched.siteUrl!.slice(0, -1)), `the url being fetched: ${url.value}`);
    assert.equal(url.type, 'string');
    assert.ok(
      detail.createdAt !== null && basename(detail.createdAt.file) === 'crawler.ts',
      `created in crawl(): ${JSON.stringify(detail.createdAt)}`,
    );
    assert.ok(detail.awaitChain.length === 0 || detail.awaitChain.every((id) => typeof id === 'number'));

    // Expanding `this` of work (the Crawler) through its handle.
    const self = detail.frames[0]!.locals.find((l) => l.name === 'this');
    assert.ok(self !== undefined && self.handle > 0);
    const fields = await host.rpc.request('variables', { handle: self.handle });
    assert.ok(
      fields.variables.some((v) => v.name === 'maxTasks' && v.value === '10'),
      'the crawler’s maxTasks',
    );

    // Frames with locals of this worker, as round trips (the first read above warmed up).
    const times = await timedRounds(async () => {
      await host.rpc.request('taskDetail', { taskId: worker.id, locals: true });
    }, 20);
    process.stdout.write(
      `# measured over IPC: taskDetail with locals of a busy crawl worker (${detail.frames.length} frames): median ${median(times).toFixed(2)} ms (min ${Math.min(...times).toFixed(2)} over ${times.length} rounds)\n`,
    );
    assert.ok(Math.min(...times) <= 20, `taskDetail best ${Math.min(...times).toFixed(2)} ms`);

    // Evaluate in the fetch frame, with its locals bound.
    const ev = await host.rpc.request('evaluate', {
      expression: 'url.length > 0 && maxRedirect',
      taskId: worker.id,
      frameIndex: 1,
    });
    assert.equal(ev.value, '10');
    const global = await host.rpc.request('evaluate', { expression: 'tasks.length' });
    assert.equal(
      Number(global.value),
      busySnap.tasks.filter((t) => !['done', 'failed', 'cancelled'].includes(t.state)).length,
    );
    await rejectsWith(
      host.rpc.request('evaluate', { expression: 'url +', taskId: worker.id }),
      'badRequest',
      /does not parse/,
    );

    // The await graph: crawl awaits the queue's join.
    const graph = await host.rpc.request('graph', {});
    const joinEdge = graph.edges.find((e) => e.from === `task:${crawl.id}` && e.kind === 'awaits');
    assert.ok(joinEdge !== undefined);
    const joinNode = graph.nodes.find((n) => n.id === joinEdge.to);
    assert.equal(joinNode?.label, 'queue.join');
    assert.ok(
      graph.edges.some((e) => e.from === joinEdge.to && e.kind === 'waitsOn' && e.to === crawl.awaiting?.resourceId),
    );
    assert.deepEqual(graph.deadlocks, []);

    // Requests that need a paused loop or a known task.
    await rejectsWith(host.rpc.request('stepTask', { taskId: 987654 }), 'unknownTask');
    await rejectsWith(host.rpc.request('variables', { handle: 987654 }), 'badRequest', /unknown or expired/);

    // Step that worker until it suspends again.
    const before = (await host.rpc.request('snapshot', {})).tasks.find((t) => t.id === worker.id)!;
    await host.rpc.request('stepTask', { taskId: worker.id });
    const afterStep = (await host.rpc.request('snapshot', {})).tasks.find((t) => t.id === worker.id)!;
    assert.equal(afterStep.steps, before.steps + 1);

    // Continue: the crawl runs to its end; the report comes as output, then `finished`.
    const continued = host.events.length;
    await host.rpc.request('continue', {});
    await host.waitFor('continued', () => true, 5000, continued);
    await rejectsWith(host.rpc.request('stepTick', {}), 'notPaused');
    const finished = await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    assert.equal(finished.ok, true, finished.summary);
    assert.match(host.output('stdout'), /UnknownCharsetError/);
    assert.match(host.output('stdout'), /\/broken\//);
    const progress = host.eventsOf('progress');
    assert.ok(progress.length > 0, 'progress events during the crawl');
    // Every page finished is listed once in some progress event's `recent`.
    const recent = progress.flatMap((p) => p.recent ?? []);
    assert.equal(recent.length, progress.at(-1)!.done);
    assert.ok(recent.some((r) => r.url.endsWith('/broken/') && /UnknownCharsetError/.test(r.error ?? '')));
    assert.ok(recent.some((r) => r.status === 200 && r.error === undefined));
    assert.ok(host.eventsOf('taskCreated').length >= 11 && host.eventsOf('taskFinished').length >= 11);
    // The finished run still answers from its history.
    const last = await host.rpc.request('snapshot', {});
    assert.ok(last.tasks.some((t) => t.name === 'crawl' && t.state === 'done'));
    // The workers catch the CancelledError and return: done, and cancelled by the crawl task.
    const ended = last.tasks.filter((t) => t.name.startsWith('worker-'));
    assert.equal(ended.length, 10);
    for (const w of ended) {
      assert.equal(w.state, 'done');
      assert.deepEqual(w.cancelledBy, { kind: 'task', taskId: crawl.id }, `${w.name} was cancelled by crawl`);
    }
  });

  test('traces of a run are its own failure, on its own site, even once it has finished; none before a URL fails', async () => {
    const from = host.events.length;
    const launched = await launch({
      target: { kind: 'demo', latency: 'instant' },
      options: { stopOnEntry: true, maxTasks: 5 },
    });
    await rejectsWith(host.rpc.request('traces', {}), 'noFailure', /no URL has failed in run \d+ yet/);
    await host.rpc.request('continue', {});
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    const pair = await host.rpc.request('traces', {});
    assert.equal(pair.runId, launched.runId);
    assert.equal(pair.url, new URL('/broken/', launched.siteUrl).href, "the failing page of this run's own site");
    assert.match(pair.coroutine.error, /^UnknownCharsetError: /);
    assert.ok(
      pair.callback.frames.some((f) => f.name === 'decodeBody'),
      'the callback stage fetched the same page on the same site',
    );
  });

  test('traces: the broken page’s coroutine traceback names the whole chain; the callback one lacks it', async () => {
    const pair = await host.rpc.request('traces', {});
    const names = pair.coroutine.frames.filter((f) => f.kind !== 'loop' && f.kind !== 'native').map((f) => f.name);
    assert.deepEqual(names, ['work', 'fetch', 'parseLinks', 'extractLinks', 'decodeBody']);
    const cb = pair.callback.frames.map((f) => f.name);
    for (const n of ['work', 'fetch', 'parseLinks']) assert.ok(!cb.includes(n), `the callback trace lacks ${n}`);
    assert.ok(cb.includes('readResponse') && cb.includes('decodeBody'));
    assert.match(pair.coroutine.error, /^UnknownCharsetError: /);
    assert.match(pair.coroutine.text, /Traceback \(most recent call last\)/);
  });

  test('a program: a failed task’s traceback crosses the tasks it awaited; a never-awaited coroutine is a lint', async () => {
    const from = host.events.length;
    const failingRun = await launch({ target: { kind: 'program', path: join(FIXTURES, 'failing.ts') }, options: {} });
    const finished = await host.waitFor('finished', (f) => f.runId === failingRun.runId, 20000, from);
    assert.equal(finished.ok, true, finished.summary);
    const exceptions = host.events
      .slice(from)
      .filter((e) => e.event === 'exception')
      .map(
        (e) =>
          e.body as { taskId: number; traceback: { title: string; frames: Array<{ name: string }>; error: string } },
      );
    const outer = exceptions.find((e) => e.traceback.title.includes('"outer-task"'));
    assert.ok(
      outer !== undefined,
      `an exception event for outer-task: ${exceptions.map((e) => e.traceback.title).join('; ')}`,
    );
    assert.equal(outer.traceback.error, 'RangeError: n must be 0, got 3');
    const chain = outer.traceback.frames.map((f) => f.name).filter((n) => ['outer', 'middle', 'inner'].includes(n));
    assert.deepEqual(chain, ['outer', 'middle', 'inner']);
    const lints = await host.rpc.request('lints', {});
    assert.ok(
      lints.lints.some((l) => l.kind === 'neverAwaited' && /forgotten/.test(l.message)),
      JSON.stringify(lints.lints),
    );
    const lintEvents = host.events.slice(from).filter((e) => e.event === 'lint');
    assert.ok(lintEvents.length > 0);
    assert.match(host.output('stdout'), /main saw RangeError/, 'what the program printed came as output');
    const failed = (await host.rpc.request('snapshot', {})).tasks.find((t) => t.name === 'outer-task');
    assert.equal(failed?.state, 'failed');
    assert.equal(failed?.outcome, 'RangeError: n must be 0, got 3');
    const detail = await host.rpc.request('taskDetail', { taskId: failed!.id });
    assert.ok(detail.traceback !== null && detail.traceback.frames.some((f) => f.name === 'inner'));
  });

  test('a tutorial sample runs on the run’s loop: held at entry, stepped, then to its end', async () => {
    const from = host.events.length;
    const sampleRun = await launch({ target: { kind: 'sample', id: 'crawler' }, options: { stopOnEntry: true } });
    await host.waitFor('paused', (p) => p.reason === 'entry', 10000, from);
    // The sample prepares (outside the loop) and then hands its main coroutine to the held loop.
    let snap = await host.rpc.request('snapshot', {});
    for (let i = 0; i < 200 && snap.tasks.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      snap = await host.rpc.request('snapshot', {});
    }
    assert.ok(snap.tasks.length > 0, 'the sample’s main task is on the host’s loop');
    assert.equal(snap.tick, 0, 'held before its first tick');
    for (let i = 0; i < 20; i++) await host.rpc.request('stepTick', {});
    snap = await host.rpc.request('snapshot', {});
    assert.equal(snap.tick, 20);
    assert.ok(snap.tasks.length > 1, 'the sample’s tasks run on the host’s loop');
    await host.rpc.request('continue', {});
    const finished = await host.waitFor('finished', (f) => f.runId === sampleRun.runId, 60000, from);
    assert.equal(finished.ok, true, finished.summary);
    assert.ok(
      host.events
        .slice(from)
        .some((e) => e.event === 'output' && (e.body as { category: string }).category === 'stdout'),
      'the sample’s lines came as output',
    );
  });

  test('a default demo crawl answers like a network: it lasts seconds, its workers suspended on their sockets most of the time', async () => {
    const from = host.events.length;
    const t0 = performance.now();
    const networkDemoRun = await launch({ target: { kind: 'demo' }, options: { maxTasks: 10 } });
    let samples = 0;
    let onIo = 0;
    let workers = 0;
    // Sampled from 1 s to 3 s in (the instant site's crawl is long over by then), and on until
    // five samples are taken: a busy machine answers fewer snapshots in those two seconds.
    await new Promise((r) => setTimeout(r, 1000));
    while (samples < 5 || performance.now() - t0 < 3000) {
      const snap = await host.rpc.request('snapshot', {});
      for (const t of snap.tasks) {
        if (!t.name.startsWith('worker-') || t.state !== 'suspended') continue;
        workers++;
        if (t.awaiting !== null && SOCKET_WAITS.test(t.awaiting.kind)) onIo++;
      }
      samples++;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(
      host.events.slice(from).filter((e) => e.event === 'finished').length,
      0,
      'the crawl was over within 3 s, or before its fifth sample',
    );
    assert.ok(samples >= 5 && workers >= samples * 8, `${workers} suspended workers in ${samples} snapshots`);
    assert.ok(onIo / workers >= 0.6, `only ${onIo} of ${workers} suspended workers were on a socket`);
    await host.rpc.request('stop', {});
    await host.waitFor('finished', (f) => f.runId === networkDemoRun.runId, 10000, from);
  });

  test("a crawl's elapsed seconds (the dashboard's elapsed and rate) leave out the time it was paused", async () => {
    const from = host.events.length;
    const pausedDemoRun = await launch({ target: { kind: 'demo' }, options: { maxTasks: 10 } });
    await new Promise((r) => setTimeout(r, 800));
    await host.rpc.request('pause', {});
    const s1 = (await host.rpc.request('snapshot', {})).progress!;
    await new Promise((r) => setTimeout(r, 1200));
    const s2 = (await host.rpc.request('snapshot', {})).progress!;
    // The loop's clock stands still while a view holds it (runtime/clock.ts): elapsed and rate are
    // the same numbers, exactly, however long the pause and however loaded the machine.
    assert.equal(s2.seconds, s1.seconds, 'elapsed went on while paused');
    assert.equal(s2.done, s1.done);
    assert.equal(s2.rate, s1.rate, 'the rate fell while paused');
    await host.rpc.request('continue', {});
    await new Promise((r) => setTimeout(r, 500));
    const s3 = (await host.rpc.request('snapshot', {})).progress!;
    assert.ok(
      s3.seconds > s2.seconds,
      `elapsed did not go on after continue: ${s2.seconds.toFixed(3)} s, then ${s3.seconds.toFixed(3)} s`,
    );
    await host.rpc.request('stop', {});
    await host.waitFor('finished', (f) => f.runId === pausedDemoRun.runId, 10000, from);
  });

  test('a realistic demo crawl paused longer than its request timeout and continued: the report of an unpaused crawl, every URL fetched on its first try', async () => {
    // What a 60 s pause does to the default 15 s read timeout, in CI time: each request may
    // take 3 s in all (launch option `timeout`), the host's pause holds the crawl 5 s, and
    // with maxTries 1 a request that timed out is a failure in the report (no second try).
    const options = { maxTasks: 10, timeout: 3, maxTries: 1 };
    const reportOf = async (
      pauseMs: number,
    ): Promise<{ report: string; inFlightAtPause: number; elapsed: number; wall: number }> => {
      const from = host.events.length;
      const t0 = performance.now();
      const run = await launch({ target: { kind: 'demo', pages: 30, latency: 'realistic' }, options });
      let inFlightAtPause = 0;
      if (pauseMs > 0) {
        // Paused once the workers are fetching pages (not while the crawl reads robots.txt).
        for (
          let polls = 0;
          polls < 400 && ((await host.rpc.request('snapshot', {})).progress?.inFlight ?? 0) < 5;
          polls++
        )
          await new Promise((r) => setTimeout(r, 25));
        await host.rpc.request('pause', {});
        inFlightAtPause = (await host.rpc.request('snapshot', {})).progress?.inFlight ?? 0;
        await new Promise((r) => setTimeout(r, pauseMs));
        await host.rpc.request('continue', {});
      }
      const finished = await host.waitFor('finished', (f) => f.runId === run.runId, 60000, from);
      assert.equal(finished.ok, true, finished.summary);
      const wall = (performance.now() - t0) / 1000;
      const out = host.events
        .slice(from)
        .filter((e) => e.event === 'output' && (e.body as HostEvents['output']).category === 'stdout')
        .map((e) => (e.body as HostEvents['output']).text)
        .join('');
      const report = out.slice(out.indexOf('*** Report ***'));
      const elapsed = Number(/^Finished \d+ urls in ([\d.]+) secs/m.exec(report)?.[1]);
      return { report, inFlightAtPause, elapsed, wall };
    };
    // The same crawl either way but for its site's port, its time and the order pages were
    // crawled in (which page first found a link: its "new" count).
    const comparable = (report: string): string =>
      report
        .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'SITE')
        .replace(/; \d+\/(\d+) new urls/g, '; $1 urls')
        .replace(/^Finished (\d+) urls in .*$/m, 'Finished $1 urls');
    const unpaused = await reportOf(0);
    const paused = await reportOf(5000);
    assert.ok(
      paused.inFlightAtPause >= 5,
      `requests were in flight when the crawl was paused (${paused.inFlightAtPause})`,
    );
    assert.deepEqual(
      paused.report.split('\n').filter((l) => /Timeout/.test(l)),
      [],
      'no request timed out',
    );
    assert.equal(comparable(paused.report), comparable(unpaused.report));
    assert.match(unpaused.report, /^Finished [1-9]\d+ urls/m);
    assert.ok(
      paused.elapsed < paused.wall - 4.5,
      `the crawl's ${paused.elapsed} s leave out the 5 s pause (${paused.wall.toFixed(3)} s of wall time)`,
    );
  });

  test('a sample with a loop of its own is held at entry by not starting it: it runs on continue', async () => {
    const from = host.events.length;
    const launched = await launch({ target: { kind: 'sample', id: 'timers-loop' }, options: { stopOnEntry: true } });
    assert.equal(launched.heldAtEntry, true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(
      host.events
        .slice(from)
        .some((e) => e.event === 'output' && (e.body as { category: string }).category === 'stdout'),
      false,
      'the sample ran while held',
    );
    assert.equal(
      host.events.slice(from).some((e) => e.event === 'finished'),
      false,
    );
    await host.rpc.request('continue', {});
    const finished = await host.waitFor('finished', (f) => f.runId === launched.runId, 60000, from);
    assert.equal(finished.ok, true, finished.summary);
    const held = await launch({ target: { kind: 'sample', id: 'generators' }, options: { stopOnEntry: true } });
    assert.equal(held.heldAtEntry, true);
    await host.rpc.request('stop', {});
  });

  test('every sample is paused at entry: held, nothing printed, no loop of its own running, until continue', async () => {
    const { samples } = await host.rpc.request('samples', {});
    assert.equal(samples.length, 13);
    for (const s of samples) {
      const from = host.events.length;
      const launched = await launch({ target: { kind: 'sample', id: s.id }, options: { stopOnEntry: true } });
      assert.equal(launched.heldAtEntry, true, s.id);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const snap = await host.rpc.request('snapshot', {});
      assert.equal(snap.paused, true, s.id);
      assert.equal(snap.tick, 0, s.id);
      const printed = host.events
        .slice(from)
        .filter((e) => e.event === 'output' && (e.body as { category: string }).category === 'stdout');
      assert.deepEqual(printed, [], `${s.id} printed before its first tick`);
      assert.deepEqual(
        (await host.rpc.request('programLoops', {})).loops,
        [],
        `${s.id} runs a loop of its own while held`,
      );
      await host.rpc.request('stop', {});
      await host.waitFor('finished', (f) => f.runId === launched.runId, 20000, from);
    }
  });

  test('exception breaks (failed task, failed URL) and line breakpoints set through the protocol pause the run', async () => {
    await host.rpc.request('setExceptionBreaks', { taskFailed: true, taskCancelled: false });
    let from = host.events.length;
    const failingRun = await launch({ target: { kind: 'program', path: join(FIXTURES, 'failing.ts') }, options: {} });
    const paused = await host.waitFor('paused', (p) => p.reason === 'exception', 10000, from);
    assert.equal(paused.description, `Task #${paused.taskId} "middle-task" failed: RangeError: n must be 0, got 3`);
    const snap = await host.rpc.request('snapshot', {});
    assert.equal(snap.paused, true);
    assert.equal(snap.tasks.find((t) => t.id === paused.taskId)?.state, 'failed');
    await host.rpc.request('setExceptionBreaks', { taskFailed: false, taskCancelled: false });
    await host.rpc.request('continue', {});
    await host.waitFor('finished', (f) => f.runId === failingRun.runId, 10000, from);

    // `urlFailed` (beyond the protocol's params): stop where the crawler records a URL as failed.
    await host.rpc.request('setExceptionBreaks', { taskFailed: false, taskCancelled: false, urlFailed: true } as never);
    from = host.events.length;
    const demoRun = await launch({ target: { kind: 'demo', latency: 'instant' }, options: { maxTasks: 5 } });
    let broken: HostEvents['paused'] | null = null;
    for (let i = 0; i < 20 && broken === null; i++) {
      const p = await host.waitFor('paused', (x) => x.reason === 'exception', 20000, from);
      from = host.events.length;
      if (p.url === `${demoRun.siteUrl}broken/`) broken = p;
      else await host.rpc.request('continue', {});
    }
    assert.ok(broken !== null && broken.taskId !== undefined, 'stopped at the broken page');
    const exception = host
      .eventsOf('exception')
      .find((x) => x.taskId === broken!.taskId && /broken/.test(x.traceback.title));
    assert.ok(exception !== undefined, 'its traceback came first');
    // The stopped task's error, its page named, in a worker's chain (work → fetch → parseLinks).
    assert.equal(
      exception.traceback.error,
      `UnknownCharsetError: unknown charset "x-coroscope-unknown" declared by ${demoRun.siteUrl}broken/`,
    );
    assert.deepEqual(
      exception.traceback.frames.filter((f) => f.kind === 'coroutine').map((f) => f.name),
      ['work', 'fetch', 'parseLinks'],
    );
    await host.rpc.request('setExceptionBreaks', { taskFailed: false, taskCancelled: false });
    await host.rpc.request('continue', {});
    await host.waitFor('finished', (f) => f.runId === demoRun.runId, 30000, from);

    // A breakpoint on work's `yield* this.fetch(...)`, set before the launch.
    const crawlerTs = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
    const lines = readFileSync(crawlerTs, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('yield* this.fetch(item.url')) + 1;
    const set = await host.rpc.request('setBreakpoints', {
      file: crawlerTs,
      breakpoints: [
        { file: crawlerTs, line },
        { file: crawlerTs, line: 2 },
      ],
    });
    assert.deepEqual(
      set.breakpoints.map((b) => [b.line, b.verified]),
      [
        [line, true],
        [2, false],
      ],
    );
    from = host.events.length;
    let breakpointRun: HostMethods['launch']['result'];
    try {
      breakpointRun = await launch({ target: { kind: 'demo', latency: 'instant' }, options: { maxTasks: 5 } });
      const hit = await host.waitFor('paused', (p) => p.reason === 'breakpoint', 10000, from);
      const detail = await host.rpc.request('taskDetail', { taskId: hit.taskId!, locals: false });
      const top = detail.frames[0]!;
      assert.deepEqual([top.name, top.position?.file, top.position?.line], ['work', crawlerTs, line]);
    } finally {
      // Cleared even when the test fails: a later test's crawl must not stop on it.
      await host.rpc.request('setBreakpoints', { file: crawlerTs, breakpoints: [] });
    }
    await host.rpc.request('continue', {});
    const finished = await host.waitFor('finished', (f) => f.runId === breakpointRun.runId, 30000, from);
    assert.equal(finished.ok, true);
  });

  test('an uncaught error in the host is reported as stderr output, and the host stays up', async () => {
    const from = host.events.length;
    await host.rpc.request('evaluate', {
      expression: "setTimeout(() => { throw new Error('boom from a timer'); }, 0) && 'scheduled'",
    });
    await host.waitFor('output', (o) => o.category === 'stderr' && o.text.includes('boom from a timer'), 5000, from);
    const hello = await host.rpc.request('hello', { client: 'after-boom', protocolVersion: PROTOCOL_VERSION });
    assert.equal(hello.pid, host.child.pid);
  });

  test('a program whose tasks await each other: the graph reports the deadlock; stop ends the run', async () => {
    const from = host.events.length;
    const deadlockRun = await launch({
      target: { kind: 'program', path: join(FIXTURES, 'failing.ts'), exportName: 'deadlock' },
      options: {},
    });
    let graph = await host.rpc.request('graph', {});
    for (let i = 0; i < 50 && graph.deadlocks.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      graph = await host.rpc.request('graph', {});
    }
    assert.equal(graph.deadlocks.length, 1, JSON.stringify(graph.deadlocks));
    assert.match(graph.deadlocks[0]!.reason, /cycle of tasks awaiting each other/);
    const ids = graph.deadlocks[0]!.nodes;
    const labels = ids.map((id) => graph.nodes.find((n) => n.id === id)?.label ?? id);
    assert.ok(
      labels.some((l) => l.endsWith(' A')) &&
        labels.some((l) => l.endsWith(' B')) &&
        labels.some((l) => l.endsWith(' deadlock')),
      labels.join(', '),
    );
    await host.rpc.request('stop', {});
    const finished = await host.waitFor('finished', (f) => f.runId === deadlockRun.runId, 10000, from);
    assert.equal(finished.ok, false);
    assert.equal(finished.summary, 'stopped: deadlock was cancelled');
  });

  test('cancelTask says who asks: the snapshot attributes the cancel to the inspector or the debugger, not to unknown', async () => {
    const from = host.events.length;
    await host.rpc.request('launch', {
      target: { kind: 'demo', latency: 'instant' },
      options: { stopOnEntry: true, maxTasks: 3 },
    });
    await host.waitFor('paused', (p) => p.reason === 'entry', 5000, from);
    for (let i = 0; i < 5; i++) await host.rpc.request('stepTick', {});
    const workers = (await host.rpc.request('snapshot', {})).tasks.filter((t) => t.name.startsWith('worker-'));
    assert.equal(workers.length, 3);
    const [a, b] = workers as [TaskSummary, TaskSummary];
    await rejectsWith(
      host.rpc.request('cancelTask', { taskId: a.id } as never),
      'badRequest',
      /cancelTask: params\.by must be a string, got nothing/,
    );
    await rejectsWith(
      host.rpc.request('cancelTask', { taskId: a.id, by: 'someone' } as never),
      'badRequest',
      /params\.by must be one of 'inspector', 'debugger', 'cli'/,
    );
    assert.deepEqual(await host.rpc.request('cancelTask', { taskId: a.id, by: 'inspector' }), { cancelled: true });
    assert.deepEqual(await host.rpc.request('cancelTask', { taskId: b.id, by: 'debugger' }), { cancelled: true });
    // Said as soon as asked: the paused loop has not let the workers take their CancelledError yet.
    const asked = (await host.rpc.request('snapshot', {})).tasks;
    assert.deepEqual(
      asked.filter((t) => t.id === a.id || t.id === b.id).map((t) => [t.state, t.cancelledBy]),
      [
        ['suspended', { kind: 'inspector' }],
        ['suspended', { kind: 'debugger' }],
      ],
    );
    let ended: TaskSummary[] = [];
    for (let i = 0; i < 50 && ended.length < 2; i++) {
      await host.rpc.request('stepTick', {});
      ended = (await host.rpc.request('snapshot', {})).tasks.filter(
        (t) =>
          (t.id === a.id || t.id === b.id) &&
          t.state !== 'suspended' &&
          t.state !== 'scheduled' &&
          t.state !== 'running',
      );
    }
    assert.equal(ended.length, 2, 'both cancelled workers ended');
    assert.deepEqual(ended.find((t) => t.id === a.id)?.cancelledBy, { kind: 'inspector' });
    assert.deepEqual(ended.find((t) => t.id === b.id)?.cancelledBy, { kind: 'debugger' });
    await host.rpc.request('stop', {});
    await host.waitFor('finished', () => true, 10000, from);
  });

  test('stop says who asks: every task of the stopped run is attributed to that view', async () => {
    const from = host.events.length;
    const stopped = await host.rpc.request('launch', {
      target: { kind: 'demo', latency: 'instant' },
      options: { stopOnEntry: true, maxTasks: 3 },
    });
    await host.waitFor('paused', (p) => p.reason === 'entry', 5000, from);
    for (let i = 0; i < 5; i++) await host.rpc.request('stepTick', {});
    await rejectsWith(
      host.rpc.request('stop', { by: 'someone' } as never),
      'badRequest',
      /stop: params\.by must be one of 'inspector', 'debugger', 'cli'/,
    );
    await host.rpc.request('stop', { by: 'debugger' });
    await host.waitFor('finished', (f) => f.runId === stopped.runId, 10000, from);
    const tasks = (await host.rpc.request('snapshot', {})).tasks;
    assert.ok(tasks.length >= 4, `crawl and its workers: ${tasks.map((t) => t.name).join(', ')}`);
    // The chapter's workers catch the CancelledError and return: their cancel is still attributed.
    assert.equal(tasks.find((t) => t.name === 'crawl')?.state, 'cancelled');
    for (const t of tasks) assert.deepEqual(t.cancelledBy, { kind: 'debugger' }, `${t.name} #${t.id} (${t.state})`);
  });
});

// The measurement on a host of its own: its CPU bound counts the host's whole process, so nothing of the file's
// earlier runs may be in it. The 10k waiters on an Event nobody sets are a deadlock, and its report once read
// where each of them waits (3.4 s of the host's CPU, right when the snapshots were measured): now the first few.
describe('runtime host over IPC (from source), measured on a host of its own', () => {
  let host: HostClient;
  async function launch(params: HostMethods['launch']['params']): Promise<HostMethods['launch']['result']> {
    return host.rpc.request('launch', params);
  }
  before(() => {
    host = forkHost();
  });
  after(async () => {
    await host.close();
  });

  test('measured: a full snapshot of 10k tasks, and frames with locals of one task, as protocol round trips', async () => {
    const from = host.events.length;
    const manyTasksRun = await launch({
      target: { kind: 'program', path: join(FIXTURES, 'many-tasks.ts') },
      options: {},
    });
    let snap = await host.rpc.request('snapshot', {});
    for (let i = 0; i < 200 && snap.counts.suspended < 10001; i++) {
      await new Promise((r) => setTimeout(r, 20));
      snap = await host.rpc.request('snapshot', {});
    }
    assert.equal(snap.counts.suspended, 10001, JSON.stringify(snap.counts));
    // The 10k waiters are a deadlock, reported with where its first tasks wait, the rest counted: where each
    // of them waited was once read through the inspector, seconds of the host's CPU.
    const report = await host.waitFor('exception', (e) => e.deadlock !== undefined, 20000, from);
    assert.equal(report.traceback.frames.length, DEADLOCK_TASKS_LISTED);
    assert.match(report.traceback.text ?? '', /… and 99\d\d more tasks of this deadlock$/);
    for (let i = 0; i < 3; i++) await host.rpc.request('snapshot', {}); // warm-up (JIT)
    const full: number[] = [];
    const rounds = 9;
    const hostCpu0 = processCpuMs(host.child.pid!);
    const ownCpu0 = ownCpuMs();
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const s = await host.rpc.request('snapshot', {});
      full.push(performance.now() - t0);
      assert.equal(s.tasks.length, 10001);
    }
    // CPU per snapshot, host and client together: what wall time would be on an idle machine.
    const hostCpu1 = processCpuMs(host.child.pid!);
    const cpuPerSnapshot =
      hostCpu0 === null || hostCpu1 === null ? null : (hostCpu1 - hostCpu0 + ownCpuMs() - ownCpu0) / rounds;
    // Its peer, measured in this run: the CPU of one JSON round trip of the same snapshot (what
    // its IPC costs at the least), so the bound holds on a slower machine as on this one.
    const lastSnapshot = await host.rpc.request('snapshot', {});
    const jsonCpu0 = ownCpuMs();
    for (let i = 0; i < rounds; i++) JSON.parse(JSON.stringify(lastSnapshot));
    const jsonPerSnapshot = (ownCpuMs() - jsonCpu0) / rounds;
    const delta: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const s = await host.rpc.request('snapshot', { since: snap.version });
      delta.push(performance.now() - t0);
      assert.equal(s.full, false);
    }
    const waiter = snap.tasks.find((t) => t.name === 'waiter-5000')!;
    await host.rpc.request('taskDetail', { taskId: waiter.id, locals: true });
    const detail = await timedRounds(async () => {
      const d = await host.rpc.request('taskDetail', { taskId: waiter.id, locals: true });
      assert.deepEqual(
        d.frames.map((f) => f.name),
        ['waiter', 'wait'],
      );
      assert.equal(d.frames[0]!.locals.find((l) => l.name === 'i')?.value, '5000');
    }, 20);
    process.stdout.write(
      `# measured over IPC: full snapshot of 10001 tasks: median ${median(full).toFixed(1)} ms (min ${Math.min(...full).toFixed(1)}; CPU host+client ${cpuPerSnapshot === null ? 'n/a' : cpuPerSnapshot.toFixed(1)} ms per snapshot, ${cpuPerSnapshot === null ? 'n/a' : (cpuPerSnapshot / jsonPerSnapshot).toFixed(1)} times a JSON round trip of it, ${jsonPerSnapshot.toFixed(1)} ms); ` +
        `delta snapshot: median ${median(delta).toFixed(1)} ms; taskDetail with locals (2 frames): median ${median(detail).toFixed(2)} ms (min ${Math.min(...detail).toFixed(2)} over ${detail.length} rounds)\n`,
    );
    // The targets are 50 ms and 5 ms. Wall times swing with the machine's load (other suites
    // run beside this one), so the snapshot is held to its CPU cost (host and client) against
    // its peer's, and the wall-time bounds only catch what no load explains.
    // 50 ms is about 3.5 JSON round trips of the snapshot here (2.5 to 4.4 measured): twice that at most.
    if (cpuPerSnapshot !== null)
      assert.ok(
        cpuPerSnapshot <= 7 * jsonPerSnapshot,
        `CPU per full snapshot ${cpuPerSnapshot.toFixed(1)} ms, ${(cpuPerSnapshot / jsonPerSnapshot).toFixed(1)} times a JSON round trip of it (${jsonPerSnapshot.toFixed(1)} ms)`,
      );
    assert.ok(Math.min(...full) <= 400, `full snapshot best ${Math.min(...full).toFixed(1)} ms`);
    assert.ok(Math.min(...detail) <= 20, `taskDetail best ${Math.min(...detail).toFixed(2)} ms`);
    await host.rpc.request('stop', {});
    await host.waitFor('finished', (f) => f.runId === manyTasksRun.runId, 10000, from);
  });
});

describe('runtime host lifecycle', () => {
  test('the host exits cleanly when its parent’s channel goes away', async () => {
    const host = forkHost();
    await host.rpc.request('hello', { client: 'lifecycle', protocolVersion: PROTOCOL_VERSION });
    await host.rpc.request('launch', {
      target: { kind: 'demo', latency: 'instant' },
      options: { stopOnEntry: true, maxTasks: 3 },
    });
    host.child.disconnect();
    const code = await Promise.race([host.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 8000))]);
    if (code === 'timeout') host.child.kill('SIGKILL');
    assert.equal(code, 0);
  });

  test('frames read from the esbuild bundle map back to TypeScript through its source map', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coroscope-host-'));
    const bundle = join(dir, 'runtime-host.js');
    await build({
      entryPoints: [HOST_SOURCE],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      sourcemap: true,
      keepNames: true,
      logLevel: 'silent',
      absWorkingDir: ROOT,
    });
    const host = forkHost({ bundle });
    try {
      await host.rpc.request('hello', { client: 'bundle', protocolVersion: PROTOCOL_VERSION });
      const { siteUrl } = await host.rpc.request('launch', {
        target: { kind: 'demo', latency: 'instant' },
        options: { stopOnEntry: true, maxTasks: 4 },
      });
      const { worker } = await stepUntilBusyWorker(host);
      const detail = await host.rpc.request('taskDetail', { taskId: worker.id, locals: true });
      assert.deepEqual(
        detail.frames.slice(0, 2).map((f) => [f.name, basename(f.position?.file ?? '')]),
        [
          ['work', 'crawler.ts'],
          ['fetch', 'crawler.ts'],
        ],
      );
      for (const f of detail.frames) assert.match(f.generated?.file ?? '', /runtime-host\.js$/);
      assert.ok(detail.frames[0]!.position!.file.startsWith(join(ROOT, 'runtime')), detail.frames[0]!.position!.file);
      // No URL has failed yet in this run: the pair of its site's failing page, asked by URL.
      const pair = await host.rpc.request('traces', { url: siteUrl! });
      assert.ok(
        pair.coroutine.frames.some(
          (f) => f.name === 'parseLinks' && f.position !== null && basename(f.position.file) === 'crawler.ts',
        ),
      );
      await host.rpc.request('stop', {});
      // A TypeScript program (loaded through tsx's API) runs on the bundle's own runtime:
      // its `runtime/index` import is the host's.
      const from = host.events.length;
      await host.rpc.request('launch', {
        target: { kind: 'program', path: join(FIXTURES, 'failing.ts') },
        options: {},
      });
      const finished = await host.waitFor('finished', () => true, 20000, from);
      assert.equal(finished.ok, true, `${finished.summary} ${finished.error ?? ''}`);
      assert.ok(
        host.events.slice(from).some((e) => e.event === 'exception'),
        'its failed tasks were seen',
      );
    } finally {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
