// One clock and one count, proved on a recorded demo crawl (instant latency) with the real
// runtime host: at the present of the finished run and at several past ticks, every view's
// model states the same moment: the RunSession (the status bar's words), the panel's header,
// scrubber and dashboard (webview/state/moment-view.ts fed as app.ts feeds it), the debugger's
// loop thread (dap-mapping.ts on the moment's snapshot) and `coroscope replay` of the saved
// recording (its report's time: the recorded clock from the crawl's first tick to its last).
// An opened recording says "tick N of M", never "past", and offers no way back. A stop on a
// line is within its tick: the panel and the debugger both say so, with the same tick.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Timeline } from '../../protocol/host-protocol';
import { elapsedSecondsAt, tickText } from '../../protocol/run-moment';
import { RunRegistry } from '../../extension/runs/run-registry';
import { RunSession } from '../../extension/run-session';
import { statusText } from '../../extension/status-bar-text';
import { loopThreadName } from '../../extension/debug/dap-mapping';
import {
  dashboardSeconds,
  headerFacts,
  MomentTracker,
  momentElapsedMs,
  pagesUpTo,
  scrubberText,
} from '../../webview/state/moment-view';
import { TimelineModel } from '../../webview/state/timeline-model';
import { readRecordingFile, readRecordingLog } from '../../runtime/record/recording-file';
import { lineOf } from '../source-line';
import { until } from './wait-until';
import { distBundle } from '../dist-bundles';

const ROOT = join(__dirname, '..', '..');
const HOST = distBundle('runtime-host.js');
const CLI = join(ROOT, 'bin', 'coroscope.js');

/** The panel's models as app.ts feeds them: the session's status, its table's snapshot, its progress. */
function panelOf(
  session: RunSession,
  timeline: TimelineModel,
): { header: string[]; scrubber: ReturnType<typeof scrubberText>; seconds: number | null } {
  const tracker = new MomentTracker();
  if (session.lastProgress !== null) tracker.progress(session.lastProgress);
  const snap = session.mirror.toFullSnapshot();
  const status = session.status;
  tracker.snapshot(snap, status.viewedTick !== undefined);
  const m = tracker.moment(status, { timelineTicks: timeline.lastTick });
  const p = tracker.progressAt(m);
  const live = session.mirror.counts.scheduled + session.mirror.counts.running + session.mirror.counts.suspended;
  return {
    header: headerFacts(m, live, p),
    scrubber: scrubberText(m, timeline),
    seconds: p === null ? null : dashboardSeconds(m, p, timeline),
  };
}

