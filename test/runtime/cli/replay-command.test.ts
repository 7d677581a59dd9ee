// `coroscope crawl --record` and `coroscope replay` as a user runs them: the bundled CLI in
// a child process (npm test builds it first). The demo site lives only as long as the
// recording crawl: every replay runs with it stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeRecording, encodeRecording, readRecordingFile } from '../../../runtime/record/recording-file';
import { unpackAwaitDetails } from '../../../runtime/record/await-details';
import { savedUrlFailures } from '../../../runtime/host/main-thread/url-failures';
import { PROTOCOL_VERSION } from '../../../protocol/host-protocol';
import { forkHost } from '../host/host-client';
import { RunTimeline } from '../../../runtime/record/run-timeline';
import { startDemoSite, demoSiteOptions } from '../../../runtime/demo-site/index';
import {
  cutCopies,
  flipCopies,
  oddCopies,
  sectionCopies,
  spread,
  type CorruptCopy,
} from '../record/corrupt-recordings';
import { distBundle } from '../../dist-bundles';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'bin', 'coroscope.js');

function coroscope(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-'));
const file = join(dir, 'x.corotrace');
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

test('crawl --demo --record, then replay: the same report, offline', () => {
  const rec = coroscope(['crawl', '--demo', '--pages', '40', '--quiet', '--record', file]);
  assert.equal(rec.status, 0, rec.stderr);
  assert.match(
    rec.stderr,
    /Recorded \d+ ticks, \d+ task steps, \d+ sockets to .*x\.corotrace \(\d+ bytes, [\d.]+ per step: the run [\d.]+ per step, the \d+ bytes received [\d.]+ per step \(compressed [\d.]+x\)\)/,
  );
  assert.match(rec.stdout, /Finished \d+ urls in [\d.]+ secs/);
  const rep = coroscope(['replay', file]);
  assert.equal(rep.status, 0, rep.stderr);
  assert.equal(rep.stdout, rec.stdout);
  // What each suspension awaited, in the task table's words, is kept for the timeline.
  const details = unpackAwaitDetails(readRecordingFile(file).meta.awaitDetails);
  assert.ok(details !== null && details.length > 0);
  assert.ok(
    details.some((d) => /^<Socket fd=\d+ .*raddr=127\.0\.0\.1:\d+>$/.test(d)),
    details.slice(0, 20).join(' | '),
  );
});

test('replay --json prints the replayed crawl as crawl --json prints it, whichever way the recording printed it', () => {
  const text = coroscope(['replay', file]);
  const json = coroscope(['replay', file, '--json']);
  assert.equal(json.status, 0, json.stderr);
  const j = JSON.parse(json.stdout) as { fetched: number; results: Array<{ url: string }> };
  // The same crawl: every URL of the text report is in the object.
  const urls = text.stdout
    .split('\n')
    .filter((l) => /^http:\/\/127\.0\.0\.1:\d+\//.test(l))
    .map((l) => l.split(' ')[0]!);
  assert.ok(urls.length > 10);
  assert.equal(j.fetched, urls.length);
  assert.deepEqual(j.results.map((r) => r.url).sort(), [...urls].sort());
});

test("the recording keeps where each URL failed (tick, task, the live stop's words), as a host run does: VS Code's Reverse Continue with the URL-failed filter lands there", () => {
  const rec = readRecordingFile(file);
  const marks = savedUrlFailures(rec.meta.urlFailures);
  const json = JSON.parse(coroscope(['replay', file, '--json']).stdout) as {
    results: Array<{ url: string; error?: string }>;
  };
  const failed = json.results.filter((r) => r.error !== undefined);
  assert.ok(failed.length > 0, 'the demo site has a page that fails');
  assert.deepEqual(marks.map((m) => m.url).sort(), failed.map((r) => r.url).sort());
  for (const m of marks) {
    assert.ok(m.tick >= 1 && m.tick <= rec.meta.ticks, `tick ${m.tick} of ${rec.meta.ticks}`);
    assert.match(
      m.description,
      new RegExp(
        `^Task #${m.taskId} "worker-\\d+" failed to fetch ${m.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\w+Error: `,
      ),
    );
  }
});

test('replay --dump-tasks-at-tick N [--json]: the tasks, their stacks and locals at that tick', () => {
  const json = coroscope(['replay', file, '--dump-tasks-at-tick', '30', '--json']);
  assert.equal(json.status, 0, json.stderr);
  const dump = JSON.parse(json.stdout) as {
    tick: number;
    tasks: Array<{
      name: string;
      frames: Array<{ function: string; file: string | null; locals: Array<{ name: string; value: string }> }>;
    }>;
  };
  assert.equal(dump.tick, 30);
  const worker = dump.tasks.find((t) => t.name.startsWith('worker-') && t.frames.some((f) => f.function === 'fetch'));
  assert.ok(worker, 'a worker is fetching at tick 30');
  const fetch = worker.frames.find((f) => f.function === 'fetch')!;
  assert.match(fetch.file ?? '', /runtime\/crawler\/crawler\.ts$/);
  assert.match(fetch.locals.find((l) => l.name === 'url')?.value ?? '', /^"http:\/\/127\.0\.0\.1:\d+\//);
  const text = coroscope(['replay', file, '--dump-tasks-at-tick', '30']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^\*\*\* Replayed to tick 30 \*\*\*\nTasks at loop time [\d.]+ s, tick 30 \(paused\)/);
  assert.match(text.stdout, /fetch .*crawler\.ts:\d+\n(.*\n)*?\s+url = "http/);
  const beyond = coroscope(['replay', file, '--dump-tasks-at-tick', '999999']);
  assert.equal(beyond.status, 2);
  assert.match(beyond.stderr, /has \d+ ticks/);
});

test('a --record file that cannot be written is refused before the crawl starts, naming why', () => {
  for (const [record, why] of [
    [join(dir, 'gone', 'x.corotrace'), `the folder ${join(dir, 'gone')} does not exist`],
    [dir, `${dir} is a folder, not a file`],
  ] as const) {
    const r = coroscope(['crawl', '--demo', '--pages', '5', '--quiet', '--record', record]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `coroscope crawl: --record ${record}: ${why}\n`);
    assert.equal(r.stdout, '');
  }
});

test('a reader that goes away (a pipe into head) ends the dump quietly: exit 0, nothing on stderr', async () => {
  const child = spawn(process.execPath, [cli, 'replay', file, '--dump-tasks-at-tick', '30'], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  // As `head -1` does: read the first bytes, then close the pipe while the dump is still being written.
  child.stdout.once('data', () => child.stdout.destroy());
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  assert.equal(stderr, '');
  assert.equal(status, 0);
});

test('a corrupted copy, a truncated copy and a copy with a changed source hash are refused with clear errors', () => {
  const bytes = readFileSync(file);
  const flipped = Buffer.from(bytes);
  flipped[Math.floor(bytes.length / 2)]! ^= 0xff;
  writeFileSync(join(dir, 'flipped.corotrace'), flipped);
  const bad = coroscope(['replay', join(dir, 'flipped.corotrace')]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^coroscope replay: .*flipped\.corotrace is truncated or corrupt/);
  writeFileSync(join(dir, 'cut.corotrace'), bytes.subarray(0, bytes.length - 100));
  const cut = coroscope(['replay', join(dir, 'cut.corotrace')]);
  assert.equal(cut.status, 1);
  assert.match(cut.stderr, /cut\.corotrace is truncated or corrupt/);
  const rec = decodeRecording(bytes, 'x');
  const sources = rec.meta.sources.map((s) =>
    s.path === 'runtime/crawler/crawler.ts' ? { ...s, sha256: '0'.repeat(64) } : s,
  );
  assert.notDeepEqual(sources, rec.meta.sources, "the recording lists the crawler's source");
  writeFileSync(join(dir, 'changed.corotrace'), encodeRecording({ ...rec, meta: { ...rec.meta, sources } }));
  const changed = coroscope(['replay', join(dir, 'changed.corotrace')]);
  assert.equal(changed.status, 1);
  assert.match(
    changed.stderr,
    /changed\.corotrace was recorded from sources that have changed since: runtime\/crawler\/crawler\.ts\b/,
  );
  assert.equal(changed.stdout, '');
});

test('--record is refused for the callback and generator stages; replay needs a file', () => {
  const stage = coroscope(['crawl', '--demo', '--stage', 'callbacks', '--record', join(dir, 'no.corotrace')]);
  assert.equal(stage.status, 2);
  assert.match(stage.stderr, /--record records the coroutines stage/);
  const none = coroscope(['replay']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /replay needs the \.corotrace file/);
});

/**
 * `coroscope replay` of the recording, sent a real `signal` while it runs: the recording is
 * given through a named pipe, and the signal is sent once the replay has opened it (its
 * handlers are set by then) and before its bytes follow, so it is heard at the replay's
 * first pause between ticks (a slice of them runs first), never after its end.
 */
async function replayInterrupted(
  signal: NodeJS.Signals,
  extra: string[],
): Promise<{ status: number | null; killedBy: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const fifo = join(dir, `${signal}.fifo`);
  execFileSync('mkfifo', [fifo]);
  const child = spawn(process.execPath, [cli, 'replay', fifo, ...extra], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const ended = new Promise<{ status: number | null; killedBy: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (status, killedBy) => resolve({ status, killedBy })),
  );
  // Opening the pipe to write completes once the replay has opened it to read.
  const pipe = await open(fifo, 'w');
  assert.ok(child.kill(signal));
  await pipe.writeFile(readFileSync(file));
  await pipe.close();
  return { ...(await ended), stdout, stderr };
}

test('a replay sent SIGTERM or SIGINT says where it was cut and that no report (or dump) follows: 143 / 130', {
  skip: process.platform === 'win32' ? 'named pipes (mkfifo)' : false,
  timeout: 60_000,
}, async () => {
  const ticks = readRecordingFile(file).meta.ticks;
  const term = await replayInterrupted('SIGTERM', []);
  assert.deepEqual([term.status, term.killedBy], [143, null], term.stderr);
  assert.equal(term.stdout, '', 'a replay cut short prints no report');
  const at =
    /^coroscope replay: .*SIGTERM\.fifo: replay interrupted by SIGTERM at tick (\d+) of (\d+); no report printed: a replay cut short is not the recorded run \(replay it whole for its report\)\n$/.exec(
      term.stderr,
    );
  assert.ok(at, term.stderr);
  assert.equal(Number(at[2]), ticks);
  assert.ok(Number(at[1]) < ticks, term.stderr);

  const int = await replayInterrupted('SIGINT', ['--dump-tasks-at-tick', String(ticks), '--json']);
  assert.deepEqual([int.status, int.killedBy], [130, null], int.stderr);
  assert.equal(int.stdout, '', 'no dump of a tick the replay never reached');
  const cut = /replay interrupted by SIGINT at tick (\d+) of (\d+); no dump: it stopped before tick (\d+)\n$/.exec(
    int.stderr,
  );
  assert.ok(cut, int.stderr);
  assert.ok(Number(cut[1]) < ticks && Number(cut[3]) === ticks, int.stderr);
});

test('bad recordings never crash or hang coroscope replay: one line on stderr naming the file, exit 1', {
  timeout: 600_000,
}, () => {
  const bytes = readFileSync(file);
  const report = coroscope(['replay', file]).stdout;
  /**
   * Replays a copy: refused with one line naming it, or (`reads`: a change the format cannot tell) replayed
   * to a report.
   */
  const replayCopy = (copy: CorruptCopy, k: number, reads: 'same' | 'any' | 'never'): void => {
    const path = join(dir, `bad-${k}.corotrace`);
    writeFileSync(path, copy.bytes);
    const r = coroscope(['replay', path]);
    const what = `${copy.label}: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`;
    if (r.status === 0 && reads !== 'never') {
      if (reads === 'same') assert.equal(r.stdout, report, what);
      else assert.match(r.stdout, /Finished \d+ urls in/, what);
      return;
    }
    assert.equal(r.status, 1, what);
    assert.equal(r.stdout, '', what);
    assert.ok(
      r.stderr.startsWith('coroscope replay: ') &&
        r.stderr.includes(path) &&
        r.stderr.indexOf('\n') === r.stderr.length - 1,
      what,
    );
  };
  let k = 0;
  for (const copy of spread(cutCopies(bytes, 97), 6)) replayCopy(copy, k++, 'never');
  for (const copy of spread(flipCopies(bytes, 7, true), 12)) replayCopy(copy, k++, 'same');
  for (const copy of spread(sectionCopies(decodeRecording(bytes, file), 5), 12)) replayCopy(copy, k++, 'any');
  for (const copy of oddCopies(bytes)) replayCopy(copy, k++, 'never');
  const directory = coroscope(['replay', dir]);
  assert.equal(directory.status, 1);
  assert.equal(directory.stderr, `coroscope replay: ${dir} is a directory, not a recording file\n`);
});

test("--dump-tasks-at-tick: out of range, not a number, negative or missing is refused (exit 2, stdout empty); the last tick dumps; --json's shape is fixed and the same at every replay", () => {
  const ticks = readRecordingFile(file).meta.ticks;
  for (const v of ['0', '-1', '-5', 'abc', '1.5', '1e2', ' 3', '', '999999999999999999999', '--json']) {
    const r = coroscope(['replay', file, '--dump-tasks-at-tick', v]);
    assert.equal(r.status, 2, v);
    assert.equal(r.stdout, '', v);
    assert.equal(
      r.stderr,
      `coroscope replay: --dump-tasks-at-tick needs a tick number (1 or more), got ${JSON.stringify(v)}\n`,
    );
  }
  const missing = coroscope(['replay', file, '--dump-tasks-at-tick']);
  assert.equal(missing.status, 2);
  assert.equal(missing.stderr, 'coroscope replay: --dump-tasks-at-tick needs a tick number (1 or more) after it\n');
  const beyond = coroscope(['replay', file, '--dump-tasks-at-tick', String(ticks + 1), '--json']);
  assert.equal(beyond.status, 2);
  assert.equal(beyond.stdout, '');
  assert.equal(
    beyond.stderr,
    `coroscope replay: --dump-tasks-at-tick ${ticks + 1}: ${file} has ${ticks} ticks (1 to ${ticks})\n`,
  );
  const last = coroscope(['replay', file, '--dump-tasks-at-tick', String(ticks), '--json']);
  assert.equal(last.status, 0, last.stderr);
  assert.equal((JSON.parse(last.stdout) as { tick: number }).tick, ticks);

  const first = coroscope(['replay', file, '--dump-tasks-at-tick', '30', '--json']);
  assert.equal(first.status, 0, first.stderr);
  // Nothing of the replay's own timing: every replay of the tick prints the same object.
  assert.equal(coroscope(['replay', file, '--dump-tasks-at-tick', '30', '--json']).stdout, first.stdout);
  const dump = JSON.parse(first.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(dump).sort(), ['tasks', 'tick', 'time']);
  assert.equal(dump.tick, 30);
  assert.ok(typeof dump.time === 'number' && dump.time > 0);
  const tasks = dump.tasks as Array<Record<string, unknown>>;
  assert.ok(Array.isArray(tasks) && tasks.length > 1);
  const always = [
    'awaitedBy',
    'awaiting',
    'busyMs',
    'createdBy',
    'frames',
    'id',
    'name',
    'sinceResumedMs',
    'state',
    'steps',
  ];
  const sometimes = new Set(['location', 'outcome', 'cancelledBy']);
  for (const t of tasks) {
    const keys = Object.keys(t);
    assert.deepEqual(keys.filter((k) => !sometimes.has(k)).sort(), always, JSON.stringify(t).slice(0, 300));
    assert.ok(Number.isSafeInteger(t.id) && typeof t.name === 'string' && Number.isSafeInteger(t.steps));
    assert.ok(
      ['scheduled', 'running', 'suspended', 'done', 'failed', 'cancelled'].includes(t.state as string),
      String(t.state),
    );
    assert.ok(t.createdBy === null || Number.isSafeInteger(t.createdBy));
    assert.ok(t.sinceResumedMs === null || typeof t.sinceResumedMs === 'number');
    // A task's busy time is never logged: a replay says it does not know it, never a number of its own.
    assert.equal(t.busyMs, null);
    assert.ok(Array.isArray(t.awaitedBy) && (t.awaitedBy as unknown[]).every((x) => Number.isSafeInteger(x)));
    const awaiting = t.awaiting as Record<string, unknown> | null;
    assert.ok(awaiting === null || (typeof awaiting.kind === 'string' && typeof awaiting.detail === 'string'));
    for (const f of t.frames as Array<Record<string, unknown>>) {
      assert.deepEqual(Object.keys(f).sort(), ['column', 'file', 'function', 'line', 'locals', 'state']);
      assert.ok(typeof f.function === 'string' && (f.file === null || typeof f.file === 'string'));
      for (const l of f.locals as Array<Record<string, unknown>>) {
        assert.deepEqual(Object.keys(l).sort(), ['name', 'scope', 'type', 'value']);
        assert.ok(typeof l.name === 'string' && typeof l.type === 'string' && typeof l.value === 'string');
      }
    }
  }
});

test('replay --dump-tasks-at-tick of a recording whose tasks a view cancelled: the dump says who, as the live run did', async () => {
  const saved = join(dir, 'cancelled.corotrace');
  const host = forkHost({ bundle: distBundle('runtime-host.js') });
  let tick = 0;
  let live: Array<{ id: number; cancelledBy?: unknown; outcome?: string }> = [];
  try {
    await host.rpc.request('hello', { client: 'test', protocolVersion: PROTOCOL_VERSION });
    const run = await host.rpc.request('launch', {
      target: { kind: 'demo', latency: 'instant', pages: 40 },
      options: { stopOnEntry: true, maxTasks: 3, record: true },
    });
    await host.waitFor('paused', (p) => p.reason === 'entry');
    for (let i = 0; i < 5; i++) await host.rpc.request('stepTick', {});
    // The crawl task unwinds over several ticks (it cancels its workers and waits for them), so
    // it is still going one tick after; a worker's cancel ends it within that tick.
    const tasks0 = (await host.rpc.request('snapshot', {})).tasks;
    const a = tasks0.find((t) => t.name === 'crawl');
    const b = tasks0.find((t) => t.name.startsWith('worker-'));
    await host.rpc.request('cancelTask', { taskId: a!.id, by: 'inspector' });
    await host.rpc.request('cancelTask', { taskId: b!.id, by: 'debugger', message: 'enough of b' });
    tick = (await host.rpc.request('stepTick', {})).tick;
    const rows = (await host.rpc.request('snapshot', {})).tasks;
    live = [a!, b!].map((w) => rows.find((t) => t.id === w.id)!);
    await host.rpc.request('continue', {});
    await host.waitFor('finished', (f) => f.runId === run.runId);
    await host.rpc.request('saveRecording', { path: saved });
  } finally {
    await host.close();
  }
  assert.deepEqual(
    live.map((t) => t.cancelledBy),
    [{ kind: 'inspector' }, { kind: 'debugger' }],
  );
  // The dump lists the tasks still going at the tick (a cancelled worker that has ended is not there).
  const going = live.filter((t) => t.outcome === undefined);
  assert.ok(going.length > 0, 'a cancelled task is still going one tick after the cancels');
  const dumped = coroscope(['replay', saved, '--dump-tasks-at-tick', String(tick), '--json']);
  assert.equal(dumped.status, 0, dumped.stderr);
  const tasks = (JSON.parse(dumped.stdout) as { tasks: Array<{ id: number; cancelledBy?: unknown; outcome?: string }> })
    .tasks;
  assert.deepEqual(
    going.map((w) => tasks.find((t) => t.id === w.id)?.cancelledBy),
    going.map((t) => t.cancelledBy),
  );
  const text = coroscope(['replay', saved, '--dump-tasks-at-tick', String(tick)]);
  for (const t of going)
    assert.match(
      text.stdout,
      new RegExp(`#${t.id} .*cancel requested by the ${(t.cancelledBy as { kind: string }).kind}`),
    );
});

// Issue 25, item 5: a crawl (CLI, recorded) of the demo site with its fault routes and 0.3 s
// per request: the stalled bodies time out and are retried (each timeout's cancel taken back),
// then the crawl task cancels its workers. Dumped at the tick of that cancel, every worker
// still going reads "cancel requested by #<crawl> crawl", not the expired timeouts' 'unknown'.
test("replay --dump-tasks-at-tick after read timeouts were retried: the workers' cancel is the crawl task's", {
  timeout: 120_000,
}, async () => {
  const saved = join(dir, 'timeouts.corotrace');
  const site = await startDemoSite({ ...demoSiteOptions('instant', 12), faults: true });
  let crawled: { status: number | null; stdout: string; stderr: string };
  try {
    crawled = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          cli,
          'crawl',
          site.url,
          '--max-tasks',
          '3',
          '--max-tries',
          '2',
          '--timeout',
          '0.3',
          '--quiet',
          '--json',
          '--record',
          saved,
        ],
        { cwd: root },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  } finally {
    await site.close();
  }
  assert.equal(crawled.status, 0, crawled.stderr);
  assert.match(crawled.stdout, /timed out/, 'a request timed out');
  const recording = readRecordingFile(saved);
  const lanes = (() => {
    const tl = new RunTimeline(saved);
    tl.update(recording.events);
    return tl.timeline(1, 0, false).lanes;
  })();
  const crawl = lanes.find((l) => l.name === 'crawl')!;
  const workers = lanes.filter((l) => l.name.startsWith('worker-'));
  assert.equal(workers.length, 3);
  // The crawl cancels them all in one tick; they end in the next.
  const tick = Math.min(...workers.map((w) => w.endTick!)) - 1;
  const dumped = coroscope(['replay', saved, '--dump-tasks-at-tick', String(tick), '--json']);
  assert.equal(dumped.status, 0, dumped.stderr);
  const tasks = (
    JSON.parse(dumped.stdout) as { tasks: Array<{ id: number; name: string; cancelledBy?: unknown }> }
  ).tasks.filter((t) => t.name.startsWith('worker-'));
  assert.equal(tasks.length, 3, `the workers are going at tick ${tick}`);
  for (const t of tasks)
    assert.deepEqual(t.cancelledBy, { kind: 'task', taskId: crawl.taskId }, `${t.name} at tick ${tick}`);
  const text = coroscope(['replay', saved, '--dump-tasks-at-tick', String(tick)]);
  // (The three idle workers may read as one collapsed entry.)
  assert.match(
    text.stdout,
    new RegExp(`× 3 suspended, \\d+ steps, cancel requested by #${crawl.taskId} crawl: #\\d+ worker-`),
    text.stdout,
  );
  assert.doesNotMatch(text.stdout, /unknown/, text.stdout);
});
