// Tests of what a pause of the replayed thread is to a walk or a search's marker
// (runtime/host/replay-host/line-stop-match.ts): its entry (the frames' functions outermost first, the
// innermost line), and whether it is a given line stop: the same frames at the same generated positions,
// then the innermost frame's locals the same (read through a fake line debugger, only when the positions agree).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LineStopPrint } from '../../../../protocol/host-protocol';
import { entryOf, isAtStop } from '../../../../runtime/host/replay-host/line-stop-match';
import type { CdpCallFrame, WalkFrame } from '../../../../runtime/host/worker/cdp-shapes';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';

type Position = WalkFrame['position'];

function walkFrame(id: string, fn: string, line: string, position: Position): WalkFrame {
  const frame: CdpCallFrame = {
    callFrameId: id,
    functionName: id,
    location: { scriptId: '1', lineNumber: 0 },
    scopeChain: [],
  };
  return { frame, url: position.url, functionKey: fn, line, position };
}

const INNER: Position = { url: 'file:///p.js', functionLine: 10, functionColumn: 2, line: 12, column: 4 };
const OUTER: Position = { url: 'file:///p.js', functionLine: 1, functionColumn: 0, line: 5, column: 8 };
const FRAMES = [walkFrame('inner', '1:10:2', '/p.ts:7', INNER), walkFrame('outer', '1:1:0', '/p.ts:3', OUTER)];
const PRINT: LineStopPrint = { frames: [INNER, OUTER], locals: [{ name: 'n', value: '2' }], locations: [] };

/** A line debugger whose innermost frame's locals are `locals`; it records the frames read. */
function debuggerWith(locals: Array<{ name: string; value: string }>): { dbg: LineDebugger; read: string[] } {
  const read: string[] = [];
  const dbg = {
    localsOf: async (frame: CdpCallFrame) => {
      read.push(frame.callFrameId);
      return locals;
    },
  } as unknown as LineDebugger;
  return { dbg, read };
}

test("entryOf: the frames' functions outermost first, and the innermost frame's line", () => {
  assert.deepEqual(entryOf(FRAMES, FRAMES[0]!), { chain: ['1:1:0', '1:10:2'], line: '/p.ts:7' });
});

describe('isAtStop', () => {
  test('the same frames at the same positions with the same locals: the stop', async () => {
    const { dbg, read } = debuggerWith([{ name: 'n', value: '2' }]);
    assert.equal(await isAtStop(dbg, FRAMES, PRINT), true);
    assert.deepEqual(read, ['inner']);
  });

  test('the same line again in a loop, its locals not the same: not the stop', async () => {
    assert.equal(await isAtStop(debuggerWith([{ name: 'n', value: '3' }]).dbg, FRAMES, PRINT), false);
  });

  test('another frame count, or any position field different: not the stop, no locals read', async () => {
    const { dbg, read } = debuggerWith([{ name: 'n', value: '2' }]);
    const differing: Array<Partial<Position>> = [
      { url: 'file:///q.js' },
      { line: 13 },
      { column: 5 },
      { functionLine: 11 },
      { functionColumn: 3 },
    ];
    const answers = [await isAtStop(dbg, FRAMES.slice(0, 1), PRINT)];
    for (const d of differing)
      answers.push(await isAtStop(dbg, FRAMES, { ...PRINT, frames: [INNER, { ...OUTER, ...d }] }));
    assert.deepEqual(answers, [false, false, false, false, false, false]);
    assert.deepEqual(read, []);
  });
});
