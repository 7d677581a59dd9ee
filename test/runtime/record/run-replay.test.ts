// Record a run on real loopback sockets and the real clock, take the world away (the server
// closed), replay it: the replayed run must do and print the same, and its event log must
// equal the recorded one. A replay of another program fails clearly instead of hanging.
import { getRandomValues, randomBytes, randomFillSync, randomInt, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { EventLoop } from '../../../runtime/loop';
import { coroutine } from '../../../runtime/coroutine';
import { sleep } from '../../../runtime/sleep';
import { gather } from '../../../runtime/gather';
import { openConnection } from '../../../runtime/streams';
import { getRunningLoop } from '../../../runtime/running-loop';
import { CancelledError } from '../../../runtime/errors';
import type { Coroutine } from '../../../runtime/task';
import { Crawler } from '../../../runtime/crawler/crawler';
import { startDemoSite } from '../../../runtime/demo-site/index';
import { RunRecorder, type RecordedStreams } from '../../../runtime/record/run-recorder';
import { RunReplay } from '../../../runtime/record/run-replay';
import { readRunLog } from '../../../runtime/record/run-log';
import { ReplayDivergedError } from '../../../runtime/record/recording-errors';

type Program<T> = () => Coroutine<T>;

async function record<T>(program: Program<T>): Promise<{ result: T; streams: RecordedStreams }> {
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  try {
    const result = await loop.runUntilComplete(program());
    return { result, streams: rec.finish() };
  } finally {
    rec.detach();
    loop.close();
  }
}

async function replay<T>(streams: RecordedStreams, program: Program<T>): Promise<{ result: T; replay: RunReplay }> {
  const log = readRunLog(streams.events, streams.gaps, streams.payload, 'test.corotrace');
  const r = new RunReplay(log, streams.events, 'test.corotrace');
  const loop = new EventLoop({ clock: r.clock });
  r.attach(loop);
  try {
    const result = await loop.runUntilComplete(program());
    r.verify();
    return { result, replay: r };
  } finally {
    r.detach();
    loop.close();
  }
}

/**
 * A program that reads values from outside the loop: replayed a moment later (time goes on, generators draw
 * other numbers), it gives the recorded run's `result` and verifies; run unrecorded, Node's own values again.
 */
async function readsAsRecorded<T>(program: Program<T>, result: T, streams: RecordedStreams): Promise<void> {
  await new Promise((r) => setTimeout(r, 20));
  const again = await replay(streams, program);
  assert.deepEqual(again.result, result);
  again.replay.verify();
  const loop = new EventLoop();
  try {
    assert.notDeepEqual(await loop.runUntilComplete(program()), result);
  } finally {
    loop.close();
  }
}

/**
 * A line server: answers each line with the line's length and the server's own counter (state the replay
 * cannot see).
 */
function startLineServer(): Promise<{ server: Server; port: number }> {
  let served = 0;
  const server = createServer((conn) => {
    let buffered = '';
    conn.on('data', (d) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line === 'bye') conn.end();
        else setTimeout(() => conn.write(`${line.length}:${++served}\n`), Math.floor(Math.random() * 5));
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port })),
  );
}

const talk = coroutine(function* talk(port: number, who: string, lines: number): Coroutine<string[]> {
  const [reader, writer] = yield* openConnection('127.0.0.1', port);
  const answers: string[] = [];
  for (let i = 0; i < lines; i++) {
    writer.write(Buffer.from(`${who}-${'x'.repeat(i)}\n`));
    const answer = (yield* reader.readline()).toString().trim();
    answers.push(`${who}@${getRunningLoop().time().toFixed(6)}=${answer}`);
    yield* sleep(0.001 * (answer.length % 3));
  }
  writer.write(Buffer.from('bye\n'));
  const eof = yield* reader.read(100);
  answers.push(`${who} eof ${eof.length}`);
  writer.close();
  return answers;
});

const clients = (port: number, extraSleep = 0): Program<string[]> =>
  coroutine(function* clients(): Coroutine<string[]> {
    const loop = getRunningLoop();
    const deadline = loop.time() + 10;
    const ticker = loop.createTask(
      coroutine(function* ticker(): Coroutine<void> {
        for (;;) yield* sleep(0.002);
      })(),
      { name: 'ticker' },
    );
    const results = yield* gather(talk(port, 'a', 6), talk(port, 'b', 4), talk(port, 'c', 5));
    if (extraSleep > 0) yield* sleep(extraSleep);
    ticker.cancel();
    try {
      yield* ticker;
    } catch (e) {
      if (!(e instanceof CancelledError)) throw e;
    }
    return [...results.flat(), `left ${deadline - loop.time() > 0}`];
  });

