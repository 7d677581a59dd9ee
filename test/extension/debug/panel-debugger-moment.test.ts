// Oracle: the inspector panel (RunSession, as the webview reads it) and the debugger (an inline adapter on the
// same run) show the same moment when a move lands within a tick (issue 25): at each landing of Step Over, Step
// Back and Reverse Continue in the tutorial samples that go back, the panel's moment (its tick, on a line, the
// present's tick behind it), its stopped task, that task's top frame line and the task states equal what the
// debugger shows (the stopped thread, its stack's top line, the loop thread's "in tick N", the Coroutines view).
// The single truth is the host's moment: a past line's `paused`, a hit's viewedTick (ViewedMoment.stop).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { RunSession } from '../../../extension/run-session';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { lineOf } from '../../source-line';
import { HOST_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient, type DapEvent } from './dap-client';
import {
  goToLogpointHit,
  initialize,
  listLogpointHits,
  moveToStop,
  setBreakpoint,
  stackOf,
  startDebugging,
  tasksOf,
  threadsOf,
} from './adapter-harness';

const SAMPLES = join(PROJECT_ROOT, 'runtime', 'samples');

/** A sample that goes back (step-back-samples.test.ts): its breakpoint line and the step overs from it. */
const CASES: ReadonlyArray<{ sample: string; file: string; needle: string; steps: number }> = [
  { sample: 'generators', file: 'generators.ts', needle: 'const totals = runningTotal();', steps: 4 },
  {
    sample: 'crawler',
    file: 'full-crawler.ts',
    needle: 'const crawler = new Crawler([siteUrl], { maxTasks: WORKERS });',
    steps: 4,
  },
  { sample: 'fib-threads', file: 'fib-threads.ts', needle: 'const loop = getRunningLoop();', steps: 3 },
  { sample: 'fib-loop', file: 'fib-loop.ts', needle: 'const previousDebug = loop.getDebug();', steps: 3 },
  { sample: 'exception-chain', file: 'exception-chain.ts', needle: 'const e = error as Error;', steps: 3 },
  { sample: 'gather-vs-ascompleted', file: 'gather-vs-ascompleted.ts', needle: 'const start = loop.time();', steps: 3 },
  { sample: 'json-fetch', file: 'json-fetch.ts', needle: "t.log('headers:');", steps: 4 },
];

/** What a view says of the moment shown. */
interface Seen {
  kind: 'present' | 'past';
  tick: number;
  onLine: boolean;
  /** The present's tick behind a past moment. */
  present: number;
  task: number | null;
  topLine: number | null;
  states: Record<string, string>;
}

