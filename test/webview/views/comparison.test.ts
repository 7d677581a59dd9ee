// The comparison's box (webview/views/comparison.ts): a bar per approach, the seconds and the
// speed-up against blocking fetches, the memory per fetch where measured; the state while it runs or failed.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ComparisonRowInfo } from '../../../protocol/host-protocol';
import { comparisonBox, formatBytes } from '../../../webview/views/comparison';
import { closeDom, openDom } from '../dom-env';

beforeEach(() => openDom());
afterEach(() => closeDom());

function row(approach: string, seconds: number, memoryPerFetchBytes?: number): ComparisonRowInfo {
  return {
    approach,
    seconds,
    pagesPerSecond: 20 / seconds,
    concurrency: 10,
    pages: 20,
    latencyMs: 100,
    failures: 0,
    memoryPerFetchBytes,
  };
}

describe('the comparison box', () => {
  it('draws a bar per approach, the longest for the slowest, with the speed-up against blocking', () => {
    const box = comparisonBox({
      pages: 20,
      latencyMs: 100,
      state: 'done',
      rows: [row('blocking', 2), row('runtime', 0.5, 2048)],
    });
    const seconds = [...box.querySelectorAll('[data-chart="seconds"] .bar-row')].map((r) => ({
      approach: r.getAttribute('data-approach'),
      text: r.querySelector('.bar-count')?.textContent,
      width: (r.querySelector('.bar') as HTMLElement).style.width,
    }));
    assert.deepEqual(seconds, [
      { approach: 'blocking', text: '2.000 s · 1.0×', width: '100%' },
      { approach: 'runtime', text: '0.500 s · 4.0×', width: '25%' },
    ]);
    const memory = [...box.querySelectorAll('[data-chart="memory"] .bar-row')].map((r) =>
      r.getAttribute('data-approach'),
    );
    assert.deepEqual(memory, ['runtime'], 'only the approaches whose memory was measured');
  });

  it('says it is measuring while it runs, and the error when it failed', () => {
    const running = comparisonBox({ pages: 20, latencyMs: 100, state: 'running', rows: [] });
    assert.equal(running.dataset.state, 'running');
    assert.equal(running.querySelectorAll('.bar-row').length, 0);
    const failed = comparisonBox({ pages: 20, latencyMs: 100, state: 'failed', rows: [], error: '<b>port busy</b>' });
    assert.equal(failed.querySelector('.comparison-error')?.textContent, 'The comparison failed: <b>port busy</b>');
    assert.equal(failed.querySelectorAll('b').length, 0);
  });

  it('formats bytes in B, KB and MB', () => {
    assert.deepEqual(
      [formatBytes(512), formatBytes(2048), formatBytes(3 * 1024 * 1024)],
      ['512 B', '2.0 KB', '3.0 MB'],
    );
  });
});