describe('every view states the same moment of a recorded demo crawl', {
  timeout: 120_000,
}, () => {
  let runs: RunRegistry;
  let session: RunSession;
  let timeline: Timeline;
  const model = new TimelineModel();
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-moment-'));
  const file = join(dir, 'demo.corotrace');

  before(async () => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
    session = new RunSession(runs, { snapshotRate: () => 20 });
    await session.launch({ kind: 'demo', latency: 'instant' }, { maxTasks: 5, record: true });
    await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    timeline = await session.request('timeline', {});
    model.apply(timeline);
    await until('the last snapshot of the run', () => session.mirror.tick === timeline.ticks, 10_000);
  });
  after(async () => {
    session.dispose();
    await runs.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the present of the finished run: its last tick and its last pages, in every view', () => {
    const last = timeline.ticks;
    const p = session.lastProgress;
    assert.ok(p !== null && p.done > 10);
    // The status (the status bar's and every later panel's source) counts to the run's last tick, as the
    // timeline and the table do.
    assert.equal(session.status.tick, last);
    const m = session.moment();
    assert.deepEqual(m, { kind: 'present', tick: last, lastTick: last, onLine: false });
    const bar = statusText(session.status, m, session.shownProgress(), session.mirror.counts);
    assert.equal(bar.text, `$(pulse) ${p.done} pages · 0 tasks · done`);
    assert.match(bar.tooltip, new RegExp(`Now: tick ${last}\\n`));
    const panel = panelOf(session, model);
    assert.deepEqual(
      panel.header.filter((f) => f.startsWith('tick') || f.endsWith('pages')),
      [`tick ${last}`, `${p.done} pages`],
    );
    assert.equal(panel.scrubber.label, `Tick ${last} · the present`);
    assert.equal(panel.seconds, p.seconds);
  });

  for (const share of [0.25, 0.5, 0.8]) {
    it(`a past tick at ${share * 100}% of the run: its tick, its pages and its time, in every view`, async () => {
      const last = timeline.ticks;
      const tick = Math.max(2, Math.round(last * share));
      await session.seek(tick);
      await until(
        `tick ${tick} replayed, with its crawl numbers`,
        () =>
          session.status.viewedTick === tick &&
          session.status.viewedReplaying !== true &&
          session.mirror.tick === tick &&
          session.shownProgress() !== null,
        20_000,
      );
      const m = session.moment();
      assert.deepEqual(m, { kind: 'past', tick, lastTick: last, onLine: false });
      const p = session.shownProgress()!;
      // A past tick's pages, not the live totals.
      assert.ok(
        p.done < session.lastProgress!.done,
        `${p.done} pages at tick ${tick}, ${session.lastProgress!.done} at the end`,
      );
      const bar = statusText(session.status, m, p, session.mirror.counts);
      assert.match(bar.text, new RegExp(`^\\$\\(history\\) tick ${tick} of ${last} \\(past\\) · ${p.done} pages · `));
      const panel = panelOf(session, model);
      assert.deepEqual(
        panel.header.filter((f) => f.includes('tick') || f.endsWith('pages')),
        [`viewing tick ${tick} of ${last} (past)`, `${p.done} pages`],
      );
      assert.ok(panel.scrubber.offersPresent);
      assert.match(panel.scrubber.label, new RegExp(`^Viewing tick ${tick} of ${last} \\(past\\) · `));
      // The dashboard's list of pages: those finished by then.
      assert.equal(session.pages.length, session.lastProgress!.done);
      assert.equal(pagesUpTo(m, session.pages, session.lastProgress!.done, p).length, p.done);
      // The debugger's loop thread, from the table of the moment it is shown.
      assert.equal(
        loopThreadName({ tick: session.mirror.tick, paused: true, running: true }),
        `event loop [paused after tick ${tick}]`,
      );
      // The scrubber's time and the dashboard's are the run's clock at the tick.
      const ms = momentElapsedMs(m, model);
      assert.ok(ms !== null);
      assert.equal(panel.seconds, ms / 1000);
    });
  }

  it('coroscope replay of the saved crawl reports the time the live crawl did, the recorded clock from its first tick to its last', async () => {
    await session.seek(null);
    await until(
      'back at the present',
      () => session.status.viewedTick === undefined && session.shownProgress() === session.lastProgress,
    );
    // Back at the present: the live pages again, not the past tick's.
    assert.equal(
      statusText(session.status, session.moment(), session.shownProgress(), session.mirror.counts).text,
      `$(pulse) ${session.lastProgress!.done} pages · 0 tasks · done`,
    );
    await session.request('saveRecording', { path: file });
    const replay = spawnSync(process.execPath, [CLI, 'replay', file, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(replay.status, 0, replay.stderr);
    const report = JSON.parse(replay.stdout) as { seconds: number; fetched: number };
    const live = session.lastProgress!;
    assert.equal(report.seconds, Number(live.seconds.toFixed(3)));
    // The crawl task's first step and its step after the queue's join (where the crawl takes its end time),
    // on the recording's clock (the one the scrubber reads).
    const crawl = timeline.lanes.find((l) => l.name === 'crawl');
    assert.ok(crawl !== undefined);
    const first = crawl.segments.find((s) => s.state === 'running')!.fromTick;
    const joined = crawl.segments.find((s) => s.state === 'suspended' && s.awaiting === 'queue.join')?.wokenTick;
    assert.ok(joined !== undefined);
    const end = joined + 1;
    const times = Array.from(readRecordingLog(readRecordingFile(file), file).times);
    const seconds = elapsedSecondsAt(times, end)! - elapsedSecondsAt(times, first)!;
    assert.ok(
      Math.abs(seconds - report.seconds) < 0.0015,
      `the recorded clock says ${seconds} s, the replay ${report.seconds} s`,
    );
    const at = (tick: number): number =>
      momentElapsedMs({ kind: 'past', tick, lastTick: timeline.ticks, onLine: false }, model)! / 1000;
    assert.ok(
      Math.abs(at(end) - at(first) - report.seconds) < 0.0015,
      `the scrubber says ${at(end) - at(first)} s, the replay ${report.seconds} s`,
    );
  });

  it('an opened recording: "tick N of M" at its end, never past, no way back', async () => {
    const other = new RunSession(runs, { snapshotRate: () => 20 });
    try {
      await other.openRecording(file);
      await until(
        'the recording shown at its end',
        () => other.status.viewedTick === timeline.ticks && other.status.viewedReplaying !== true,
      );
      const m = other.moment();
      assert.deepEqual(m, { kind: 'recording', tick: timeline.ticks, lastTick: timeline.ticks, onLine: false });
      assert.equal(tickText(m), `tick ${timeline.ticks} of ${timeline.ticks}`);
      const words = panelOf(other, model).scrubber;
      assert.equal(words.offersPresent, false);
      assert.doesNotMatch(words.label, /past|present/);
      // Its pages at its end are the crawl's last, as the live run said them.
      await until("the recording's crawl numbers at its end", () => other.shownProgress() !== null);
      assert.equal(other.shownProgress()!.done, session.lastProgress!.done);
      const bar = statusText(other.status, m, other.shownProgress(), other.mirror.counts).text;
      assert.equal(
        bar,
        `$(history) tick ${timeline.ticks} of ${timeline.ticks} · ${session.lastProgress!.done} pages · 0 tasks`,
      );
      assert.doesNotMatch(bar, /past/);
    } finally {
      other.dispose();
    }
  });
});

describe('a stop on a line: every view says the tick it stands in', {
  timeout: 120_000,
}, () => {
  let runs: RunRegistry;
  let session: RunSession;

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
    session = new RunSession(runs, { snapshotRate: () => 20 });
  });
  after(async () => {
    session.dispose();
    await runs.dispose();
  });

  it('the panel and the debugger: "in tick N", the tick the loop is in, though the timeline holds only the ticks before it', async () => {
    await session.launch(
      { kind: 'demo', pages: 12, latency: 'instant' },
      { maxTasks: 2, stopOnEntry: true, record: true },
    );
    await until('the pause at entry', () => session.status.phase === 'paused');
    const crawler = join(__dirname, '..', '..', 'runtime', 'crawler', 'crawler.ts');
    await session.request('setBreakpoints', {
      file: crawler,
      breakpoints: [{ file: crawler, line: lineOf(crawler, 'let response: ClientResponse | null = null;') }],
    });
    await session.continue();
    await until(
      'the stop on the line',
      () => session.status.phase === 'paused' && session.status.pauseReason !== 'entry',
      30_000,
    );
    const stopTick = session.status.tick;
    assert.equal(session.status.onLine, true);
    await until('the table at the stop', () => session.mirror.tick === stopTick);
    const timeline = await session.request('timeline', {});
    // The tick under way is not recorded yet: the timeline ends with the tick before.
    assert.equal(timeline.ticks, stopTick - 1);
    const model = new TimelineModel();
    model.apply(timeline);
    const m = session.moment();
    assert.deepEqual(m, { kind: 'present', tick: stopTick, lastTick: stopTick, onLine: true });
    const panel = panelOf(session, model);
    assert.equal(panel.header[0], `in tick ${stopTick} (on a line)`);
    assert.equal(panel.scrubber.label, `In tick ${stopTick} (on a line) · the present`);
    assert.equal(
      loopThreadName({ tick: session.mirror.tick, paused: true, onLine: true, running: true }),
      `event loop [stopped on a line in tick ${stopTick}]`,
    );
    assert.match(
      statusText(session.status, m, session.shownProgress(), session.mirror.counts).tooltip,
      new RegExp(`Now: in tick ${stopTick} \\(on a line\\)`),
    );
    await session.request('setBreakpoints', { file: crawler, breakpoints: [] });
    await session.continue();
    await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    assert.equal(session.status.onLine, undefined);
  });
});

