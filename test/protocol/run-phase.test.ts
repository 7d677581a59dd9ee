// One run-phase type (protocol/run-phase.ts) for the Run and the panel's status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isHostGone, isLivePhase, isRunPhase, RUN_PHASES } from '../../protocol/run-phase';
import { narrowRunStatus } from '../../protocol/webview-protocol';

describe('RunPhase', () => {
  it("every phase passes the panel's narrowing, nothing else does", () => {
    for (const phase of RUN_PHASES)
      assert.equal(narrowRunStatus({ phase, runId: 1, title: '', detail: '', tick: 0 })?.phase, phase);
    for (const bad of ['launching', 'done', '', 3, null]) {
      assert.equal(isRunPhase(bad), false);
      assert.equal(narrowRunStatus({ phase: bad, runId: 1, title: '', detail: '', tick: 0 }), null);
    }
  });

  it('live from starting to paused; the host gone when it died or was ended', () => {
    assert.deepEqual(RUN_PHASES.filter(isLivePhase), ['starting', 'running', 'paused']);
    assert.deepEqual(RUN_PHASES.filter(isHostGone), ['hostDied', 'ended']);
  });
});
