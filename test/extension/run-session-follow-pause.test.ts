// The panel's header follows the run's stop (issue 26: "a thread's label says its real state"):
// the status the panel shows (RunSession.status, what the webview's header prints as it is) is
// 'paused' whenever the Run every view shares is paused, whoever launched it and whenever the
// panel began to follow it. A debug session's launch whose stop comes before its answer, with
// the panel following the run from between the two, used to leave the header on "Running"
// while the debugger's Call Stack said paused. Against the real runtime host.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RunRegistry } from '../../extension/runs/run-registry';
import { RunSession } from '../../extension/run-session';
import { until } from './wait-until';
import { distBundle } from '../dist-bundles';

const HOST = distBundle('runtime-host.js');

describe('the panel follows the stop of a run another view launched', {
  timeout: 60_000,
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

  it('followed after the stop was told, before the launch answered: paused, as the run is', async () => {
    const other = await runs.start();
    const detach = other.attach('debugger');
    try {
      let stopHeard = false;
      // The panel begins to follow the run right after the host told the stop, while the launch is unanswered.
      const off = other.endpoint.on('paused', () => {
        stopHeard = true;
        queueMicrotask(() => session.show(other));
      });
      await other.launch({ kind: 'demo' }, { maxTasks: 2, stopOnEntry: true }, 'debugger');
      off();
      assert.ok(stopHeard, 'the host told the stop');
      assert.equal(other.phase, 'paused', 'the run is paused');
      await until('the panel follows the run', () => session.run === other && session.status.phase !== 'starting');
      assert.equal(session.status.phase, 'paused', `the panel's header says ${session.status.phase}`);
      assert.equal(session.status.pauseReason, 'entry');
    } finally {
      detach();
      await session.stop();
    }
  });
});
