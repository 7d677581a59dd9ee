// The end of a recorded run in the debug adapter, with real DAP messages and real runtime
// hosts. Standalone over stdio: a recorded demo crawl that finishes stops at its end (reason
// 'end', its workers listed as they ended) instead of terminating; Step Back goes into its past;
// Step Out at a past tick lands at the first suspension where the worker's current frame has
// returned (by the recorded frame chains and the calls kept between suspensions); Continue goes forward to
// the end again, and
// Continue at the end ends the session (exited, terminated); forward steps at the end are
// refused. `stopAtEnd: false` ends the session as the run finishes. Inline, on a registry
// shared with the panel's RunSession: an attach to the panel's finished recorded crawl starts
// stopped at its end (or at the tick the panel's scrubber shows) and steps back; so does an
// attach to an opened recording; an attach to a finished run that was not recorded is refused
// with the reason. A seek from the panel moves an attached debugger's stop with
// preserveFocusHint (its source is not opened over the panel); the debugger's own moves not.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { TASKS_REQUEST, type TasksBody } from '../../../extension/debug/custom-requests';
import { RunSession } from '../../../extension/run-session';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { until } from '../wait-until';
import { ADAPTER_SCRIPT, HOST_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient } from './dap-client';
import { demoCrawl, initialize, startDebugging } from './adapter-harness';
import { ERR_LAUNCH, ERR_NOT_RUNNING } from '../../../extension/debug/session-core';

const DEMO = demoCrawl();
const END = /^Finished at tick (\d+)$/;

/** A launch as VS Code does it, no exception filter set. */
async function launch(dap: DapClient, args: Record<string, unknown>): Promise<void> {
  await startDebugging(dap, 'launch', args, { exceptionFilters: [] });
}

/** An attach as VS Code does it. */
async function attach(dap: DapClient, run: number): Promise<void> {
  await startDebugging(dap, 'attach', { type: 'coroscope', request: 'attach', name: 'attach', run });
}

/** The end stop after event index `from`, and the tick it names. */
async function endStop(dap: DapClient, from: number): Promise<{ threadId: number; tick: number }> {
  const stopped = await dap.waitForEvent('stopped', { from, timeoutMs: 60_000, failOn: ['terminated'] });
  assert.equal(stopped.body.reason, 'end', JSON.stringify(stopped.body));
  const m = END.exec(String(stopped.body.description));
  assert.ok(m !== null, String(stopped.body.description));
  const hint = `the run finished at tick ${m[1]}: Step Back or Reverse Continue to look at its past; Continue or Stop ends the session`;
  assert.ok(
    dap.events.slice(from).some((e) => e.event === 'output' && String(e.body.output).includes(hint)),
    `the console says: ${hint}`,
  );
  return { threadId: Number(stopped.body.threadId), tick: Number(m[1]) };
}

