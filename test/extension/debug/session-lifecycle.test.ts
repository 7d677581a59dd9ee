// extension/debug/session-lifecycle.ts at the protocol level, against the fake host
// (fake-debug-host.ts): a debug session's life. A launch is held until configurationDone, answered
// then, and only then let go (or stopped on entry); a launch that fails ends the session (the error
// response, the console saying why, `terminated`); an attach to a run that cannot be debugged is
// refused saying why; disconnect ends a launched run (answered once it is gone) and only detaches
// from an attached one, `terminateDebuggee` overriding either way; a host event of another run is
// ignored. Ordered logs (dap-log.ts) and host requests compared whole.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { ERR_LAUNCH } from '../../../extension/debug/session-core';
import { FakeRun, FakeRuns, snapshotAt } from './fake-debug-host';
import { DapClient } from './dap-client';
import { attachedInProcess, demoCrawl, initialize } from './adapter-harness';
import { logMark, logSince } from './dap-log';

const TIMEOUT = 5000;
/** What a launch asks of the host before the run goes (the fake host answers each). */
const LAUNCH_ASKS = ['launch', 'setExceptionBreaks', 'setLineStepMode'];

/** A session on a run it may launch (FakeRuns launchable), initialized. */
async function launchable(run: FakeRun): Promise<DapClient> {
  const dap = DapClient.inProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run, true) }),
  );
  await initialize(dap);
  return dap;
}

/** A run whose host launches (run 9, held at entry) and lets it go. */
function hostThatLaunches(): FakeRun {
  const run = new FakeRun('running');
  run.endpoint.serve('launch', () => ({ runId: 9, heldAtEntry: true }));
  run.endpoint.serve('setExceptionBreaks', () => ({}));
  run.endpoint.serve('setLineStepMode', () => ({}));
  run.endpoint.serve('continue', () => ({ tick: 0 }));
  run.endpoint.serve('snapshot', () => snapshotAt(0, true));
  return run;
}

async function attached(run: FakeRun): Promise<DapClient> {
  return attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
}