test('a run of clients on loopback sockets replays with the server gone: same results, same event log', async () => {
  const { server, port } = await startLineServer();
  let recorded: { result: string[]; streams: RecordedStreams };
  try {
    recorded = await record(clients(port));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  assert.equal(recorded.result.length, 6 + 4 + 5 + 3 + 1);
  assert.ok(
    recorded.streams.ticks > 10 && recorded.streams.steps > 20 && recorded.streams.sockets === 3,
    JSON.stringify({ ...recorded.streams, events: undefined, payload: undefined, gaps: undefined }),
  );
  for (let i = 0; i < 2; i++) {
    const replayed = await replay(recorded.streams, clients(port));
    assert.deepEqual(replayed.result, recorded.result);
    assert.equal(replayed.replay.ticksReplayed, recorded.streams.ticks);
  }
});

test('a connection refused is recorded and replays as the same error', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const program: Program<string> = coroutine(function* refused(): Coroutine<string> {
    try {
      yield* openConnection('127.0.0.1', port);
      return 'connected?';
    } catch (e) {
      return `${(e as Error).name}: ${(e as Error).message}`;
    }
  });
  const recorded = await record(program);
  assert.match(recorded.result, /ConnectionRefusedError/);
  const replayed = await replay(recorded.streams, program);
  assert.equal(replayed.result, recorded.result);
});