/** The tick the adapter said it shows (its console line for a replayed tick) after event index `from`. */
function shownTick(dap: DapClient, from: number): number {
  const lines = dap.events
    .slice(from)
    .filter((e) => e.event === 'output')
    .map((e) => String(e.body.output));
  const m = lines
    .map((l) => /tick (\d+) of \d+ \(replayed/.exec(l))
    .filter((x) => x !== null)
    .at(-1);
  assert.ok(m !== undefined, `no replayed tick announced: ${lines.join('')}`);
  return Number(m[1]);
}

async function threads(dap: DapClient): Promise<DebugProtocol.Thread[]> {
  return (await dap.request<DebugProtocol.ThreadsResponse['body']>('threads')).threads;
}

async function worker1(dap: DapClient): Promise<number> {
  const t = (await threads(dap)).find((x) => /^worker-1 \[/.test(x.name));
  assert.ok(t !== undefined, (await threads(dap)).map((x) => x.name).join(', '));
  return t.id;
}

async function stackOf(dap: DapClient, threadId: number): Promise<DebugProtocol.StackFrame[]> {
  return (
    await dap.request<DebugProtocol.StackTraceResponse['body']>('stackTrace', { threadId, startFrame: 0, levels: 100 })
  ).stackFrames;
}

/** The names of the task's `yield*` chain, root first (the frames between its 'awaiting' label and its creation). */
async function chainOf(dap: DapClient, threadId: number): Promise<string[]> {
  const frames = await stackOf(dap, threadId);
  const start = frames.findIndex((f) => f.name.startsWith('awaiting '));
  assert.ok(start >= 0, frames.map((f) => f.name).join(' | '));
  const end = frames.findIndex((f, i) => i > start && f.presentationHint === 'label');
  return frames
    .slice(start + 1, end < 0 ? frames.length : end)
    .map((f) => f.name)
    .reverse();
}

async function steps(dap: DapClient, taskId: number): Promise<number> {
  const body = await dap.request<TasksBody>(TASKS_REQUEST);
  const task = body.tasks.find((t) => t.id === taskId);
  assert.ok(task !== undefined, `task #${taskId} is listed`);
  return task.steps;
}

/** Steps back on the thread and returns the tick shown. */
async function stepBack(dap: DapClient, threadId: number): Promise<number> {
  const from = dap.mark();
  await dap.request('stepBack', { threadId });
  const stopped = await dap.waitForEvent('stopped', { from });
  assert.deepEqual([stopped.body.reason, stopped.body.threadId], ['step', threadId]);
  return shownTick(dap, from);
}

function startsWith(chain: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= chain.length && prefix.every((name, i) => chain[i] === name);
}

describe('a recorded launch stops at its end (standalone adapter)', { timeout: 180_000 }, () => {
  let dap: DapClient;
  let end = { threadId: 0, tick: 0 };
  let worker = 0;

  before(async () => {
    await buildAdapterAndHost();
    dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT });
    await initialize(dap);
  });
  after(async () => {
    await dap?.close();
  });

  it('a crawl that finishes stops at its end, with the workers listed as they ended; forward steps are refused there', async () => {
    const from = dap.mark();
    await launch(dap, DEMO);
    end = await endStop(dap, from);
    assert.equal(dap.events.slice(from).filter((e) => e.event === 'terminated' || e.event === 'exited').length, 0);
    assert.match(dap.outputText(), /Coroscope: crawled \d+ urls/, "the run's summary");
    worker = await worker1(dap);
    const ended = (await dap.request<TasksBody>(TASKS_REQUEST)).tasks.find((t) => t.id === worker);
    assert.ok(ended?.state === 'cancelled' || ended?.state === 'done', JSON.stringify(ended));
    for (const [command, label] of [
      ['next', 'Step Over'],
      ['stepIn', 'Step Into'],
      ['stepOut', 'Step Out'],
    ]) {
      const r = await dap.requestRaw(command!, { threadId: worker });
      assert.equal(r.success, false, command);
      assert.deepEqual(r.body, {
        error: {
          id: ERR_NOT_RUNNING,
          format: `${label}: the run finished at tick ${end.tick}, nothing comes after it: Step Back or Reverse Continue go into its past, Continue ends the session`,
          showUser: true,
        },
      });
    }
  });

  let inFetch = 0;
  it("Step Back from the end goes to the worker's last suspension, then further back into a fetch", async () => {
    const last = await steps(dap, worker);
    const from = dap.mark();
    let tick = await stepBack(dap, worker);
    assert.ok(tick < end.tick, `${tick} < ${end.tick}`);
    // The worker's row and the loop's say the tick viewed (the loop's no longer the end), the focus left on the worker.
    const shown = dap.events
      .slice(from)
      .filter((e) => e.event === 'stopped')
      .map((e) => e.body as DebugProtocol.StoppedEvent['body']);
    assert.equal(shown[0]!.description, `At tick ${tick} of ${end.tick} (replayed)`);
    const loop = (
      await dap.waitForEvent('stopped', { from, relabels: true, predicate: (b) => b.threadId === end.threadId })
    ).body as DebugProtocol.StoppedEvent['body'];
    assert.equal(loop.description, `At tick ${tick} of ${end.tick} (replayed)`);
    assert.equal(loop.preserveFocusHint, true);
    assert.notEqual(loop.allThreadsStopped, true);
    assert.ok((await steps(dap, worker)) < last);
    // Back until the worker is suspended inside fetch (at least two frames below its loop).
    for (let i = 0; i < 40 && !(await chainOf(dap, worker)).includes('fetch'); i++) {
      const earlier = await stepBack(dap, worker);
      assert.ok(earlier < tick, `${earlier} < ${tick}`);
      tick = earlier;
    }
    assert.ok((await chainOf(dap, worker)).includes('fetch'));
    inFetch = tick;
  });

  it('Step Out at a past tick lands at the first suspension where the current frame has returned', async () => {
    const before = await chainOf(dap, worker);
    let from = dap.mark();
    await dap.request('stepOut', { threadId: worker });
    const out = await dap.waitForEvent('stopped', { from });
    assert.deepEqual([out.body.reason, out.body.threadId], ['step', worker]);
    const outTick = shownTick(dap, from);
    assert.ok(outTick > inFetch, `${outTick} > ${inFetch}`);
    // The suspension just before it was still inside that frame: it is the first where it had returned.
    from = dap.mark();
    const back = await stepBack(dap, worker);
    assert.ok(back >= inFetch && back < outTick, `${inFetch} <= ${back} < ${outTick}`);
    assert.ok(startsWith(await chainOf(dap, worker), before), `still in ${before.join('>')} at tick ${back}`);
  });

  it('Continue from the past goes forward to the end again; Continue at the end ends the session', async () => {
    let from = dap.mark();
    await dap.request('continue', { threadId: worker });
    const again = await endStop(dap, from);
    assert.equal(again.tick, end.tick);
    assert.match(dap.outputText(), /back to the present/);
    from = dap.mark();
    await dap.request('continue', { threadId: again.threadId });
    const exited = await dap.waitForEvent('exited', { from });
    assert.equal(exited.body.exitCode, 0);
    await dap.waitForEvent('terminated', { from });
    await dap.request('disconnect', {});
  });

  it('stopAtEnd: false ends the session as the run finishes', async () => {
    await dap.close();
    dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT });
    await initialize(dap);
    const from = dap.mark();
    await launch(dap, { ...DEMO, stopAtEnd: false });
    await dap.waitForEvent('terminated', { from, timeoutMs: 60_000, failOn: ['stopped'] });
    await dap.request('disconnect', {});
  });
});

