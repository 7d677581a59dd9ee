// webview/state/format.ts: the panel's words for durations, counts, rates, task states, awaits
// and source positions, each as the exact text a view puts in textContent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskState } from '../../../protocol/host-protocol';
import {
  awaitingText,
  baseName,
  formatCount,
  formatMs,
  formatRate,
  isOpenable,
  positionText,
  shortPath,
  STATE_ICONS,
  STATE_LABELS,
} from '../../../webview/state/format';

describe('formatMs', () => {
  it('says nothing for a missing or infinite duration', () => {
    for (const ms of [null, undefined, Number.NaN, Infinity]) assert.equal(formatMs(ms), '', String(ms));
  });

  it('keeps two significant-ish digits below 10 ms, whole ms below 1 s', () => {
    assert.equal(formatMs(0), '0.00 ms');
    assert.equal(formatMs(0.256), '0.26 ms');
    assert.equal(formatMs(1), '1.0 ms');
    assert.equal(formatMs(9.94), '9.9 ms');
    assert.equal(formatMs(10), '10 ms');
    assert.equal(formatMs(999.4), '999 ms');
  });

  it('counts seconds (two decimals below 10 s, one below a minute), then minutes and seconds', () => {
    assert.equal(formatMs(1000), '1.00 s');
    assert.equal(formatMs(9_999), '10.00 s');
    assert.equal(formatMs(10_000), '10.0 s');
    assert.equal(formatMs(59_949), '59.9 s');
    assert.equal(formatMs(60_000), '1 min 0 s');
    assert.equal(formatMs(125_400), '2 min 5 s');
  });
});

describe('formatCount and formatRate', () => {
  it('rounds counts and groups thousands', () => {
    assert.deepEqual(
      [formatCount(0), formatCount(999.6), formatCount(1_234_567), formatCount(Number.NaN)],
      ['0', '1,000', '1,234,567', ''],
    );
  });

  it('gives a rate one decimal below 100 per second, whole above', () => {
    assert.deepEqual(
      [formatRate(0), formatRate(12.34), formatRate(99.94), formatRate(100), formatRate(1234.5), formatRate(Infinity)],
      ['0.0/s', '12.3/s', '99.9/s', '100/s', '1235/s', ''],
    );
  });
});

describe('task states', () => {
  it('has a label and an icon for every state', () => {
    const states: TaskState[] = ['scheduled', 'running', 'suspended', 'done', 'cancelled', 'failed'];
    assert.deepEqual(
      states.map((s) => STATE_LABELS[s]),
      ['Scheduled', 'Running', 'Suspended', 'Done', 'Cancelled', 'Failed'],
    );
    assert.deepEqual(Object.keys(STATE_ICONS).sort(), [...states].sort());
    assert.equal(new Set(Object.values(STATE_ICONS)).size, states.length, 'each state its own icon');
  });
});

describe('awaitingText', () => {
  it('is the kind, then the detail when there is one', () => {
    assert.equal(awaitingText(null), '');
    assert.equal(awaitingText({ kind: 'sleep', detail: '' }), 'sleep');
    assert.equal(awaitingText({ kind: 'queue.get', detail: 'of resource:queue:1' }), 'queue.get of resource:queue:1');
  });
});

describe('file names and positions', () => {
  it('baseName takes the last segment, with either separator', () => {
    assert.equal(baseName('/a/b/crawler.ts'), 'crawler.ts');
    assert.equal(baseName('C:\\src\\x\\loop.ts'), 'loop.ts');
    assert.equal(baseName('mixed/dir\\file.js'), 'file.js');
    assert.equal(baseName('plain.ts'), 'plain.ts');
  });

  it('positionText is "file:line", empty without a position', () => {
    assert.equal(positionText({ file: '/w/runtime/crawler/crawler.ts', line: 129, column: 3 }), 'crawler.ts:129');
    assert.equal(positionText(null), '');
    assert.equal(positionText(undefined), '');
  });

  it('shortPath starts at the last runtime/ folder, else keeps the last three segments', () => {
    assert.equal(shortPath('/home/u/runtime/x/runtime/crawler/crawler.ts'), 'runtime/crawler/crawler.ts');
    assert.equal(shortPath('C:\\p\\runtime\\loop.ts'), 'runtime/loop.ts');
    assert.equal(shortPath('/home/u/project/src/main.ts'), 'project/src/main.ts');
    assert.equal(shortPath('a/b'), 'a/b');
  });

  it('isOpenable: a file on disk at a line from 1, not node internals', () => {
    assert.equal(isOpenable({ file: '/w/main.ts', line: 1, column: 0 }), true);
    assert.equal(isOpenable({ file: 'node:internal/timers', line: 5, column: 0 }), false);
    assert.equal(isOpenable({ file: '', line: 5, column: 0 }), false);
    assert.equal(isOpenable({ file: '/w/main.ts', line: 0, column: 0 }), false);
    assert.equal(isOpenable(null), false);
    assert.equal(isOpenable(undefined), false);
  });
});
