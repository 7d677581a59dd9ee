import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupMarks, markLabel } from '../../extension/suspension-marks';
import { makeTask } from '../webview/fixtures-tasks';

describe('suspension marks for the editor', () => {
  it('counts each task once per line: innermost frame waits, outer frames delegate', () => {
    const a = makeTask(2);
    const b = makeTask(4);
    const frames = [
      { name: 'work', file: '/x/crawler.ts', line: 145 },
      { name: 'get', file: '/x/queue.ts', line: 80 },
    ];
    const marks = groupMarks([
      { task: a, frames },
      { task: b, frames },
    ]);
    const crawler = marks.get('/x/crawler.ts')!;
    assert.equal(crawler.length, 1);
    assert.equal(crawler[0]!.delegating.length, 2);
    assert.equal(crawler[0]!.waiting.length, 0);
    const queue = marks.get('/x/queue.ts')![0]!;
    assert.deepEqual(
      queue.waiting.map((w) => w.id),
      [2, 4],
    );
    assert.equal(markLabel(queue), ' ‖ 2 tasks suspended here');
    assert.equal(markLabel(crawler[0]!), ' ‖ 2 tasks suspended in this call');
  });

  it('a recursive chain on one line counts the task once', () => {
    const t = makeTask(2);
    const m = groupMarks([
      {
        task: t,
        frames: [
          { name: 'f', file: '/a.ts', line: 3 },
          { name: 'f', file: '/a.ts', line: 3 },
        ],
      },
    ]);
    const only = m.get('/a.ts')![0]!;
    assert.equal(only.waiting.length + only.delegating.length, 1);
  });
});