describe("attaching to a finished run (inline adapter, the panel's runs)", { timeout: 180_000 }, () => {
  let runs: RunRegistry;
  let panel: RunSession;
  let dir = '';
  const clients: DapClient[] = [];

  before(async () => {
    await buildAdapterAndHost();
    dir = mkdtempSync(join(tmpdir(), 'coroscope-run-end-'));
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
    panel = new RunSession(runs, { snapshotRate: () => 20 });
  });
  after(async () => {
    for (const c of clients) await c.close();
    panel?.dispose();
    await runs?.dispose();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  async function adapter(name: string): Promise<DapClient> {
    const dap = DapClient.inProcess(
      new CoroscopeSession({ hostScript: HOST_SCRIPT, runs, viewName: name, cwd: PROJECT_ROOT }),
    );
    clients.push(dap);
    await initialize(dap);
    return dap;
  }

  async function crawlToEnd(record: boolean): Promise<number> {
    await panel.launch({ kind: 'demo', pages: 12, latency: 'instant' }, { maxTasks: 3, record });
    await until('the crawl to finish', () => panel.status.phase === 'finished', 60_000);
    const run = panel.run;
    assert.ok(run !== null);
    return run.key;
  }

  let key = 0;
  let end = { threadId: 0, tick: 0 };
  it("attaches to the panel's finished recorded crawl, stopped at its end; Step Back moves every view", async () => {
    key = await crawlToEnd(true);
    const dap = await adapter('debug 1');
    const from = dap.mark();
    await attach(dap, key);
    end = await endStop(dap, from);
    assert.equal(
      end.tick,
      (await panel.run!.endpoint.request('timeline', { sinceTick: end.tick })).ticks,
      "the recording's last tick",
    );
    const worker = await worker1(dap);
    const tick = await stepBack(dap, worker);
    assert.ok(tick < end.tick);
    await until('the panel to show that tick', () => panel.status.viewedTick === tick);
    // Back into a fetch (its calls below the worker's loop).
    let inFetch = tick;
    for (let i = 0; i < 40 && !(await chainOf(dap, worker)).includes('fetch'); i++)
      inFetch = await stepBack(dap, worker);
    // Step Out there lands where the recording says the worker's current call returned: the
    // first later suspension at which fewer of its calls have been going all along.
    const { lanes } = await panel.run!.endpoint.request('timeline', { taskId: worker });
    const suspensions = lanes[0]!.segments.filter((s) => s.state === 'suspended');
    const current = suspensions.filter((s) => s.fromTick <= inFetch).at(-1)!;
    const depth = current.frames!.length;
    let going = depth;
    const returned =
      suspensions.find((s) => s.fromTick > inFetch && (going = Math.min(going, s.framesKept!)) < depth)?.fromTick ??
      lanes[0]!.endTick;
    const out = dap.mark();
    await dap.request('stepOut', { threadId: worker });
    await dap.waitForEvent('stopped', { from: out, predicate: (b) => b.reason === 'step' });
    assert.ok(
      returned !== null && returned < end.tick,
      `worker-1's call at tick ${inFetch} returned before the end (${returned})`,
    );
    assert.equal(shownTick(dap, out), returned);
    // Detaching leaves the run to the panel.
    await dap.request('disconnect', {});
    assert.ok(panel.run?.isAlive());
  });

  it('an attach while the panel shows a past tick starts at that tick', async () => {
    const tick = Math.max(1, Math.floor(end.tick / 2));
    await panel.seek(tick);
    const dap = await adapter('debug 2');
    const from = dap.mark();
    await attach(dap, key);
    const stopped = await dap.waitForEvent('stopped', { from });
    assert.equal(stopped.body.reason, 'goto');
    assert.equal(shownTick(dap, from), tick);
    assert.equal((await dap.request<TasksBody>(TASKS_REQUEST)).tick, tick);
    // Continue goes forward to the end.
    const forward = dap.mark();
    await dap.request('continue', { threadId: Number(stopped.body.threadId) });
    assert.equal((await endStop(dap, forward)).tick, end.tick);
    await dap.request('disconnect', {});
  });

  it("a seek from the panel moves the debugger's stop without opening its source over the panel", async () => {
    const dap = await adapter('debug seek');
    const from = dap.mark();
    await attach(dap, key);
    const first = await dap.waitForEvent('stopped', { from });
    // The debugger's own move reveals its source (VS Code focuses the frame) ...
    const back = dap.mark();
    await dap.request('stepBack', { threadId: Number(first.body.threadId) });
    const own = await dap.waitForEvent('stopped', { from: back });
    assert.notEqual(own.body.preserveFocusHint, true);
    // ... the panel's seek only updates the Call Stack (preserveFocusHint: no editor opened in the panel's group).
    const tick = Math.max(1, Math.floor(end.tick / 3));
    const seek = dap.mark();
    await panel.seek(tick);
    const moved = await dap.waitForEvent('stopped', { from: seek });
    assert.equal(moved.body.reason, 'goto');
    assert.equal(moved.body.preserveFocusHint, true);
    assert.equal(shownTick(dap, seek), tick);
    const present = dap.mark();
    await panel.seek(null);
    const again = await dap.waitForEvent('stopped', { from: present });
    assert.equal(again.body.preserveFocusHint, true);
    await dap.request('disconnect', {});
  });

  it("Disconnect after Step Back, with VS Code's default exception filters, ends the session at once", async () => {
    const dap = await adapter('debug disconnect');
    const from = await startDebugging(
      dap,
      'attach',
      { type: 'coroscope', request: 'attach', name: 'attach', run: key },
      { exceptionFilters: ['taskFailed', 'deadlock'] },
    );
    await endStop(dap, from);
    const worker = await worker1(dap);
    const first = await stepBack(dap, worker);
    assert.ok((await stepBack(dap, worker)) < first);
    // A hang catcher, not a window: the held Disconnect this guards against never answered (an e2e
    // waited 60 s), an answered one comes in about 100 ms; the request fails past its 10 s timeout.
    await dap.request('disconnect', { restart: false, terminateDebuggee: false }, 10_000);
    assert.ok(panel.run?.isAlive(), 'the run stays, for the panel');
  });

  it('attaches to an opened recording, stopped at its end, and steps back', async () => {
    const file = join(dir, 'crawl.corotrace');
    await panel.run!.endpoint.request('saveRecording', { path: file });
    await panel.openRecording(file);
    const dap = await adapter('debug 3');
    const from = dap.mark();
    await attach(dap, panel.run!.key);
    const opened = await endStop(dap, from);
    assert.equal(opened.tick, end.tick);
    const worker = await worker1(dap);
    assert.ok((await stepBack(dap, worker)) < end.tick);
    await dap.request('disconnect', {});
  });

  it('refuses an attach to a finished run that was not recorded, saying why', async () => {
    const unrecorded = await crawlToEnd(false);
    const dap = await adapter('debug 4');
    const r = await dap.requestRaw('attach', { type: 'coroscope', request: 'attach', name: 'a', run: unrecorded });
    assert.equal(r.success, false);
    assert.deepEqual(r.body, {
      error: {
        id: ERR_LAUNCH,
        format: `run ${unrecorded} (${runs.get(unrecorded)?.title}) has finished and was not recorded: it has no past to step through (run it again with recording on: the launch attribute "record", the coroscope.record setting)`,
        showUser: false,
      },
    });
    assert.match(runs.get(unrecorded)?.title ?? '', /^Crawl of the demo site /);
  });
});
