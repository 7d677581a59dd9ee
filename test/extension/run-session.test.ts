// The extension's run session on the run registry, against the real runtime host
// (dist/runtime-host.js, built by `npm test` before the tests run): lazy start, launch, pause
// at entry, step, continue to the end, a host killed mid-run, following a run another view
// launched, and a launch that leaves another view's run alone; a Deadlock stop said in the
// status, and a deadlock of a run with no debugger reported as an exception (both locks and
// their lines) with a notification; time travel: a seek of a recorded run, Save Recording,
// and a recording opened as a run; the past lines and breakpoint hits of a line stop the
// debugger holds, which every view follows.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunStatus } from '../../protocol/webview-protocol';
import { RunRegistry } from '../../extension/runs/run-registry';
import { RunSession } from '../../extension/run-session';
import { until } from './wait-until';
import type { BreakpointHitLanding } from '../../protocol/host-protocol';
import { lineOf } from '../source-line';
import { distBundle } from '../dist-bundles';

const HOST = distBundle('runtime-host.js');

describe('RunSession on the RunRegistry with the real runtime host', {
  timeout: 60_000,
}, () => {
  let runs: RunRegistry;
  let session: RunSession;
  const phases: RunStatus['phase'][] = [];

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
    session = new RunSession(runs, { snapshotRate: () => 20 });
    session.onStatus.on((s) => phases.push(s.phase));
  });
  after(async () => {
    session.dispose();
    await runs.dispose();
  });

  it('starts nothing until asked, then one run for concurrent callers', async () => {
    assert.equal(session.run, null);
    assert.deepEqual(runs.list(), []);
    const [a, b] = await Promise.all([session.ensureRun(), session.ensureRun()]);
    assert.equal(a, b);
    assert.ok(a.isAlive());
    assert.deepEqual(runs.list(), [a]);
    assert.deepEqual(a.viewers(), ['panel']);
  });

  it('launches a demo crawl paused at entry, steps it, and mirrors its tasks', async () => {
    const r = await session.launch({ kind: 'demo', latency: 'instant' }, { maxTasks: 5, stopOnEntry: true });
    assert.ok(r.runId > 0);
    await until('the pause at entry', () => session.status.phase === 'paused');
    assert.equal(session.status.pauseReason, 'entry');
    const tick0 = session.status.tick;
    for (let i = 0; i < 6; i++) await session.stepTick();
    await until('the workers in the mirror', () => session.mirror.tasks.size >= 6);
    assert.ok(session.status.tick > tick0);
    const worker = [...session.mirror.tasks.values()].find((t) => t.name === 'worker-1');
    assert.ok(worker !== undefined);
    const detail = await session.request('taskDetail', { taskId: worker.id, locals: false });
    assert.equal(detail.task.id, worker.id);
  });

  it('continues to the end of the crawl, with progress points that move forward', async () => {
    await session.continue();
    await until('the end of the crawl', () => session.status.phase === 'finished', 30_000);
    assert.match(session.status.detail, /crawled \d+ urls/);
    const pts = session.progressPoints;
    assert.ok(pts.length >= 1);
    for (let i = 1; i < pts.length; i++) assert.ok(pts[i]!.t > pts[i - 1]!.t);
    assert.ok(session.lastProgress !== null && session.lastProgress.done > 10);
    assert.ok(phases.includes('starting') && phases.includes('running') && phases.includes('finished'));
  });

  // Before any test sets the host's exception breaks (a debugger's filter): this host never had them.
  it('a run from the panel only (no debugger) reports a deadlock: an exception naming both locks and their lines', async () => {
    const program = join(__dirname, 'debug', 'fixtures', 'lock-order-deadlock.ts');
    const file = 'lock-order-deadlock\\.ts';
    const at = (text: string): string => `${file}:${lineOf(program, text)}`;
    const notified: string[] = [];
    const listener = session.onDeadlock.on((e) => notified.push(e.deadlock?.summary ?? ''));
    try {
      await session.launch({ kind: 'program', path: program }, {});
      const entry = await until(
        'the deadlock in the exceptions',
        () => session.exceptions.find((e) => e.deadlock?.stopped === false) ?? false,
        20_000,
      );
      // It goes on (nothing stops it), and the notification is asked for once.
      assert.equal(session.status.phase, 'running');
      assert.equal(entry.deadlock?.stopped, false);
      assert.match(
        entry.traceback.error,
        /^Deadlock: lock-order cycle: \w+ → \w+ → \w+ over (ledger, auditLog|auditLog, ledger)$/,
      );
      assert.deepEqual(notified, [entry.deadlock?.summary]);
      // One frame per task: the lock it waits for (its variable, where it was made), its holder and the line
      // where that took it; at the line where the task waits.
      const frame = (task: string) =>
        entry.traceback.frames.find((f) => f.name.includes(`"${task}" waits`)) ?? assert.fail(task);
      assert.match(
        frame('transfer').name,
        new RegExp(
          `waits on lock auditLog \\(Lock, ${at('const auditLog = new Lock();')}\\), held by Task #\\d+ "audit" since ${at('// audit takes the audit log')}$`,
        ),
      );
      assert.match(
        frame('audit').name,
        new RegExp(
          `waits on lock ledger \\(Lock, ${at('const ledger = new Lock();')}\\), held by Task #\\d+ "transfer" since ${at('// transfer takes the ledger')}$`,
        ),
      );
      assert.equal(frame('transfer').position?.line, lineOf(program, '// transfer waits for the audit log'));
      assert.equal(frame('audit').position?.line, lineOf(program, '// audit waits for the ledger'));
      assert.match(entry.traceback.text, /^Deadlock: lock-order cycle/);
    } finally {
      listener();
      await session.stopRun();
    }
  });

  it("a Deadlock stop (a debugger's filter) is said in the panel's status: the cycle and both locks", async () => {
    const program = join(__dirname, 'debug', 'fixtures', 'lock-order-deadlock.ts');
    await session.launch({ kind: 'program', path: program }, { stopOnEntry: true });
    await until('the pause at entry', () => session.status.phase === 'paused');
    // The filter a debug session sets (on by default); every view of the run hears the stop.
    await session.request('setExceptionBreaks', { taskFailed: true, taskCancelled: false, deadlock: true });
    await session.continue();
    await until(
      'the deadlock stop',
      () => session.status.phase === 'paused' && session.status.pauseReason === 'exception',
      20_000,
    );
    assert.match(
      session.status.detail,
      /^Deadlock: lock-order cycle: \w+ → \w+ → \w+ over (ledger, auditLog|auditLog, ledger)$/,
    );
    await session.stopRun();
  });

  it('no Deadlock stop for a worker left waiting when main has returned: the run finishes', async () => {
    const program = join(__dirname, 'debug', 'fixtures', 'worker-left-waiting.ts');
    await session.launch({ kind: 'program', path: program }, { stopOnEntry: true });
    await until('the pause at entry', () => session.status.phase === 'paused');
    await session.request('setExceptionBreaks', { taskFailed: true, taskCancelled: false, deadlock: true });
    const reasons: Array<string | undefined> = [];
    const listener = session.onStatus.on((s) => reasons.push(s.pauseReason));
    await session.continue();
    await until('the end of the run', () => session.status.phase === 'finished', 20_000);
    listener();
    assert.ok(!reasons.includes('exception'), JSON.stringify(reasons));
  });

  it('a host killed mid-run: the status says so with its last lines, requests fail, the next launch gets a fresh host', async () => {
    await session.launch({ kind: 'demo', latency: 'instant' }, { maxTasks: 5, stopOnEntry: true });
    await until('the pause at entry', () => session.status.phase === 'paused');
    const host = session.run;
    assert.ok(host !== null);
    const exits: boolean[] = [];
    runs.onDidEnd.on(({ exit }) => exits.push(exit.expected));
    const pending = session.request('stepTask', { taskId: 1 }).catch((e: unknown) => e);
    process.kill(host.pid!, 'SIGKILL'); // as a crash would
    assert.ok((await pending) instanceof Error, 'the request in flight failed');
    await until('the host died status', () => session.status.phase === 'hostDied');
    assert.equal(session.status.detail, 'The runtime host was killed (SIGKILL).');
    assert.ok(Array.isArray(session.status.lastLines));
    assert.deepEqual(exits, [false]);
    assert.equal(session.run, null);
    assert.equal(runs.get(host.key), undefined);
    await assert.rejects(session.request('snapshot', {}), /not running/);
    const r = await session.launch({ kind: 'demo', latency: 'instant' }, { maxTasks: 5, stopOnEntry: true });
    assert.ok(r.runId >= 1);
    const [fresh] = runs.list();
    assert.ok(fresh !== undefined && fresh !== host && fresh.pid !== host.pid);
    assert.equal(fresh.viewers().join(), 'panel');
    await session.stopRun();
  });

  it('a host that dies on its own (SIGKILL from outside) is reported as unexpected', async () => {
    const host = await session.ensureRun();
    const got = new Promise<{ expected: boolean; signal: string | null }>((resolve) =>
      runs.onDidEnd.on(({ exit }) => resolve({ expected: exit.expected, signal: exit.signal })),
    );
    process.kill(host.pid!, 'SIGKILL');
    const exit = await got;
    assert.deepEqual(exit, { expected: false, signal: 'SIGKILL' });
    await until('the host died status', () => session.status.phase === 'hostDied');
  });

  it('stop() ends the run shown and its host', async () => {
    const run = await session.ensureRun();
    await session.stop();
    assert.equal(run.isAlive(), false);
    assert.equal(session.run, null);
    assert.deepEqual(runs.list(), []);
  });

  it('follows a run another view launched, with its stop, and hears pauses and continues asked there', async () => {
    const other = await runs.start();
    const detachOther = other.attach('debugger');
    await other.launch({ kind: 'demo' }, { maxTasks: 3, stopOnEntry: true }, 'debugger');
    assert.equal(other.phase, 'paused');
    session.show(other);
    assert.equal(session.run, other);
    assert.equal(session.status.phase, 'paused');
    assert.equal(session.status.pauseReason, 'entry');
    assert.deepEqual(other.viewers().sort(), ['debugger', 'panel']);
    await until('the tasks in the mirror', () => session.mirror.tasks.size >= 1);
    await other.endpoint.request('continue', {});
    await until('running in the panel', () => session.status.phase === 'running');
    await other.endpoint.request('pause', {});
    await until(
      'paused in the panel',
      () => session.status.phase === 'paused' && session.status.pauseReason === 'pause',
    );
    // A launch from the panel now leaves the other view's run alone: a run of its own.
    await session.launch({ kind: 'demo' }, { maxTasks: 2, stopOnEntry: true });
    const own = session.run;
    assert.ok(own !== null && own !== other);
    assert.ok(other.isAlive(), "the debugger's run goes on");
    assert.deepEqual(other.viewers(), ['debugger']);
    assert.equal(other.phase, 'paused');
    // The last view gone, its host ends.
    detachOther();
    await until("the other run's host gone", () => !other.isAlive());
    await session.stop();
  });
});