describe('session lifecycle', () => {
  it('a launch is held until configurationDone, answered then, and only then lets the run go', async () => {
    const run = hostThatLaunches();
    const dap = await launchable(run);
    try {
      const mark = logMark(dap);
      const launch = dap.requestRaw('launch', demoCrawl());
      await dap.waitForEvent('initialized', { from: mark.events, timeoutMs: TIMEOUT });
      assert.deepEqual(run.endpoint.asked(), LAUNCH_ASKS, 'configured before it goes');
      await dap.request('configurationDone');
      assert.equal((await launch).success, true);
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.deepEqual(run.endpoint.asked(), [...LAUNCH_ASKS, 'continue']);
      assert.deepEqual(
        logSince(dap, mark, ['initialized', 'stopped', 'terminated']).map((m) =>
          'response' in m ? m.response : m.event,
        ),
        ['initialized', 'configurationDone', 'launch'],
      );
    } finally {
      await dap.close();
    }
  });

  it('stopOnEntry: the run held at entry is shown stopped there, not let go', async () => {
    const run = hostThatLaunches();
    const dap = await launchable(run);
    try {
      const mark = logMark(dap);
      const launch = dap.requestRaw('launch', demoCrawl({ stopOnEntry: true }));
      await dap.waitForEvent('initialized', { from: mark.events, timeoutMs: TIMEOUT });
      await dap.request('configurationDone');
      await launch;
      await dap.waitForEvent('stopped', { from: mark.events, timeoutMs: TIMEOUT });
      assert.deepEqual(run.endpoint.asked(), [...LAUNCH_ASKS, 'snapshot']);
      assert.deepEqual(logSince(dap, mark, ['stopped', 'terminated']).slice(-3), [
        { response: 'configurationDone', success: true },
        { response: 'launch', success: true },
        { event: 'stopped', reason: 'entry', threadId: LOOP_THREAD_ID, description: null },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a launch the host refuses ends the session: the error response, the console saying why, terminated', async () => {
    const run = new FakeRun('running');
    run.endpoint.serve('launch', () => {
      throw new Error('launch: the demo site could not start: port in use');
    });
    const dap = await launchable(run);
    try {
      const mark = logMark(dap);
      await dap.requestRaw('launch', demoCrawl());
      await dap.waitForEvent('terminated', { from: mark.events, timeoutMs: TIMEOUT });
      const text = 'Coroscope: the launch failed: the demo site could not start: port in use';
      assert.deepEqual(logSince(dap, mark, ['output', 'stopped', 'terminated']), [
        { response: 'launch', success: false, error: { id: ERR_LAUNCH, format: text, showUser: true } },
        { event: 'output', category: 'stderr', output: `${text}\n` },
        { event: 'terminated' },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('an attach to a run that cannot be debugged: refused saying why', async () => {
    const unrecorded = new FakeRun('finished');
    unrecorded.recorded = false;
    for (const [run, args, why] of [
      [
        unrecorded,
        { run: 1 },
        'run 1 (fake run) has finished and was not recorded: it has no past to step through (run it again with recording on: the launch attribute "record", the coroscope.record setting)',
      ],
      [new FakeRun('paused'), { run: 5 }, 'there is no run 5 to debug (runs: 1: fake run)'],
      [
        unrecorded,
        {},
        'there is no run to attach to: start one first (Coroscope: Run Crawl, or a sample), or open a recording',
      ],
    ] as const) {
      const dap = DapClient.inProcess(
        new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
      );
      try {
        await initialize(dap);
        const mark = logMark(dap);
        await dap.requestRaw('attach', args);
        assert.deepEqual(logSince(dap, mark, ['initialized', 'stopped', 'terminated']), [
          { response: 'attach', success: false, error: { id: ERR_LAUNCH, format: why, showUser: false } },
        ]);
        assert.deepEqual(run.endpoint.asked(), []);
      } finally {
        await dap.close();
      }
    }
  });

  it('disconnect: a launched run ends with its session (answered once gone), unless terminateDebuggee is false', async () => {
    for (const [terminateDebuggee, ends] of [
      [undefined, true],
      [false, false],
    ] as const) {
      const run = hostThatLaunches();
      // The host process takes a while to go: the answer must wait for it.
      const stop = run.stop.bind(run);
      run.stop = async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await stop();
      };
      const dap = await launchable(run);
      try {
        const launch = dap.requestRaw('launch', demoCrawl());
        await dap.waitForEvent('initialized', { timeoutMs: TIMEOUT });
        await dap.request('configurationDone');
        await launch;
        let aliveAtAnswer: boolean | null = null;
        const answered = dap
          .requestRaw('disconnect', terminateDebuggee === undefined ? {} : { terminateDebuggee })
          .then((r) => {
            aliveAtAnswer = run.host.alive;
            return r;
          });
        assert.equal((await answered).success, true);
        assert.equal(aliveAtAnswer, !ends, `terminateDebuggee ${terminateDebuggee}`);
      } finally {
        await dap.close();
      }
    }
  });

  it('disconnect from an attached paused run: detached (let go, exception breaks off), the run goes on', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    run.endpoint.serve('continue', () => ({ tick: 5 }));
    run.endpoint.serve('setExceptionBreaks', () => ({}));
    const dap = await attached(run);
    try {
      await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
      const asked = run.endpoint.requests.length;
      assert.equal((await dap.requestRaw('disconnect', {})).success, true);
      assert.deepEqual(run.endpoint.requests.slice(asked), [
        { method: 'continue', params: {} },
        {
          method: 'setExceptionBreaks',
          params: { taskFailed: false, taskCancelled: false, urlFailed: false, deadlock: false },
        },
      ]);
      assert.equal(run.host.alive, true, 'the run goes on for its other views');
    } finally {
      await dap.close();
    }
  });

  it("a host event of another run is ignored; the run's own end ends the session", async () => {
    const run = new FakeRun('running');
    run.recorded = false;
    run.endpoint.serve('snapshot', () => snapshotAt(3, false));
    const dap = await attached(run);
    try {
      const mark = logMark(dap);
      run.endpoint.emit('finished', { runId: 99, ok: true, summary: 'another run finished' });
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.deepEqual(logSince(dap, mark, ['output', 'exited', 'terminated']), []);
      run.endpoint.emit('finished', { runId: 7, ok: false, summary: 'crawl failed', error: 'Error: boom' });
      await dap.waitForEvent('terminated', { from: mark.events, timeoutMs: TIMEOUT });
      assert.deepEqual(logSince(dap, mark, ['output', 'exited', 'terminated']), [
        { event: 'output', category: 'important', output: 'Coroscope: crawl failed (Error: boom)\n' },
        { event: 'exited' },
        { event: 'terminated' },
      ]);
    } finally {
      await dap.close();
    }
  });
});
