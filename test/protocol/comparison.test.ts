// The comparison of approaches as the panel accepts it (protocol/webview-protocol.ts
// narrowComparison): well-formed rows pass with their optional figures, malformed rows are
// dropped, and a malformed comparison is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { narrowComparison, narrowPanelInit, PANEL_PROTOCOL_VERSION } from '../../protocol/webview-protocol';

const row = {
  approach: 'threads',
  seconds: 0.2,
  pagesPerSecond: 50,
  concurrency: 8,
  pages: 10,
  latencyMs: 100,
  failures: 0,
  memoryPerFetchBytes: 8e6,
  startupSeconds: 0.1,
};

describe('narrowComparison', () => {
  it('keeps well-formed rows and their optional figures', () => {
    const c = narrowComparison({
      pages: 10,
      latencyMs: 100,
      state: 'done',
      rows: [row, { ...row, approach: 'blocking', memoryPerFetchBytes: undefined, wastedTries: 3 }],
    });
    assert.ok(c !== null);
    assert.equal(c.rows.length, 2);
    assert.equal(c.rows[0]?.memoryPerFetchBytes, 8e6);
    assert.equal(c.rows[1]?.memoryPerFetchBytes, undefined);
    assert.equal(c.rows[1]?.wastedTries, 3);
  });

  it('drops malformed rows and refuses a malformed comparison', () => {
    const c = narrowComparison({
      pages: 10,
      latencyMs: 100,
      state: 'done',
      rows: [row, { ...row, seconds: 'fast' }, null, { approach: 1 }],
    });
    assert.equal(c?.rows.length, 1);
    assert.equal(narrowComparison({ pages: 10, latencyMs: 100, state: 'maybe', rows: [] }), null);
    assert.equal(narrowComparison({ pages: '10', latencyMs: 100, state: 'done', rows: [] }), null);
    assert.equal(narrowComparison(null), null);
  });

  it("keeps a failure's message", () => {
    assert.deepEqual(narrowComparison({ pages: 10, latencyMs: 100, state: 'failed', rows: [], error: 'boom' }), {
      pages: 10,
      latencyMs: 100,
      state: 'failed',
      rows: [],
      error: 'boom',
    });
  });

  it("comes in the panel's initial state, or null", () => {
    const base = {
      protocolVersion: PANEL_PROTOCOL_VERSION,
      status: { phase: 'idle', runId: null, title: 'No run', detail: '', tick: 0 },
      snapshot: null,
      progress: [],
      exceptions: [],
      lints: [],
      pages: [],
      lastProgress: null,
    };
    assert.equal(narrowPanelInit(base)?.comparison, null);
    assert.equal(
      narrowPanelInit({ ...base, comparison: { pages: 10, latencyMs: 100, state: 'running', rows: [] } })?.comparison
        ?.state,
      'running',
    );
  });
});