describe('the panel and the debugger show the same moment within a tick (samples)', { timeout: 600_000 }, () => {
  let runs: RunRegistry;
  let panel: RunSession;
  let dap: DapClient | null = null;

  before(async () => {
    await buildAdapterAndHost();
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
    panel = new RunSession(runs, { snapshotRate: () => 20 });
    // As extension.ts wires it: a run a debug session launches shows in the panel.
    runs.onDidLaunch.on(({ run, by }) => {
      if (by !== 'panel') panel.show(run);
    });
  });
  after(async () => {
    await dap?.close();
    panel?.dispose();
    await runs?.dispose();
  });

  /**
   * Launches `sample` with a breakpoint on `line` (null: none, it runs to its end, or with `stopOnEntry` is held
   * before its first tick); its first stop.
   */
  async function launch(sample: string, file: string, line: number | null, stopOnEntry = false): Promise<DapEvent> {
    await dap?.close();
    dap = DapClient.inProcess(
      new CoroscopeSession({ hostScript: HOST_SCRIPT, runs, viewName: 'debug', cwd: PROJECT_ROOT }),
    );
    await initialize(dap);
    const d = dap;
    const from = await startDebugging(
      d,
      'launch',
      { type: 'coroscope', request: 'launch', name: sample, sample, stopOnEntry },
      { configure: async () => void (line === null ? undefined : await setBreakpoint(d, file, { line })) },
    );
    return d.waitForEvent('stopped', { from, timeoutMs: 60_000, failOn: ['terminated'] });
  }

  /** The debugger's view of the stop `stop`; `present`: the live stop's tick. */
  async function debuggerSees(stop: DapEvent, present: number, past: boolean): Promise<Seen> {
    const d = dap!;
    const threadId = Number(stop.body.threadId);
    const loop = (await threadsOf(d)).find((t) => /^event loop/.test(t.name))?.name ?? '';
    const inTick = /stopped on a line in tick (\d+)/.exec(loop);
    assert.ok(inTick !== null, `the loop thread says the line's tick: ${loop}`);
    const top = (await stackOf(d, threadId))[0];
    const { tasks } = await tasksOf(d);
    return {
      kind: past ? 'past' : 'present',
      tick: Number(inTick[1]),
      onLine: true,
      present,
      task: threadId,
      topLine: top?.line ?? null,
      states: Object.fromEntries(tasks.map((t) => [t.id, t.state])),
    };
  }

  /** The panel's view of the moment it shows. */
  async function panelSees(): Promise<Seen> {
    const m = panel.moment();
    const task = panel.status.pausedTaskId ?? null;
    let topLine: number | null = null;
    if (task !== null) {
      const detail = await panel.run!.endpoint.request('taskDetail', { taskId: task });
      topLine = detail.frames[0]?.position?.line ?? null;
    }
    return {
      kind: m.kind === 'past' ? 'past' : 'present',
      tick: m.tick,
      onLine: m.onLine,
      present: m.lastTick,
      task,
      topLine,
      states: Object.fromEntries(panel.mirror.allTasks().map((t) => [t.id, t.state])),
    };
  }

  /** The panel, once its status and table have come (it follows the host's events), agrees with the debugger. */
  async function agree(what: string, stop: DapEvent, present: number, past: boolean): Promise<void> {
    const expected = await debuggerSees(stop, present, past);
    let seen = await panelSees();
    for (let i = 0; i < 100 && JSON.stringify(seen) !== JSON.stringify(expected); i++) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await panelSees();
    }
    assert.deepEqual(seen, expected, `${what}: the panel shows what the debugger does`);
  }

  for (const c of CASES)
    it(`${c.sample}: over ${c.steps} lines and back, each landing`, async () => {
      const file = join(SAMPLES, c.file);
      let stop = await launch(c.sample, file, lineOf(file, c.needle));
      const threadId = Number(stop.body.threadId);
      const live = (await debuggerSees(stop, 0, false)).tick;
      await agree('the live stop', stop, live, false);
      let present = live;
      for (let i = 0; i < c.steps; i++) {
        stop = await moveToStop(dap!, 'next', { threadId });
        present = (await debuggerSees(stop, 0, false)).tick;
        await agree(`step over ${i + 1}`, stop, present, false);
      }
      for (let i = 0; i < c.steps; i++) {
        stop = await moveToStop(dap!, 'stepBack', { threadId });
        await agree(`step back ${i + 1}`, stop, present, true);
      }
      await dap!.request('disconnect', { terminateDebuggee: true });
    });

  it("gather-vs-ascompleted: Reverse Continue to another task's hits, and a step from each", async () => {
    const file = join(SAMPLES, 'gather-vs-ascompleted.ts');
    let stop = await launch('gather-vs-ascompleted', file, lineOf(file, 't.log(`  done: ${url} took'));
    for (let i = 0; i < 2; i++) stop = await moveToStop(dap!, 'continue', { threadId: Number(stop.body.threadId) });
    const present = (await debuggerSees(stop, 0, false)).tick;
    await agree('the third hit, live', stop, present, false);
    for (let i = 0; i < 2; i++) {
      const before = Number(stop.body.threadId);
      stop = await moveToStop(dap!, 'reverseContinue', { threadId: before });
      assert.notEqual(Number(stop.body.threadId), before, "the hit before is another download's");
      await agree(`reverse continue ${i + 1}`, stop, present, true);
      stop = await moveToStop(dap!, 'next', { threadId: Number(stop.body.threadId) });
      await agree(`a step from hit ${i + 1}`, stop, present, true);
      stop = await moveToStop(dap!, 'stepBack', { threadId: Number(stop.body.threadId) });
      await agree(`back to hit ${i + 1}`, stop, present, true);
    }
    await dap!.request('disconnect', { terminateDebuggee: true });
  });

  it('gather-vs-ascompleted, finished: Reverse Continue and a logpoint hit, a step from each', async () => {
    // No live line stop holds the run: the hits are replayed by the search's replay host, not the stop's.
    const file = join(SAMPLES, 'gather-vs-ascompleted.ts');
    const done = lineOf(file, 't.log(`  done: ${url} took');
    let stop = await launch('gather-vs-ascompleted', file, null);
    assert.equal(stop.body.reason, 'end');
    const present = panel.moment().lastTick;
    await setBreakpoint(dap!, file, { line: done });
    stop = await moveToStop(dap!, 'reverseContinue', { threadId: Number(stop.body.threadId) });
    await agree('reverse continue to the last hit', stop, present, true);
    stop = await moveToStop(dap!, 'next', { threadId: Number(stop.body.threadId) });
    await agree('a step from it', stop, present, true);
    const hits = await listLogpointHits(dap!, file, [{ line: done }, { line: done + 1, logMessage: 'returns {url}' }]);
    assert.equal(hits.length, 6, 'URL2, URL3, URL1 returned to asCompleted, then all three to gather');
    stop = await goToLogpointHit(dap!, hits[1]!.hit);
    await agree('the second hit gone to', stop, present, true);
    stop = await moveToStop(dap!, 'stepBack', { threadId: Number(stop.body.threadId) });
    await agree('a step back from it', stop, present, true);
    // Continue: forward through the past to the next hit; with no breakpoint left, to the run's end, where the
    // panel leaves the line too.
    stop = await moveToStop(dap!, 'continue', { threadId: Number(stop.body.threadId) });
    assert.equal(stop.body.reason, 'breakpoint');
    await agree('continue to the next hit', stop, present, true);
    await dap!.request('setBreakpoints', { source: { path: file }, breakpoints: [] });
    stop = await moveToStop(dap!, 'continue', { threadId: Number(stop.body.threadId) });
    let m = panel.moment();
    for (let i = 0; i < 100 && (m.kind === 'past' || m.onLine); i++) {
      await new Promise((r) => setTimeout(r, 50));
      m = panel.moment();
    }
    assert.deepEqual([m.kind, m.onLine, stop.body.reason], ['present', false, 'end'], 'back at the end');
    await dap!.request('disconnect', { terminateDebuggee: true });
  });

  it('gather-vs-ascompleted, paused between ticks: Reverse Continue to a hit, a step from it', async () => {
    const file = join(SAMPLES, 'gather-vs-ascompleted.ts');
    let stop = await launch('gather-vs-ascompleted', file, null, true);
    // Tick by tick (the loop's Step Over) past URL2's and URL3's `done`: held between ticks, no line stop.
    for (let i = 0; i < 10; i++) stop = await moveToStop(dap!, 'next', { threadId: Number(stop.body.threadId) });
    const present = panel.moment().lastTick;
    await setBreakpoint(dap!, file, { line: lineOf(file, 't.log(`  done: ${url} took') });
    stop = await moveToStop(dap!, 'reverseContinue', { threadId: Number(stop.body.threadId) });
    await agree('reverse continue to the last hit', stop, present, true);
    stop = await moveToStop(dap!, 'next', { threadId: Number(stop.body.threadId) });
    await agree('a step from it', stop, present, true);
    await dap!.request('disconnect', { terminateDebuggee: true });
  });

  it("gather-vs-ascompleted: a past logpoint's hit gone to from a live line stop, and a step back", async () => {
    const file = join(SAMPLES, 'gather-vs-ascompleted.ts');
    const done = lineOf(file, 't.log(`  done: ${url} took');
    let stop = await launch('gather-vs-ascompleted', file, done);
    for (let i = 0; i < 2; i++) stop = await moveToStop(dap!, 'continue', { threadId: Number(stop.body.threadId) });
    const present = (await debuggerSees(stop, 0, false)).tick;
    const hits = await listLogpointHits(dap!, file, [{ line: done }, { line: done + 1, logMessage: 'returns {url}' }]);
    assert.equal(hits.length, 2, 'URL2 and URL3 returned before the live stop');
    stop = await goToLogpointHit(dap!, hits[0]!.hit);
    await agree('the first hit gone to', stop, present, true);
    stop = await moveToStop(dap!, 'stepBack', { threadId: Number(stop.body.threadId) });
    await agree('a step back from it', stop, present, true);
    await dap!.request('disconnect', { terminateDebuggee: true });
  });
});