test('a replay of another program fails with ReplayDivergedError, never hangs', async () => {
  const { server, port } = await startLineServer();
  let recorded: { result: string[]; streams: RecordedStreams };
  try {
    recorded = await record(clients(port));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  // The same program, but one more timer at the end: it asks for ticks the recording lacks.
  await assert.rejects(
    replay(recorded.streams, clients(port, 0.05)),
    (e: unknown) => e instanceof ReplayDivergedError && /test\.corotrace/.test(e.message),
  );
  // A program that opens no socket at all: its log differs from the first tick on.
  const quiet: Program<string[]> = coroutine(function* quiet(): Coroutine<string[]> {
    for (let i = 0; i < 3; i++) yield* sleep(0.001);
    return [];
  });
  await assert.rejects(replay(recorded.streams, quiet), ReplayDivergedError);
});

test('stopAfterTick pauses the replayed loop right after that tick, with the tasks as they were', async () => {
  const { server, port } = await startLineServer();
  let recorded: { result: string[]; streams: RecordedStreams };
  try {
    recorded = await record(clients(port));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  const log = readRunLog(recorded.streams.events, recorded.streams.gaps, recorded.streams.payload, 'test.corotrace');
  const stopAt = Math.floor(log.times.length / 2);
  let seen: { tick: number; time: number; tasks: string[] } | null = null;
  const r = new RunReplay(log, recorded.streams.events, 'test.corotrace', {
    stopAfterTick: stopAt,
    onStop: (tick, loop) => {
      seen = { tick: loop.tickCount(), time: loop.time(), tasks: loop.allTasks().map((t) => t.name) };
      assert.equal(tick, stopAt);
    },
  });
  const loop = new EventLoop({ clock: r.clock });
  r.attach(loop);
  try {
    void loop.runUntilComplete(clients(port)());
    for (let i = 0; i < 100 && seen === null; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(seen !== null, 'the replay stopped');
    const at = seen as { tick: number; time: number; tasks: string[] };
    assert.equal(at.tick, stopAt);
    // Read between ticks: the tick's time, or a later reading recorded before the next tick.
    assert.ok(at.time >= log.times[stopAt - 1]! && at.time <= log.times[stopAt]!, `${at.time}`);
    assert.ok(at.tasks.includes('ticker'));
    assert.ok(loop.isPaused());
    r.verify();
    assert.equal(r.ticksReplayed, stopAt);
  } finally {
    r.detach();
  }
});

test('a crawl of the demo site replays with the site stopped to the identical report', async () => {
  const site = await startDemoSite({ pages: 40 });
  const crawl = (root: string): Program<string> =>
    coroutine(function* crawlSite(): Coroutine<string> {
      const crawler = new Crawler([root], { maxTasks: 20 });
      yield* crawler.crawl();
      return crawler.report();
    });
  let recorded: { result: string; streams: RecordedStreams };
  const root = site.url;
  try {
    recorded = await record(crawl(root));
  } finally {
    await site.close();
  }
  assert.match(recorded.result, /Finished \d+ urls/);
  const replayed = await replay(recorded.streams, crawl(root));
  assert.equal(replayed.result, recorded.result);
  // Cheap enough to keep on: a few bytes of event log per task step (the bodies apart).
  assert.ok(
    recorded.streams.events.length / recorded.streams.steps < 40,
    `${recorded.streams.events.length} bytes for ${recorded.streams.steps} steps`,
  );
});

test('one recording per loop, several loops at once; detach gives the loop its observer back', async () => {
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  const before = { tickStart: (): void => undefined };
  loop.setObserver(before);
  rec.attach(loop);
  assert.ok(loop.hasObserver(before) && loop.hasObserver(rec));
  assert.throws(() => rec.attach(loop), /being recorded already/);
  // Another loop (a replay beside a live recorded run) is recorded at the same time.
  const other = new RunRecorder();
  const otherLoop = new EventLoop({ clock: other.clock });
  other.attach(otherLoop);
  assert.throws(() => new RunRecorder().attach(new EventLoop()), /recorder's clock/);
  rec.finish();
  assert.ok(loop.hasObserver(before) && !loop.hasObserver(rec));
  other.detach();
  loop.close();
  otherLoop.close();
});

test('a recording taken mid-tick (openTick) replays its open tick too: the inputs fed before it and its time are in it', async () => {
  const { server, port } = await startLineServer();
  // A program that, at its 3rd answer on socket a, takes the recording then (mid-tick, as a line stop does).
  let taken: { streams: RecordedStreams; tick: number; answer: string } | null = null;
  let onAnswer: (answer: string, tick: number) => void = () => undefined;
  const probed = coroutine(function* probed(): Coroutine<void> {
    const [reader, writer] = yield* openConnection('127.0.0.1', port);
    for (let i = 0; i < 4; i++) {
      writer.write(Buffer.from(`${'y'.repeat(i + 1)}\n`));
      const answer = (yield* reader.readline()).toString().trim();
      if (i === 2) onAnswer(answer, getRunningLoop().tickCount());
    }
    writer.close();
  });
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  onAnswer = (answer, tick) => (taken = { streams: rec.streamsWithOpenTick(), tick, answer });
  try {
    await loop.runUntilComplete(probed());
  } finally {
    rec.detach();
    loop.close();
    await new Promise((resolve) => server.close(resolve));
  }
  const mid = taken!;
  assert.equal(mid.streams.openTick, true);
  assert.equal(mid.streams.ticks, mid.tick);
  // Without its flag the open tick is a corrupt log; with it, the tick is there to replay.
  assert.throws(
    () => readRunLog(mid.streams.events, mid.streams.gaps, mid.streams.payload, 'mid.corotrace'),
    /the last tick never ends/,
  );
  const log = readRunLog(mid.streams.events, mid.streams.gaps, mid.streams.payload, 'mid.corotrace', true);
  assert.equal(log.times.length, mid.tick);
  assert.equal(log.tickEnds.length, mid.tick - 1);
  let replayed: { answer: string; tick: number } | null = null;
  onAnswer = (answer, tick) => (replayed ??= { answer, tick });
  const r = new RunReplay(log, mid.streams.events, 'mid.corotrace', { stopAfterTick: mid.tick });
  const again = new EventLoop({ clock: r.clock });
  r.attach(again);
  const stopped = new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (again.isPaused() || replayed !== null) {
        clearInterval(check);
        resolve();
      }
    }, 1);
  });
  void again.runUntilComplete(probed()).catch(() => undefined);
  await stopped;
  assert.deepEqual(replayed, { answer: mid.answer, tick: mid.tick });
  r.checkSoFar();
  r.detach();
});

