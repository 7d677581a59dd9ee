// The host's saveRecording / openRecording: a demo crawl launched with options.record is
// saved once finished, the file opens (checked whole), and every refusal says why. Recordings
// the coroscope CLI wrote (the bundled CLI really run on a loopback site, stopped before the
// file is opened) open in the bundled host as the extension runs it, and seek.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteError } from '../../../../protocol/rpc';
import { PROTOCOL_VERSION, type RecordingMark, type TaskDetail } from '../../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { decodeRecording, encodeRecording, readRecordingFile } from '../../../../runtime/record/recording-file';
import { readRunLog } from '../../../../runtime/record/run-log';
import { startDemoSite } from '../../../../runtime/demo-site/index';
import {
  cutCopies,
  flipCopies,
  oddCopies,
  sectionCopies,
  spread,
  type CorruptCopy,
} from '../../record/corrupt-recordings';
import { distBundle } from '../../../dist-bundles';

async function rejectsWith(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RemoteError && e.code === code && message.test(e.message));
}

describe('host recordings', () => {
  let host: HostClient;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-host-rec-'));

  before(() => {
    host = forkHost();
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a recorded demo crawl is saved once finished and opens; a run not recorded is refused', async () => {
    const file = join(dir, 'run.corotrace');
    await rejectsWith(host.rpc.request('saveRecording', { path: file }), 'noRun', /launch first/);
    let from = host.events.length;
    const launched = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 20 },
      options: { record: true, maxTasks: 5 },
    });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    const saved = await host.rpc.request('saveRecording', { path: file });
    assert.equal(saved.program, 'demo');
    assert.ok(
      saved.ticks > 5 && saved.steps > saved.ticks / 2 && saved.sockets > 0 && saved.bytes > 100,
      JSON.stringify(saved),
    );
    const rec = readRecordingFile(file);
    assert.equal(readRunLog(rec.events, rec.gaps, rec.payload, file).times.length, saved.ticks);
    const opened = await host.rpc.request('openRecording', { path: file });
    assert.deepEqual({ ...opened, bytes: 0, runId: 0 }, { ...saved, bytes: 0, runId: 0 });
    assert.equal(opened.bytes, readFileSync(file).length);

    from = host.events.length;
    const plain = await host.rpc.request('launch', { target: { kind: 'demo', pages: 10 }, options: { maxTasks: 5 } });
    await host.waitFor('finished', (f) => f.runId === plain.runId, 30000, from);
    await rejectsWith(
      host.rpc.request('saveRecording', { path: join(dir, 'plain.corotrace') }),
      'notRecorded',
      /was not recorded: launch it with options\.record/,
    );
  });

  test("a recorded crawl's failed URLs are in its timeline with their tick and worker, saved with it and read back when opened", async () => {
    const file = join(dir, 'failed.corotrace');
    const from = host.events.length;
    const launched = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 12, latency: 'instant' },
      options: { record: true, maxTasks: 3 },
    });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    const live = await host.rpc.request('timeline', {});
    // The demo site's /broken/ page: its links cannot be decoded, the worker records the URL as failed and goes on.
    assert.equal(live.urlFailures?.length, 1, JSON.stringify(live.urlFailures));
    const failed = live.urlFailures[0]!;
    assert.equal(failed.url, new URL('/broken/', launched.siteUrl).href);
    assert.ok(failed.tick >= 1 && failed.tick <= live.ticks);
    const worker = live.lanes.find((l) => l.taskId === failed.taskId);
    assert.match(worker?.name ?? '', /^worker-\d+$/);
    assert.equal(
      failed.description,
      `Task #${failed.taskId} ${JSON.stringify(worker!.name)} failed to fetch ${failed.url}: UnknownCharsetError: unknown charset "x-coroscope-unknown" declared by ${failed.url}`,
    );
    // Only after sinceTick, only the task asked for.
    assert.equal((await host.rpc.request('timeline', { sinceTick: failed.tick })).urlFailures, undefined);
    assert.deepEqual((await host.rpc.request('timeline', { taskId: failed.taskId! })).urlFailures, [failed]);
    await host.rpc.request('saveRecording', { path: file });
    await host.rpc.request('openRecording', { path: file });
    assert.deepEqual((await host.rpc.request('timeline', {})).urlFailures, [failed]);
  });

  test('openRecording refuses a missing, a corrupt and a foreign file with the reason', async () => {
    await rejectsWith(
      host.rpc.request('openRecording', { path: join(dir, 'none.corotrace') }),
      'badRecording',
      /none\.corotrace: no such recording file/,
    );
    const bad = join(dir, 'bad.corotrace');
    writeFileSync(bad, 'not a recording');
    await rejectsWith(
      host.rpc.request('openRecording', { path: bad }),
      'badRecording',
      /bad\.corotrace is not a Coroscope recording/,
    );
    await rejectsWith(host.rpc.request('openRecording', {} as never), 'badRequest', /path/);
  });
});

