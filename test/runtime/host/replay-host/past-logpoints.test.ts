// Logpoints in the past (pastLogpointHits: runtime/host/replay-host/past-hit-search.ts logHits):
// the oracle is the live logpoint. A recorded run (a demo crawl, three samples) with a logpoint
// set before it prints, live, each hit's message; the message carries the tick and task the live
// loop was in (the bridge's where()). Once the run has finished, the same logpoint asked of the
// past lists every hit of the whole run by replay: the same hits, in the same order, each with the
// text the live run printed, and its tick and task those the live run printed. A logpoint with a
// condition and a hit condition counts as live; asking the past never changes the run (its
// recording is the same bytes before and after); a hit listed is gone to (pastBreakpointHit's
// logpointHit: the replay stopped on it, its locals those of the message). Runs against the bundle.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Breakpoint, HostEvents, LogpointHit } from '../../../../protocol/host-protocol';
import { readRecordingFile } from '../../../../runtime/record/recording-file';
import { forkHost, landedOnLine, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const SAMPLES = join(ROOT, 'runtime', 'samples');

/** The live loop's tick and task at the hit, as the message prints them (before the line's own values). */
const WHERE = '{globalThis.__coroscopeLine.where().tick}/{globalThis.__coroscopeLine.where().taskId}|';

interface Case {
  name: string;
  target: Record<string, unknown>;
  options?: Record<string, unknown>;
  file: string;
  needle: string;
  /** The message's own values (after WHERE). */
  message: string;
  /** At least this many hits (the line runs more than once). */
  atLeast: number;
}

const CASES: readonly Case[] = [
  {
    name: 'a demo crawl: fetch, once per page parsed',
    target: { kind: 'demo', pages: 12, latency: 'instant' },
    options: { maxTasks: 2 },
    file: CRAWLER,
    needle: 'const { stat, links } = parsed;',
    message: 'fetched {url} at depth {depth}',
    atLeast: 12,
  },
  {
    name: 'sample gather-vs-ascompleted: getUrl after its sleep',
    target: { kind: 'sample', id: 'gather-vs-ascompleted' },
    file: join(SAMPLES, 'gather-vs-ascompleted.ts'),
    needle: 't.log(`  done: ${url} took',
    message: '{url} {seconds}',
    atLeast: 6,
  },
  {
    name: 'sample json-fetch: each header line read',
    target: { kind: 'sample', id: 'json-fetch' },
    file: join(SAMPLES, 'json-fetch.ts'),
    needle: "const colon = line.indexOf(':');",
    message: '{JSON.stringify(line)}',
    atLeast: 2,
  },
  {
    name: 'sample fib-loop: the ticker, each tick',
    target: { kind: 'sample', id: 'fib-loop' },
    file: join(SAMPLES, 'ticker.ts'),
    needle: 'record.count++;',
    message: 'count {record.count} due {due}',
    atLeast: 2,
  },
];

/** The lines the live run printed (its stdout, as output events) from `from` on. */
function printed(host: HostClient, from: number): string[] {
  const text = host.events
    .slice(from)
    .filter((e) => e.event === 'output' && (e.body as HostEvents['output']).category === 'stdout')
    .map((e) => (e.body as HostEvents['output']).text)
    .join('');
  return text.split('\n');
}

/** A recorded run of `c` with `logpoint` set before it: the live logpoint's lines (the WHERE ones). */
async function liveRun(host: HostClient, c: Case, logpoint: Breakpoint): Promise<string[]> {
  await host.rpc.request('setBreakpoints', { file: c.file, breakpoints: [logpoint] });
  const from = host.events.length;
  await host.rpc.request('launch', { target: c.target, options: { ...c.options, record: true } } as never);
  await host.waitFor('finished', () => true, 120_000, from);
  return printed(host, from).filter((l) => /^\d+\/(\d+|null)\|/.test(l));
}

/** A past hit as the live line printed it: its tick and task first, then its message. */
function asLive(h: LogpointHit): { tick: number; taskId: number | null; message: string } {
  return { tick: h.tick, taskId: h.taskId, message: h.message };
}

function parseLive(line: string): { tick: number; taskId: number | null; message: string } {
  const m = /^(\d+)\/(\d+|null)\|/.exec(line)!;
  return { tick: Number(m[1]), taskId: m[2] === 'null' ? null : Number(m[2]), message: line };
}

describe('Logpoints in the past: every hit of the recorded run, as the live logpoint printed it (bundle)', {
  timeout: 600_000,
}, () => {
  let host: HostClient;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-logpoints-'));
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const c of CASES) {
    test(`${c.name}: same hits, ticks, tasks, messages and order as live`, async () => {
      const logpoint: Breakpoint = { file: c.file, line: lineOf(c.file, c.needle), logMessage: WHERE + c.message };
      const live = (await liveRun(host, c, logpoint)).map(parseLive);
      assert.ok(live.length >= c.atLeast, `${live.length} live hits`);
      // The live logpoint goes: the past one is asked alone.
      await host.rpc.request('setBreakpoints', { file: c.file, breakpoints: [] });
      const past = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
      assert.deepEqual(past.hits.map(asLive), live);
      for (const h of past.hits) {
        assert.equal(h.file, c.file);
        assert.equal(h.line, logpoint.line);
        assert.ok(h.time >= 0 && h.tick >= 1 && h.tick <= past.ticks, JSON.stringify(h));
      }
      // In time order.
      for (let i = 1; i < past.hits.length; i++) assert.ok(past.hits[i]!.time >= past.hits[i - 1]!.time);
      // Each hit's time is when its tick began on the run's timeline (the live host's own).
      const { tickTimes } = await host.rpc.request('timeline', {});
      assert.deepEqual(
        past.hits.map((h) => [h.tick, h.time]),
        past.hits.map((h) => [h.tick, tickTimes[h.tick - 1]]),
      );
    });
  }

  test('a message that throws at some hits: no hit there, live and past alike', async () => {
    const c = CASES[0]!;
    const logpoint: Breakpoint = {
      file: c.file,
      line: lineOf(c.file, c.needle),
      logMessage: `${WHERE}{url.length % 2 === 0 ? url : undefined.x}`,
    };
    const live = (await liveRun(host, c, logpoint)).map(parseLive);
    await host.rpc.request('setBreakpoints', { file: c.file, breakpoints: [] });
    const past = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    // Some hits print (the even-length URLs), some do not (the odd-length ones throw).
    const all = await host.rpc.request('pastLogpointHits', { logpoints: [{ ...logpoint, logMessage: '{url}' }] });
    assert.ok(live.length >= 2 && live.length < all.hits.length, `${live.length} of ${all.hits.length} hits`);
    assert.deepEqual(past.hits.map(asLive), live);
  });

  test('a hit condition counts a hit whose message throws, as live: the same hits print after it', async () => {
    const c = CASES[0]!;
    const logpoint: Breakpoint = {
      file: c.file,
      line: lineOf(c.file, c.needle),
      logMessage: `${WHERE}{url.length % 2 === 0 ? url : undefined.x}`,
      hitCondition: '%2',
    };
    const live = (await liveRun(host, c, logpoint)).map(parseLive);
    await host.rpc.request('setBreakpoints', { file: c.file, breakpoints: [] });
    const past = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    // Every second hit prints, unless its message throws (an odd-length URL): live counts that hit all the
    // same, so the past must, or every later print moves by one. The second hits' even-length URLs print.
    const all = await host.rpc.request('pastLogpointHits', { logpoints: [{ ...logpoint, logMessage: '{url}' }] });
    const printable = all.hits.filter((h) => h.message.length % 2 === 0).length;
    assert.ok(live.length >= 2 && live.length === printable, `${live.length} printed, ${printable} could`);
    assert.deepEqual(past.hits.map(asLive), live);
  });

  test('a condition and a hit condition count as live; asking the past does not change the run', async () => {
    const c = CASES[0]!;
    const line = lineOf(c.file, c.needle);
    const logpoint: Breakpoint = {
      file: c.file,
      line,
      logMessage: `${WHERE}{url}`,
      condition: 'depth > 0',
      hitCondition: '%3',
    };
    const live = (await liveRun(host, c, logpoint)).map(parseLive);
    assert.ok(live.length >= 3, `${live.length}`);
    await host.rpc.request('setBreakpoints', { file: c.file, breakpoints: [] });
    const before = join(dir, 'before.corotrace');
    const afterFile = join(dir, 'after.corotrace');
    await host.rpc.request('saveRecording', { path: before });
    const ticks = (await host.rpc.request('timeline', {})).ticks;
    const past = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    assert.deepEqual(past.hits.map(asLive), live);
    assert.equal(past.ticks, ticks);
    // Twice, and with another logpoint beside it: the same hits of the first.
    const other: Breakpoint = {
      file: c.file,
      line: lineOf(c.file, 'let response: ClientResponse | null = null;'),
      logMessage: '{url}',
    };
    const both = await host.rpc.request('pastLogpointHits', { logpoints: [other, logpoint] });
    assert.deepEqual(both.hits.filter((h) => h.logpoint === 1).map(asLive), live);
    assert.ok(both.hits.some((h) => h.logpoint === 0));
    await host.rpc.request('saveRecording', { path: afterFile });
    // The run recorded: its event log, its inputs (clock readings, socket bytes) the same.
    const [was, is] = [readRecordingFile(before), readRecordingFile(afterFile)];
    assert.ok(was.events.equals(is.events), 'the event log changed');
    assert.ok(was.gaps.equals(is.gaps) && was.payload.equals(is.payload), "the recording's inputs changed");
    assert.equal((await host.rpc.request('timeline', {})).ticks, ticks);
  });

  test('a hit listed is gone to: the replay stops on it, its locals those its message printed', async () => {
    const c = CASES[0]!;
    const logpoint: Breakpoint = { file: c.file, line: lineOf(c.file, c.needle), logMessage: '{url}' };
    const past = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    for (const h of [past.hits[past.hits.length - 1]!, past.hits[2]!]) {
      const landing = landedOnLine(
        await host.rpc.request('pastBreakpointHit', {
          direction: 'back',
          tick: past.ticks,
          logpointHit: { logpoint, tick: h.tick, ordinal: h.ordinal },
        }),
      );
      assert.equal(landing.tick, h.tick);
      assert.equal(landing.taskId, h.taskId);
      assert.equal(landing.line?.line, logpoint.line);
      assert.equal((await host.rpc.request('lineEvaluate', { expression: 'url' })).value, JSON.stringify(h.message));
    }
    // While a hit is shown (a finished run: its replay holds that line), a logpoint added is listed all the
    // same, by a replay of its own: the same hits, and the hit stays shown.
    const shown = past.hits[2]!;
    const again = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    assert.deepEqual(again, past);
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'url' })).value, JSON.stringify(shown.message));
    await host.rpc.request('seekTick', { tick: null });
  });

  test('a sample with a loop of its own, launched with record, is not recorded: its past says why, not "corrupt"', async () => {
    const file = join(SAMPLES, 'callbacks.ts');
    const from = host.events.length;
    const launched = await host.rpc.request('launch', {
      target: { kind: 'sample', id: 'callbacks' },
      options: { record: true },
    });
    const why = /runs a loop of its own, which is not recorded: its past cannot be replayed/;
    assert.match(launched.notRecorded ?? '', why);
    const finished = await host.waitFor('finished', (f) => f.runId === launched.runId, 120_000, from);
    assert.equal(finished.ok, true, finished.summary);
    const logpoint: Breakpoint = { file, line: lineOf(file, 'const ok = crawl.stats.filter('), logMessage: '{ok}' };
    const asks: Array<[string, () => Promise<unknown>]> = [
      ['pastLogpointHits', () => host.rpc.request('pastLogpointHits', { logpoints: [logpoint] })],
      ['timeline', () => host.rpc.request('timeline', {})],
      ['saveRecording', () => host.rpc.request('saveRecording', { path: join(dir, 'callbacks.corotrace') })],
    ];
    for (const [method, ask] of asks)
      await assert.rejects(ask(), (e: Error) => why.test(e.message) && !/corrupt/.test(e.message), method);
    // A sample on the runtime's loop is recorded as asked: no such word.
    const recorded = await host.rpc.request('launch', {
      target: { kind: 'sample', id: 'generators' },
      options: { record: true },
    });
    assert.equal(recorded.notRecorded, undefined);
    await host.waitFor('finished', (f) => f.runId === recorded.runId, 120_000, from);
  });
});
