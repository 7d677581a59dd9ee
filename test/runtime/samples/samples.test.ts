// The tutorial samples: each runs against a demo site of its own (runSample), says it is ok, and
// prints the lines that carry its point, in order. Plus the registry, and a run on a loop
// handed in by an inspector (held paused and stepped by hand).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EventLoop } from '../../../runtime/loop';
import { SAMPLES, findSample, listSamples, runSample } from '../../../runtime/samples/index';

/** Each pattern must match a line, after the line the previous pattern matched. */
function assertLinesInOrder(lines: readonly string[], patterns: readonly RegExp[]): void {
  let from = 0;
  for (const pattern of patterns) {
    const i = lines.findIndex((line, k) => k >= from && pattern.test(line));
    assert.ok(i >= 0, `no line matching ${String(pattern)} after line ${from}:\n${lines.join('\n')}`);
    from = i + 1;
  }
}

const EXPECTED: Readonly<Record<string, readonly RegExp[]>> = {
  generators: [
    /^ {2}sent -1: done=true, returned 12$/,
    /outer returned 30$/,
    /caught "boom" at its yield$/,
    /-> top: caught "leaf failed" from two frames down$/,
    /leaf: finally block ran$/,
    /throw\(\) into top lands in leaf first, then -> top: caught "thrown in from outside"/,
  ],
  blocking: [
    /^blocking fetch \/page\/1\/: 200, \d+ bytes, \d+\.\d\d s$/,
    /^blocking fetch \/page\/6\/: 200/,
    /^6 pages one after another: /,
    /^a 5 ms timer fired 0 times meanwhile/,
    /^3 worker threads, one fetch at a time each: 6 pages in /,
    /^3 child processes, one fetch at a time each: 6 pages in /,
  ],
  'busy-nonblocking': [
    /^busy fetch \/page\/1\/: 200, \d+ bytes, .*, \d+ tries found the socket not ready$/,
    /^4 pages, one at a time, in .*; \d+ wasted tries in all$/,
  ],
  callbacks: [
    /^callback crawl from http:\/\/127\.0\.0\.1:\d+\/: 12 URLs \(12 pages 200\)/,
    /^callback fetch of .*\/broken\/: UnknownCharsetError/,
    // Ripped: the trace ends at the loop, nothing of the fetch that started the chain.
    /^ripped trace: decodeBody <- extractLinks <- .*recordResponse <- Fetcher\d*\.readResponse <- runCallbackLoop$/,
    /^the same failure with generator coroutines: .*GeneratorCrawl\d*\.fetch/,
  ],
  'future-task': [
    /^ {2}task started; it is suspended on the future \(done=false\)$/,
    /^ {2}the coroutine resumed with "hello"$/,
    /^ {2}after setResult\("hello"\): done=true$/,
    /^one-piece generator fetch, 5 tasks at once: /,
    /^ {2}200 \/page\/5\/ \d+ bytes$/,
    /^factored fetch \(fetchPage -> connect, sendAll, readAll -> read\), 5 tasks at once: /,
  ],
  crawler: [
    /^crawl\(\) started 10 workers/,
    /^crawled \d+ URLs in .*: \d+ pages, [1-9]\d* redirects, \d+ not found, 1 failed$/,
    /-> .*: the target went into the queue like any link$/,
    /failed: .*\/broken\/: UnknownCharsetError/,
    /crawl\(\) then cancelled its 10 workers, all idle in q\.get\(\): 10 of them have ended$/,
  ],
  'fib-threads': [
    /^computing fib\(\d+\), fib\(\d+\), fib\(\d+\) on a worker thread/,
    /^fib\(\d+\) = \d+, computed on a worker thread in /,
    /the loop stayed free$/,
  ],
  'fib-loop': [
    /^fib\(\d+\) = \d+, computed on the loop in /,
    /^loop warning: Executing step of <Task .*name="fib"> took \d+\.\d{3} seconds$/,
    /^tick 2 at \+\d\.\d\d s \(0\.[1-9]\d s late\)$|^tick 2 at \+\d\.\d\d s \([1-9]\.\d\d s late\)$/,
    /the loop was busy computing$/,
  ],
  'timers-loop': [
    / hello 1$/,
    / timer a /,
    / timer b /,
    / timer c /,
    / hello 2$/,
    / input arrived: fib\(22\) = 17711$/,
    / hello 3$/,
    / hello 4$/,
  ],
  trampoline: [
    /^fib\(24\) starts$/,
    /^tick 2 at /,
    /^fib\(24\) = 46368 at .* deepest stack: 24 waiting callers$/,
    /^caught at the top of the explicit stack: "failure two calls down"$/,
  ],
  'exception-chain': [/^C caught: Something went wrong in A$/, /^coroutine frames in its trace: A <- B <- C$/],
  'gather-vs-ascompleted': [
    /^asCompleted/,
    /handled URL2/,
    /handled URL3/,
    /handled URL1/,
    /^gather/,
    /^ {2}results: URL1 \(0\.12 s\), URL2 \(0\.04 s\), URL3 \(0\.08 s\)$/,
  ],
  'json-fetch': [
    /^status: 200 OK \(HTTP\/1\.1\)$/,
    /^ {2}content-type: application\/json$/,
    /^ {2}content-length: \d+$/,
    /^JSON: 40 pages, first \/page\/1\/, \/page\/2\/, \/page\/3\/$/,
  ],
};

/** Lines that must appear, wherever (their order against the others depends on timing). */
const ANYWHERE: Readonly<Record<string, readonly RegExp[]>> = {
  'fib-threads': [/^tick 2 at \+0\.\d\d s \(0\.\d\d s late\)$/],
};