describe('RunSession time travel on the real runtime host: seek, save, open a recording', {
  timeout: 120_000,
}, () => {
  let runs: RunRegistry;
  let session: RunSession;
  let dir = '';

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
    session = new RunSession(runs, { snapshotRate: () => 20 });
    dir = mkdtempSync(join(tmpdir(), 'coroscope-session-rec-'));
  });
  after(async () => {
    session.dispose();
    await runs.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a recorded crawl: the status says so; a seek shows every view a past tick (table of that tick), null the present', async () => {
    await session.launch({ kind: 'demo', pages: 20, latency: 'instant' }, { maxTasks: 3, record: true });
    await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    assert.equal(session.status.recorded, true);
    const timeline = await session.request('timeline', {});
    assert.ok(timeline.ticks > 10 && timeline.lanes.some((l) => l.name === 'worker-1'));
    const viewed: Array<number | null> = [];
    session.onViewed.on((t) => viewed.push(t));
    const tick = Math.floor(timeline.ticks / 2);
    assert.equal(await session.seek(tick), tick);
    assert.equal(session.status.viewedTick, tick);
    assert.equal(session.viewingPast(), true);
    // A whole table of that moment replaces the finished run's.
    await until(
      'the table of the past tick',
      () =>
        session.mirror.tick === tick &&
        session.mirror.tasks.size > 0 &&
        [...session.mirror.tasks.values()].some((t) => t.state === 'suspended'),
    );
    // Known from the log first; the replay lands after (the status says so), the same moment.
    await until(
      'the replay of the past tick landed',
      () => session.status.viewedReplaying === undefined && session.status.viewedTick === tick,
    );
    assert.equal(session.status.viewedReplayError, undefined);
    assert.equal(await session.seek(null), null);
    assert.equal(session.status.viewedTick, undefined);
    await until(
      'the table of the present',
      () => [...session.mirror.tasks.values()].every((t) => t.state !== 'suspended') && session.mirror.tasks.size > 0,
    );
    // The same tick again: a replay is parked right there, so it lands at once, within the
    // seek itself; the status still ends at "landed", whatever came first, the seek's answer
    // (known from the log) or the host's word that it landed.
    assert.equal(await session.seek(tick), tick);
    await until(
      'the replay parked at the tick landed',
      () => session.status.viewedReplaying === undefined && session.status.viewedTick === tick,
      5_000,
    );
    assert.equal(await session.seek(null), null);
    assert.deepEqual(viewed, [tick, null, tick, null]);
  });

  it('a breakpoint hit found in the tick already shown is another moment: announced to the views (viewedMoment, onViewed), its table fetched again', async () => {
    await session.launch({ kind: 'demo', pages: 40, latency: 'instant' }, { maxTasks: 5, record: true });
    await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    const crawler = join(__dirname, '..', '..', 'runtime', 'crawler', 'crawler.ts');
    await session.request('setBreakpoints', {
      file: crawler,
      breakpoints: [{ file: crawler, line: lineOf(crawler, 'const { stat, links } = parsed;') }],
    });
    const ticks = (await session.request('timeline', {})).ticks;
    const viewed: Array<number | null> = [];
    const listening = session.onViewed.on((t) => viewed.push(t));
    try {
      // Reverse Continue from the end, hit after hit, until two in a row are in one tick (several pages are
      // parsed in a tick of an instant crawl).
      let previous: number | null = null;
      for (let i = 0; i < 60; i++) {
        // (The host tells the views before it answers.)
        const counted = session.status.viewedMoment ?? 0;
        const told = viewed.length;
        const hit: BreakpointHitLanding = await session.request('pastBreakpointHit', {
          direction: 'back',
          tick: previous ?? ticks,
        });
        assert.equal(hit.landed, 'line', JSON.stringify(hit));
        if (hit.landed !== 'line') return;
        if (previous === null || hit.tick !== previous) {
          await until('the panel at the hit', () => session.status.viewedTick === hit.tick);
          previous = hit.tick;
          continue;
        }
        // The same tick as the moment shown: a new moment all the same.
        await until(
          'the hit in the same tick announced',
          () =>
            (session.status.viewedMoment ?? 0) > counted &&
            viewed.length > told &&
            session.status.viewedTick === hit.tick,
          5_000,
        );
        await until(
          'a table of that moment',
          () => session.mirror.tick === hit.tick && session.mirror.tasks.size > 0,
          5_000,
        );
        return;
      }
      assert.fail('no two hits in one tick');
    } finally {
      listening();
      await session.request('setBreakpoints', { file: crawler, breakpoints: [] });
    }
  });

  it('a line stop the debugger holds: its past lines and breakpoint hits move every view there too (the tick, a table of that moment), and back to the present with it', async () => {
    const other = await runs.start();
    const detachOther = other.attach('debugger');
    try {
      await other.launch(
        { kind: 'demo', pages: 12, latency: 'instant' },
        { maxTasks: 2, stopOnEntry: true, record: true },
        'debugger',
      );
      session.show(other);
      const crawler = join(__dirname, '..', '..', 'runtime', 'crawler', 'crawler.ts');
      const decl = lineOf(crawler, 'let response: ClientResponse | null = null;');
      await other.endpoint.request('setBreakpoints', { file: crawler, breakpoints: [{ file: crawler, line: decl }] });
      let stop = other.lastPause;
      for (let i = 0; i < 3; i++) {
        const before = stop;
        await other.endpoint.request('continue', {});
        await until(
          'the next stop on the line',
          () => other.lastPause !== null && other.lastPause !== before && other.lastPause.line !== undefined,
          30_000,
        );
        stop = other.lastPause;
      }
      assert.ok(stop !== null);
      await until(
        'the panel at the stop',
        () => session.status.phase === 'paused' && session.status.tick === stop!.tick,
      );
      assert.equal(session.status.viewedTick, undefined);
      // The debugger's Step Back at the line: the panel shows that moment (its tick, replayed).
      await other.endpoint.request('lineStepBack', {});
      await until('the panel at the past line', () => session.status.viewedTick === stop!.tick);
      await other.endpoint.request('lineStep', { kind: 'over' });
      await until('the panel back at the present', () => session.status.viewedTick === undefined);
      // Reverse Continue to the hit before: the panel at the hit's tick, a table of that moment.
      const hit = await other.endpoint.request('pastBreakpointHit', { direction: 'back', tick: stop.tick });
      assert.equal(hit.landed, 'line');
      assert.ok(hit.landed === 'line' && hit.tick < stop.tick);
      const hitTick = hit.landed === 'line' ? hit.tick : 0;
      await until(
        'the panel at the hit',
        () => session.status.viewedTick === hitTick && session.mirror.tick === hitTick,
      );
      // Continue: the run goes on, the panel with it.
      await other.endpoint.request('setBreakpoints', { file: crawler, breakpoints: [] });
      await other.endpoint.request('continue', {});
      await until('the panel back at the present', () => session.status.viewedTick === undefined);
      await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    } finally {
      detachOther();
    }
  });

  it('saves the recording, and opens it as a finished run with the same timeline; a corrupt file is refused naming it', async () => {
    const before = await session.request('timeline', {});
    const file = join(dir, 'demo.corotrace');
    const info = await session.request('saveRecording', { path: file });
    assert.equal(info.path, file);
    const other = new RunSession(runs, { snapshotRate: () => 20 });
    try {
      const opened = await other.openRecording(file);
      assert.equal(opened.ticks, before.ticks);
      assert.equal(other.status.phase, 'finished');
      assert.equal(other.status.recordingFile, file);
      assert.match(other.status.title, /^Recording demo\.corotrace/);
      const again = await other.request('timeline', {});
      assert.equal(again.ticks, before.ticks);
      assert.deepEqual(
        again.lanes.map((l) => [l.taskId, l.name, l.segments.length]),
        before.lanes.map((l) => [l.taskId, l.name, l.segments.length]),
      );
      const bad = join(dir, 'bad.corotrace');
      writeFileSync(bad, readFileSync(file).subarray(0, 40));
      await assert.rejects(other.openRecording(bad), /bad\.corotrace/);
      assert.equal(other.status.phase, 'idle');
      assert.match(other.status.detail, /Could not open the recording: .*bad\.corotrace/);
    } finally {
      other.dispose();
    }
  });
});