test('a cancel asked from outside the loop between ticks (a signal, a tool, a stop) is replayed before the same tick', async () => {
  const site = await startDemoSite({ pages: 60, latencyMs: 30 });
  const start = (loop: EventLoop): { crawler: Crawler; task: ReturnType<EventLoop['createTask']> } => {
    const crawler = new Crawler([site.url], { maxTasks: 3 });
    return { crawler, task: loop.createTask(crawler.crawl(), { name: 'crawl' }) };
  };
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const recorded = start(loop);
  // On Node's own loop, between two of the runtime loop's ticks, as a SIGINT handler runs.
  const timer = setTimeout(() => recorded.task.cancel(), 150);
  let streams: RecordedStreams;
  try {
    await assert.rejects(loop.runUntilComplete(recorded.task), CancelledError);
    streams = rec.finish();
  } finally {
    clearTimeout(timer);
    rec.detach();
    loop.close();
    await site.close();
  }
  assert.ok(
    recorded.crawler.interrupted !== null && recorded.crawler.interrupted.inFlight.length > 0,
    'cancelled mid-crawl',
  );
  const log = readRunLog(streams.events, streams.gaps, streams.payload, 'cancel.corotrace');
  assert.deepEqual(
    log.cancelsBefore.flat().map((c) => c.task),
    [1],
    'one cancel from outside: the crawl task (log number 1)',
  );

  const r = new RunReplay(log, streams.events, 'cancel.corotrace');
  const again = new EventLoop({ clock: r.clock });
  r.attach(again);
  try {
    const replayed = start(again);
    await assert.rejects(again.runUntilComplete(replayed.task), CancelledError);
    r.verify();
    assert.equal(replayed.crawler.report(), recorded.crawler.report());
  } finally {
    r.detach();
    again.close();
  }
});

test('a crawl paused mid-run for longer than its request timeout: no request times out, and the recording replays to the same report and log', async () => {
  // Each request may take 1 s in all (maxTries 1: a timeout is a failure in the report); the
  // loop is paused 1.5 s (wall) while requests are in flight, as the panel's pause does.
  const site = await startDemoSite({ pages: 60, latencyMs: 30 });
  const start = (loop: EventLoop): { crawler: Crawler; task: ReturnType<EventLoop['createTask']> } => {
    const crawler = new Crawler([site.url], { maxTasks: 3, maxTries: 1, session: { timeout: { total: 1 } } });
    return { crawler, task: loop.createTask(crawler.crawl(), { name: 'crawl' }) };
  };
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const recorded = start(loop);
  let inFlightAtPause = -1;
  const wall0 = performance.now();
  const pauseTimer = setTimeout(() => {
    loop.pause();
    inFlightAtPause = recorded.crawler.progress().inFlight;
    setTimeout(() => loop.resume(), 1500);
  }, 150);
  let streams: RecordedStreams;
  try {
    await loop.runUntilComplete(recorded.task);
    streams = rec.finish();
  } finally {
    clearTimeout(pauseTimer);
    rec.detach();
    loop.close();
    await site.close();
  }
  const wall = (performance.now() - wall0) / 1000;
  const report = recorded.crawler.report();
  assert.ok(inFlightAtPause > 0, `requests were in flight when the loop was paused (${inFlightAtPause})`);
  const timedOut = report.split('\n').filter((l) => /Timeout/.test(l));
  assert.deepEqual(timedOut, [], 'no request timed out');
  assert.match(report, /^\s+1 failures$/m, "the site's one broken page");
  assert.ok(
    recorded.crawler.elapsed() < wall - 1.4,
    `the crawl's ${recorded.crawler.elapsed().toFixed(3)} s of loop time leave out the 1.5 s pause (${wall.toFixed(3)} s of wall time)`,
  );

  const log = readRunLog(streams.events, streams.gaps, streams.payload, 'paused.corotrace');
  const r = new RunReplay(log, streams.events, 'paused.corotrace');
  const again = new EventLoop({ clock: r.clock });
  r.attach(again);
  try {
    const replayed = start(again);
    await again.runUntilComplete(replayed.task);
    r.verify();
    assert.equal(replayed.crawler.report(), report);
  } finally {
    r.detach();
    again.close();
  }
});