test('the registry: unique ids, a pattern list for each, a few sentences of explanation', () => {
  const ids = SAMPLES.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual(Object.keys(EXPECTED).sort(), [...ids].sort());
  assert.deepEqual(
    listSamples().map((s) => s.id),
    ids,
  );
  for (const s of SAMPLES) {
    assert.equal(findSample(s.id), s);
    assert.match(s.id, /^[a-z][a-z-]*$/);
    assert.ok(s.title.length > 0 && s.chapter.length > 0);
    const sentences = s.explanation.split(/(?<=[.!?])\s+(?=[A-Z0-9(])/).length;
    assert.ok(sentences >= 3 && sentences <= 8, `${s.id}: ${sentences} sentences`);
  }
  assert.equal(findSample('no-such-sample'), undefined);
});

test('runSample refuses an unknown id and names the known ones', async () => {
  await assert.rejects(runSample('nope'), /no sample "nope"; the samples are: generators, blocking/);
});

for (const sample of SAMPLES) {
  test(`sample ${sample.id}: runs, is ok, prints its expected lines`, async () => {
    const logged: string[] = [];
    const outcome = await runSample(sample.id, { log: (line) => logged.push(line) });
    assert.deepEqual(outcome.lines, logged, 'every line went through ctx.log');
    assert.ok(outcome.ok, `not ok:\n${outcome.lines.join('\n')}`);
    assert.ok(!outcome.lines.some((l) => l.startsWith('CHECK FAILED')));
    assertLinesInOrder(outcome.lines, EXPECTED[sample.id]!);
    for (const pattern of ANYWHERE[sample.id] ?? [])
      assert.ok(
        outcome.lines.some((l) => pattern.test(l)),
        `no line matching ${String(pattern)}:\n${outcome.lines.join('\n')}`,
      );
    for (const [name, value] of Object.entries(outcome.numbers))
      assert.ok(Number.isFinite(value), `${name} = ${value}`);
  });
}

test('a runtime sample on a loop handed in, held paused and stepped by hand: it runs there and the loop stays open', async () => {
  const loop = new EventLoop();
  loop.pause();
  let settled = false;
  const running = runSample('gather-vs-ascompleted', { loop }).finally(() => {
    settled = true;
  });
  let steps = 0;
  while (!settled && steps < 5) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (loop.isRunning() && loop.isPaused()) {
      await loop.runOnce();
      steps++;
    }
  }
  assert.equal(steps, 5, 'the sample waited for the steps');
  assert.equal(settled, false, 'five ticks are not enough to finish it');
  loop.resume();
  const outcome = await running;
  assert.ok(outcome.ok, outcome.lines.join('\n'));
  assert.equal(loop.isClosed(), false);
  assert.ok(loop.tickCount() > steps);
  loop.close();
});

/** The name each runtime sample's text gives its main coroutine (its generator function's name). */
const MAIN_COROUTINE: Readonly<Record<string, { file: string; name: string }>> = {
  generators: { file: 'generators.ts', name: 'generatorTour' },
  crawler: { file: 'full-crawler.ts', name: 'crawlAndReport' },
  'fib-threads': { file: 'fib-threads.ts', name: 'fibWhileTicking' },
  'fib-loop': { file: 'fib-loop.ts', name: 'fibBlockingTheLoop' },
  'exception-chain': { file: 'exception-chain.ts', name: 'C' },
  'gather-vs-ascompleted': { file: 'gather-vs-ascompleted.ts', name: 'compareWaits' },
  'json-fetch': { file: 'json-fetch.ts', name: 'fetchJson' },
};

test("a runtime sample's task on a loop handed in carries the name its text gives its coroutine, not Task-N", async () => {
  const onRuntimeLoop = SAMPLES.filter((s) => !s.ownLoop).map((s) => s.id);
  assert.deepEqual(
    [...onRuntimeLoop].sort(),
    Object.keys(MAIN_COROUTINE).sort(),
    'every sample on the runtime loop is listed',
  );
  for (const id of onRuntimeLoop) {
    const { file, name } = MAIN_COROUTINE[id]!;
    assert.match(
      readFileSync(join(__dirname, '..', '..', '..', 'runtime', 'samples', file), 'utf8'),
      new RegExp(`function\\* ${name}\\(`),
      `${file} defines ${name}`,
    );
    const loop = new EventLoop();
    loop.pause();
    const running = runSample(id, { loop });
    while (!loop.isRunning()) await new Promise<void>((resolve) => setImmediate(resolve));
    const first = loop.allTasks().sort((a, b) => a.id - b.id)[0];
    assert.equal(
      first?.name,
      name,
      `${id}: ${loop
        .allTasks()
        .map((t) => t.name)
        .join(', ')}`,
    );
    loop.resume();
    // Run to its end so the loop closes clean; whether the sample's own checks pass (fib-threads
    // times its ticks, which a loaded machine can make late) is the "runs, is ok" tests' question.
    await running;
    loop.close();
  }
});

test('every task a runtime sample makes carries a name its text uses, none the default Task-N', async () => {
  // gather and asCompleted wrap a coroutine in a task named Task-N, as asyncio's ensure_future does: a sample
  // names the tasks it hands them (createTask's name, asyncio's create_task(name=)), so that the thread
  // labels, the panel's table and the console's "meanwhile" say which download, worker or page each is.
  for (const id of SAMPLES.filter((s) => !s.ownLoop).map((s) => s.id)) {
    const loop = new EventLoop();
    const names: string[] = [];
    loop.addObserver({ taskCreated: (task) => names.push(task.getName()) });
    await runSample(id, { loop });
    loop.close();
    assert.ok(names.length > 0, `${id} made tasks`);
    const unnamed = names.filter((n) => /^Task-\d+$/.test(n));
    assert.deepEqual(unnamed, [], `${id}: ${names.join(', ')}`);
  }
});