/** Runs the bundled CLI to its end (async: the loopback site may live in this process). */
function coroscope(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'coroscope.js'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * A CLI demo crawl, recorded to `file`, sent `signal` once its task dump (at 200 ms) is printed: the crawl is
 * then mid-way (the demo site answers 100-800 ms late).
 */
function interruptedCrawl(file: string, signal: NodeJS.Signals): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'coroscope.js'),
      'crawl',
      '--demo',
      '--pages',
      '40',
      '--max-tasks',
      '4',
      '--dump-tasks-after',
      '200',
      '--quiet',
      '--record',
      file,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  child.stdout.on('data', (b: Buffer) => {
    const first = !stdout.includes('*** Tasks after');
    stdout += b.toString();
    if (first && stdout.includes('*** Tasks after')) child.kill(signal);
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

/** Seeks from the middle on until a worker is suspended in fetch: its detail there, and the tick. */
async function workerFetchingFrom(
  host: HostClient,
  from: number,
  ticks: number,
): Promise<{ tick: number; detail: TaskDetail }> {
  for (let tick = from; tick <= ticks; tick++) {
    await host.rpc.request('seekTick', { tick });
    const snap = await host.rpc.request('snapshot', {});
    const t = snap.tasks.find(
      (x) => x.name.startsWith('worker-') && x.state === 'suspended' && x.frames.includes('fetch'),
    );
    if (t !== undefined) return { tick, detail: await host.rpc.request('taskDetail', { taskId: t.id, locals: true }) };
  }
  throw new Error(`no worker was fetching from tick ${from} on`);
}

// The follower's handover (line-debug-worker.ts): a live recorded run's copy once
// (writeReplayCopy, with its mark), then only its growths (writeRecordingGrowth), each
// appended in place in a second host's opened copy (growRecording); the copy grown is the
// run: its timeline is the live run's, and it replays to its last tick.
describe('host: a live recording followed in growths', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-host-grow-'));
  let live: HostClient;
  let copy: HostClient;
  before(() => {
    live = forkHost();
    copy = forkHost();
  });
  after(async () => {
    await live.close();
    await copy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a copy, then growths between ticks: each holds only what was added, the grown copy is the run, and a growth that does not fit is refused', async () => {
    await live.rpc.request('hello', { client: 'test', protocolVersion: PROTOCOL_VERSION });
    await copy.rpc.request('hello', { client: 'test', protocolVersion: PROTOCOL_VERSION });
    const launched = await live.rpc.request('launch', {
      target: { kind: 'demo', pages: 300, latency: 'instant' },
      options: { record: true, maxTasks: 20 },
    });
    let n = 0;
    const file = (): string => join(dir, `r${n++}`);
    const first = file();
    const written = await live.rpc.request('writeReplayCopy', { path: first });
    assert.ok(written.mark !== undefined && !written.midTick, JSON.stringify(written));
    await copy.rpc.request('openRecording', { path: first, unshown: true, live: true });
    let mark: RecordingMark = written.mark;
    const sizes: number[] = [];
    let finished = false;
    let stale: string | null = null;
    for (let i = 0; !finished && i < 10_000; i++) {
      finished = live.eventsOf('finished').some((f) => f.runId === launched.runId);
      const path = file();
      const grown = await live.rpc.request('writeRecordingGrowth', { path, from: mark });
      assert.equal(grown.runId, launched.runId);
      const added = grown.to.events - mark.events + grown.to.gaps - mark.gaps + grown.to.payload - mark.payload;
      // A growth file is what was added (and a small header with the notes added), never the recording.
      assert.ok(
        grown.bytes <=
          added +
            1000 +
            200 * (grown.to.details - mark.details + grown.to.outcomes - mark.outcomes + grown.to.lints - mark.lints),
        `${grown.bytes} bytes for ${added} added`,
      );
      sizes.push(grown.bytes);
      assert.deepEqual(await copy.rpc.request('growRecording', { path, live: !finished }), { ticks: grown.ticks });
      if (stale === null) stale = path;
      mark = grown.to;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(finished && sizes.length >= 3, `${sizes.length} growths`);
    // The first growth again: it starts where the copy ended, not where the grown copy does now.
    await rejectsWith(
      copy.rpc.request('growRecording', { path: stale!, live: false }),
      'badState',
      /recording ends at .* the growth starts at/,
    );
    await rejectsWith(
      live.rpc.request('writeRecordingGrowth', { path: file(), from: { ...mark, events: mark.events + 1 } }),
      'badState',
      /not a mark of it/,
    );
    // The grown copy is the run: the same timeline, and it replays (checked against it) to its last tick.
    const a = await live.rpc.request('timeline', {});
    const b = await copy.rpc.request('timeline', {});
    assert.equal(b.lanes.length, a.lanes.length);
    assert.deepEqual(
      b.lanes.map((l) => [l.taskId, l.name, l.endState, l.segments.length]),
      a.lanes.map((l) => [l.taskId, l.name, l.endState, l.segments.length]),
    );
    assert.deepEqual(b.marks, a.marks);
    const ticks = (await live.rpc.request('seekTick', { tick: null })).ticks;
    assert.equal((await copy.rpc.request('seekTick', { tick: ticks, replayed: true })).tick, ticks);
    const table = await copy.rpc.request('snapshot', {});
    assert.equal(table.tick, ticks);
  });
});

describe('host: recordings written by the coroscope CLI', () => {
  let host: HostClient;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-cli-rec-'));

  before(() => {
    host = forkHost({ bundle: distBundle('runtime-host.js') });
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a CLI crawl of a loopback site opens with the site stopped: timeline, seek, stacks and locals at a past tick, who woke a task', async () => {
    const site = await startDemoSite({ pages: 30, latencyMs: 5 });
    const file = join(dir, 'url.corotrace');
    let rec: Awaited<ReturnType<typeof coroscope>>;
    try {
      rec = await coroscope(['crawl', site.url, '--max-tasks', '4', '--quiet', '--record', file]);
    } finally {
      await site.close();
    }
    assert.equal(rec.status, 0, rec.stderr);
    const opened = await host.rpc.request('openRecording', { path: file });
    assert.equal(opened.program, 'crawl');
    assert.ok(opened.ticks > 20 && opened.sockets > 0, JSON.stringify(opened));
    const tl = await host.rpc.request('timeline', {});
    assert.equal(tl.ticks, opened.ticks);
    assert.equal(tl.live, false);
    assert.equal(tl.lanes.filter((l) => l.name.startsWith('worker-')).length, 4);
    // Who woke a worker reading its socket: the I/O, at the tick the timeline says.
    const woken = tl.lanes
      .flatMap((l) => l.segments)
      .find((s) => s.awaiting === 'socket.read' && s.wokenBy === 'io' && s.wokenTick !== undefined);
    assert.ok(woken !== undefined, 'a socket read woken by I/O');

    // Recorded without --inspect (no frame chains), yet the host replays it with frames: stacks and locals at
    // the past tick.
    const { tick, detail } = await workerFetchingFrom(host, Math.floor(tl.ticks / 3), tl.ticks);
    const snap = await host.rpc.request('snapshot', {});
    assert.equal(snap.tick, tick);
    const fetch = detail.frames.find((f) => f.name === 'fetch');
    assert.ok(fetch !== undefined, JSON.stringify(detail.frames.map((f) => f.name)));
    assert.match(
      fetch.locals.find((l) => l.name === 'url')?.value ?? '',
      new RegExp(`^"${site.url.replace(/[/.]/g, '\\$&')}`),
    );
    const end = await host.rpc.request('seekTick', { tick: null });
    assert.equal(end.tick, opened.ticks, "an opened recording's present is its last tick");
  });

  test('a CLI --demo crawl with --inspect opens and seeks to any tick, the last one too', async () => {
    const file = join(dir, 'demo.corotrace');
    const rec = await coroscope([
      'crawl',
      '--demo',
      '--pages',
      '20',
      '--instant',
      '--max-tasks',
      '3',
      '--inspect',
      '--quiet',
      '--record',
      file,
    ]);
    assert.equal(rec.status, 0, rec.stderr);
    const from = host.events.length;
    const opened = await host.rpc.request('openRecording', { path: file });
    assert.equal(opened.program, 'demo');
    const mid = Math.floor(opened.ticks / 2);
    assert.deepEqual(await host.rpc.request('seekTick', { tick: mid }), {
      runId: opened.runId,
      tick: mid,
      ticks: opened.ticks,
      replayed: false,
    });
    const snap = await host.rpc.request('snapshot', {});
    assert.ok(
      snap.tasks.some((t) => t.name === 'crawl' && t.state === 'suspended'),
      'the crawl task is there mid-crawl',
    );
    assert.ok(host.eventsOf('viewedTick').length > 0 && host.events.slice(from).some((e) => e.event === 'viewedTick'));
    // The replay is checked at every seek: the last tick too.
    assert.equal((await host.rpc.request('seekTick', { tick: opened.ticks, replayed: true })).replayed, true);
  });

  test("a CLI crawl interrupted by Ctrl-C opens and seeks to its end: the signal's cancel is replayed", async () => {
    const file = join(dir, 'sigint.corotrace');
    const run = await interruptedCrawl(file, 'SIGINT');
    assert.equal(run.status, 130, run.stderr);
    assert.match(run.stderr, /cancelled by the CLI/);
    const opened = await host.rpc.request('openRecording', { path: file });
    assert.equal(opened.program, 'demo');
    const tl = await host.rpc.request('timeline', {});
    const crawl = tl.lanes.find((l) => l.name === 'crawl');
    assert.equal(crawl?.endState, 'cancelled');
    // Every tick after the Ctrl-C replays too (the replay is checked at each seek): the last one.
    assert.equal((await host.rpc.request('seekTick', { tick: opened.ticks })).tick, opened.ticks);
    assert.equal(
      (await host.rpc.request('seekTick', { tick: Math.max(1, opened.ticks - 3) })).tick,
      Math.max(1, opened.ticks - 3),
    );
  });

  test('a CLI crawl a real SIGTERM interrupted opens cancelled by the CLI (SIGTERM), as coroscope replay says, never by "unknown"', async () => {
    const file = join(dir, 'sigterm.corotrace');
    const run = await interruptedCrawl(file, 'SIGTERM');
    assert.equal(run.status, 143, run.stderr);
    assert.match(run.stderr, /the crawl was cancelled by the CLI/);
    const replayed = await coroscope(['replay', file]);
    assert.equal(replayed.status, 143, replayed.stderr);
    assert.equal(
      replayed.stderr,
      'coroscope crawl: interrupted: the crawl was cancelled by the CLI; report of what was done:\n',
    );

    const opened = await host.rpc.request('openRecording', { path: file });
    // The timeline: the crawl's lane, and the cancel's mark, say who asked.
    const tl = await host.rpc.request('timeline', {});
    const crawl = tl.lanes.find((l) => l.name === 'crawl');
    assert.ok(crawl !== undefined);
    assert.equal(crawl.endState, 'cancelled');
    assert.deepEqual(crawl.cancelledBy, { kind: 'cli' });
    const mark = tl.marks.find((m) => m.kind === 'cancel' && m.taskId === crawl.taskId);
    assert.equal(mark?.detail, 'cancel of crawl asked by the CLI (SIGTERM)');
    // The workers were cancelled by the crawl task (as recorded), not by the CLI.
    const workers = tl.lanes.filter((l) => l.name.startsWith('worker-'));
    assert.ok(
      workers.length > 0 &&
        workers.every((w) => w.cancelledBy?.kind === 'task' && w.cancelledBy.taskId === crawl.taskId),
      JSON.stringify(workers.map((w) => w.cancelledBy)),
    );

    // The task table at its end (opened: shown at its last tick, replayed): the crawl cancelled by the CLI.
    const end = await host.rpc.request('seekTick', { tick: null });
    assert.equal(end.tick, opened.ticks);
    const snap = await host.rpc.request('snapshot', {});
    const task = snap.tasks.find((t) => t.id === crawl.taskId);
    assert.equal(task?.state, 'cancelled');
    assert.deepEqual(task?.cancelledBy, { kind: 'cli' });
    // At the tick before the cancel was asked, no one had asked it yet.
    await host.rpc.request('seekTick', { tick: crawl.cancelledTick! });
    const before = (await host.rpc.request('snapshot', {})).tasks.find((t) => t.id === crawl.taskId);
    assert.equal(before?.state, 'suspended');
    assert.equal(before?.cancelledBy, undefined);
    await host.rpc.request('seekTick', { tick: crawl.cancelledTick! + 1 });
    const after = (await host.rpc.request('snapshot', {})).tasks.find((t) => t.id === crawl.taskId);
    assert.deepEqual(after?.cancelledBy, { kind: 'cli' });
  });

  test('bad recordings never crash or hang openRecording: refused with one line naming the file, and the host goes on', {
    timeout: 600_000,
  }, async () => {
    const file = join(dir, 'demo.corotrace');
    const bytes = readFileSync(file);
    /**
     * Opens a copy: refused with one line naming it, or (`reads`: a change the format cannot tell) opened and
     * shown at its end.
     */
    const openCopy = async (copy: CorruptCopy, k: number, reads: boolean): Promise<void> => {
      const path = join(dir, `bad-${k}.corotrace`);
      writeFileSync(path, copy.bytes);
      let timer: NodeJS.Timeout | undefined;
      const hang = new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`${copy.label}: openRecording did not answer in 60 s`)), 60_000)),
      );
      const answer = await Promise.race([host.rpc.request('openRecording', { path }), hang]).then(
        (opened) => ({ opened }),
        (e: unknown) => ({ error: e }),
      );
      clearTimeout(timer);
      if ('opened' in answer) {
        assert.ok(reads, `${copy.label}: opened`);
        assert.equal((await host.rpc.request('timeline', {})).ticks, answer.opened.ticks, copy.label);
        return;
      }
      const e = answer.error;
      assert.ok(
        e instanceof RemoteError && (e.code === 'badRecording' || e.code === 'replayFailed'),
        `${copy.label}: ${e instanceof Error ? e.message : String(e)}`,
      );
      assert.ok(e.message.includes(path) && !e.message.includes('\n'), `${copy.label}: ${e.message}`);
    };
    let k = 0;
    for (const copy of spread(cutCopies(bytes, 97), 8)) await openCopy(copy, k++, false);
    for (const copy of spread(flipCopies(bytes, 7, true), 16)) await openCopy(copy, k++, true);
    for (const copy of spread(sectionCopies(decodeRecording(bytes, file), 5), 16)) await openCopy(copy, k++, true);
    for (const copy of oddCopies(bytes)) await openCopy(copy, k++, false);
    await rejectsWith(
      host.rpc.request('openRecording', { path: dir }),
      'badRecording',
      new RegExp(`${dir.replace(/[/.]/g, '\\$&')} is a directory, not a recording file`),
    );
    // The host goes on: the good recording opens and replays to its end.
    const opened = await host.rpc.request('openRecording', { path: file });
    assert.equal((await host.rpc.request('seekTick', { tick: opened.ticks })).tick, opened.ticks);
  });

  test('a CLI recording the host cannot start again is refused with the reason', async () => {
    const file = join(dir, 'demo.corotrace');
    const rec = decodeRecording(readFileSync(file), file);
    const bad = join(dir, 'bad-launch.corotrace');
    writeFileSync(
      bad,
      encodeRecording({
        ...rec,
        meta: { ...rec.meta, program: { kind: 'crawl', target: { kind: 'crawl', urls: [] }, options: {} } },
      }),
    );
    await rejectsWith(
      host.rpc.request('openRecording', { path: bad }),
      'badRecording',
      /bad-launch\.corotrace is corrupt: the launch it records is not valid \(launch: target\.urls must name at least one URL\)/,
    );
    const none = join(dir, 'none-program.corotrace');
    writeFileSync(none, encodeRecording({ ...rec, meta: { ...rec.meta, program: { kind: 'crawl' } } }));
    await rejectsWith(
      host.rpc.request('openRecording', { path: none }),
      'badRecording',
      /none-program\.corotrace records a crawl run that names no launch/,
    );
    const changed = join(dir, 'changed.corotrace');
    writeFileSync(
      changed,
      encodeRecording({
        ...rec,
        meta: {
          ...rec.meta,
          sources: rec.meta.sources.map((s) =>
            s.path === 'runtime/crawler/crawler.ts' ? { ...s, sha256: '0'.repeat(64) } : s,
          ),
        },
      }),
    );
    await rejectsWith(
      host.rpc.request('openRecording', { path: changed }),
      'badRecording',
      /changed\.corotrace was recorded from sources that have changed since: runtime\/crawler\/crawler\.ts/,
    );
  });
});