test("the tasks an open tick creates get the live run's ids and names in its replay, whatever the process counted since", async () => {
  // Mid-tick (a line stop), after the tick made three tasks: none of their CREATED records is in the streams.
  const made: Array<{ id: number; name: string }> = [];
  let taken: RecordedStreams | null = null;
  const idle = coroutine(function* idle(): Coroutine<void> {
    yield* sleep(0);
  });
  const program = coroutine(function* program(): Coroutine<void> {
    yield* sleep(0);
    const loop = getRunningLoop();
    for (const name of [undefined, 'named', undefined]) {
      const t = loop.createTask(idle(), name === undefined ? {} : { name });
      made.push({ id: t.id, name: t.getName() });
    }
    onMid();
    yield* sleep(0);
  });
  let onMid: () => void = () => undefined;
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  onMid = () => (taken ??= rec.streamsWithOpenTick());
  try {
    await loop.runUntilComplete(program());
  } finally {
    rec.detach();
    loop.close();
  }
  const mid = taken!;
  assert.ok(mid.openTickTasks !== undefined);
  const live = made.splice(0);
  // The process goes on counting (another run, a replay host's earlier replays).
  const elsewhere = new EventLoop();
  for (let i = 0; i < 3; i++) elsewhere.createTask(idle());
  await elsewhere.runUntilComplete(idle());
  elsewhere.close();

  const log = readRunLog(mid.events, mid.gaps, mid.payload, 'mid.corotrace', true, mid.openTickTasks);
  const r = new RunReplay(log, mid.events, 'mid.corotrace', { stopAfterTick: mid.ticks });
  const again = new EventLoop({ clock: r.clock });
  r.attach(again);
  onMid = () => undefined;
  void again.runUntilComplete(program()).catch(() => undefined);
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (made.length === 3) {
        clearInterval(check);
        resolve();
      }
    }, 1);
  });
  r.detach();
  assert.deepEqual(made, live);
  assert.deepEqual(
    live.map((t) => t.name),
    [`Task-${mid.openTickTasks.unnamed + 1}`, 'named', `Task-${mid.openTickTasks.unnamed + 2}`],
  );
});

test('what the program reads from outside the loop (random, clocks, dates) replays as the recorded run read it', async () => {
  // Read in every task step: a value that did not replay would show in the results, and would make the
  // replayed run branch otherwise (a sleep of a random length).
  const program = coroutine(function* reads(): Coroutine<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = Math.random();
      seen.push(`${r} ${Date.now()} ${performance.now()} ${new Date().toISOString()} ${Date()}`);
      yield* sleep(r / 100);
    }
    return seen;
  });
  const { result, streams } = await record(program);
  assert.equal(readRunLog(streams.events, streams.gaps, streams.payload, 'test.corotrace').readsIn.flat().length, 40);
  await readsAsRecorded(program, result, streams);
});

test("node:crypto's and Web Crypto's random values and process's clocks and usage replay as the run read them", async () => {
  // The shapes a program reads them in: ids, tokens, dice, timers, each form of each call.
  const program = coroutine(function* reads(): Coroutine<string[]> {
    const seen: string[] = [];
    let previous = process.hrtime();
    for (let i = 0; i < 3; i++) {
      const filled = randomFillSync(Buffer.alloc(7), 1, 5);
      const words = randomFillSync(new Uint16Array(4), 1, 2);
      seen.push(
        [
          randomUUID(),
          globalThis.crypto.randomUUID(),
          randomBytes(6).toString('hex'),
          Array.from(globalThis.crypto.getRandomValues(new Uint32Array(2))).join(','),
          Array.from(getRandomValues(new Uint8Array(3))).join(','),
          filled.toString('hex'),
          Array.from(words).join(','),
          randomInt(1000),
          randomInt(-5, 5),
          process.hrtime().join(','),
          process.hrtime(previous).join(','),
          process.hrtime.bigint(),
          process.uptime(),
          Object.values(process.cpuUsage()).join(','),
          Object.values(process.memoryUsage()).join(','),
          process.memoryUsage.rss(),
        ].join(' '),
      );
      previous = process.hrtime();
      yield* sleep(randomInt(3) / 1000);
    }
    return seen;
  });
  const { result, streams } = await record(program);
  assert.equal(result.length, 3);
  assert.match(result[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12} /);
  assert.match(result[0]!.split(' ')[5]!, /^00[0-9a-f]{10}00$/, 'randomFillSync filled bytes 1 to 5 only');
  assert.match(result[0]!.split(' ')[6]!, /^0,\d+,\d+,0$/, 'randomFillSync filled elements 1 and 2 only');
  await readsAsRecorded(program, result, streams);
});