describe("paused time is in no view's clock", {
  timeout: 120_000,
}, () => {
  let runs: RunRegistry;
  let session: RunSession;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-moment-held-'));

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
    session = new RunSession(runs, { snapshotRate: () => 20 });
  });
  after(async () => {
    session.dispose();
    await runs.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  // The recorded tick times (the scrubber's clock, and the clock a replay runs on) leave a
  // pause out only once the loop's clock does (runtime/clock.ts, issue 25 item 4).
  it('a crawl paused 1.5 s: the dashboard, the scrubber and coroscope replay say the same seconds, the pause in none', async () => {
    await session.launch({ kind: 'demo', latency: 'instant' }, { maxTasks: 5, record: true });
    await until('the crawl under way', () => (session.lastProgress?.done ?? 0) >= 20, 30_000);
    await session.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await session.continue();
    await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    const live = session.lastProgress!;
    const timeline = await session.request('timeline', {});
    const model = new TimelineModel();
    model.apply(timeline);
    const crawl = timeline.lanes.find((l) => l.name === 'crawl')!;
    const first = crawl.segments.find((s) => s.state === 'running')!.fromTick;
    const end = crawl.segments.find((s) => s.state === 'suspended' && s.awaiting === 'queue.join')!.wokenTick! + 1;
    const at = (tick: number): number =>
      momentElapsedMs({ kind: 'past', tick, lastTick: timeline.ticks, onLine: false }, model)! / 1000;
    assert.ok(
      Math.abs(at(end) - at(first) - live.seconds) < 0.0015,
      `the scrubber says ${at(end) - at(first)} s, the dashboard ${live.seconds} s`,
    );
    const file = join(dir, 'held.corotrace');
    await session.request('saveRecording', { path: file });
    const replay = spawnSync(process.execPath, [CLI, 'replay', file, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(replay.status, 0, replay.stderr);
    assert.equal((JSON.parse(replay.stdout) as { seconds: number }).seconds, Number(live.seconds.toFixed(3)));
  });
});
