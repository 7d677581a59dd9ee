// Tests of protocol/replay-host-requests.ts: the table of params parsers of the host's internal
// replay-host methods. Good params come back typed; bad ones are refused with a ProtocolError
// naming the method and the field, with the messages these methods had in the host's table;
// a public host method, or an unknown one, is refused as unknown here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOST_PARAMS_PARSERS } from '../../protocol/host-requests';
import {
  isReplayHostMethodName,
  parseReplayHostRequest,
  REPLAY_HOST_PARAMS_PARSERS,
} from '../../protocol/replay-host-requests';
import { ProtocolError } from '../../protocol/rpc';

function refused(fn: () => unknown, code: string, message: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ProtocolError, `expected a ProtocolError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return true;
  });
}

test('the replay-host methods narrow their params as the host did', () => {
  const stop = {
    frames: [{ url: 'file:///a.js', functionLine: 1, functionColumn: 0, line: 2, column: 4 }],
    locals: [{ name: 'x', value: '1' }],
    locations: [{ url: 'file:///a.js', line: 2, column: 4 }],
  };
  const print = {
    frames: [{ url: 'file:///a.js', functionLine: 1, functionColumn: 0, line: 2, column: 4 }],
    locals: [],
    locations: [],
  };
  const hit = {
    direction: 'forward',
    bound: { tick: 9, taskId: 2, print },
    floor: 0,
    ceiling: 20,
    breakpoints: [{ file: '/a.ts', line: 3, hitCondition: '>2' }],
    shown: true,
  };
  const scan = {
    from: 0,
    to: 30,
    breakpoints: [{}, { hitCondition: '%2' }],
    locations: [[0, 1], []],
    marker: { location: 1, tick: 30, taskId: 4 },
    stop: { kind: 'nth', tick: 12, ordinal: 1 },
    counts: [0, 3],
  };
  const mark = { events: 10, gaps: 2, payload: 300, details: 4, awaitTasks: 4, outcomes: 1, cancels: 0, lints: 0 };
  assert.deepEqual(parseReplayHostRequest('pastLine', { tick: 3, taskId: 2, stop, move: 'back' }), {
    tick: 3,
    taskId: 2,
    stop,
    move: 'back',
  });
  refused(
    () => parseReplayHostRequest('pastLine', { tick: 3, taskId: 2, stop, move: 'sideways' }),
    'badRequest',
    /^pastLine: params\.move must be 'back', 'leave', 'over', 'into' or 'out'/,
  );
  refused(
    () =>
      parseReplayHostRequest('pastLine', {
        tick: 3,
        taskId: 2,
        stop: { ...stop, frames: [{ url: 'a' }] },
        move: 'back',
      }),
    'badRequest',
    /^pastLine: params\.stop\.frames\[0\]\.functionLine must be a number/,
  );
  assert.deepEqual(parseReplayHostRequest('pastHitLine', { move: 'over', ceiling: 40 }), { move: 'over', ceiling: 40 });
  // A step limited to the walk's task (it lapses when the task ends); false is the same as none.
  assert.deepEqual(parseReplayHostRequest('pastHitLine', { move: 'out', ceiling: 40, oneTask: true }), {
    move: 'out',
    ceiling: 40,
    oneTask: true,
  });
  assert.deepEqual(parseReplayHostRequest('pastHitLine', { move: 'out', ceiling: 40, oneTask: false }), {
    move: 'out',
    ceiling: 40,
  });
  refused(
    () => parseReplayHostRequest('pastHitLine', { move: 'over', ceiling: 40, oneTask: 'yes' }),
    'badRequest',
    /^pastHitLine: params\.oneTask must be a boolean/,
  );
  refused(
    () => parseReplayHostRequest('pastHitLine', { move: 'sideways', ceiling: 40 }),
    'badRequest',
    /^pastHitLine: params\.move must be 'back', 'leave', 'over', 'into' or 'out'/,
  );
  refused(
    () => parseReplayHostRequest('pastHitLine', { move: 'back' }),
    'badRequest',
    /^pastHitLine: params\.ceiling must be a number, got nothing/,
  );
  assert.deepEqual(parseReplayHostRequest('pastHitLine', { move: 'back', lines: 3, ceiling: 40 }), {
    move: 'back',
    lines: 3,
    ceiling: 40,
  });
  refused(
    () => parseReplayHostRequest('pastHitLine', { move: 'back', lines: 0, ceiling: 40 }),
    'badRequest',
    /^pastHitLine: params\.lines must be 1 or more/,
  );
  const watched = [{ expression: 'got', functionName: 'worker', depth: 0 }];
  assert.deepEqual(parseReplayHostRequest('pastHitLineValues', { ceiling: 40, watched }), { ceiling: 40, watched });
  assert.deepEqual(
    parseReplayHostRequest('pastHitLineValues', { ceiling: 40, watched, present: { tick: 41, taskId: 3 } }),
    { ceiling: 40, watched, present: { tick: 41, taskId: 3 } },
  );
  refused(
    () =>
      parseReplayHostRequest('pastHitLineValues', {
        ceiling: 40,
        watched: [{ expression: ' ', functionName: 'f', depth: 0 }],
      }),
    'badRequest',
    /^pastHitLineValues: params\.watched\[0\]: params\.expression must not be empty/,
  );
  assert.deepEqual(parseReplayHostRequest('pastHit', hit), hit);
  refused(
    () =>
      parseReplayHostRequest('pastHit', { ...hit, bound: { tick: 9, print: { ...print, frames: [{ url: 'a' }] } } }),
    'badRequest',
    /^pastHit: params\.bound\.print\.frames\[0\]\.functionLine must be a number/,
  );
  refused(
    () => parseReplayHostRequest('pastHit', { ...hit, breakpoints: [{ file: '/a.ts' }] }),
    'badRequest',
    /^pastHit: params\.breakpoints\[0\]\.line must be a number/,
  );
  assert.deepEqual(parseReplayHostRequest('scanTicks', scan), scan);
  refused(
    () => parseReplayHostRequest('scanTicks', { ...scan, locations: [[-1]] }),
    'badRequest',
    /^scanTicks: params\.locations\[0\] must be an array of breakpoint indexes/,
  );
  refused(
    () => parseReplayHostRequest('scanTicks', { ...scan, stop: { kind: 'last' } }),
    'badRequest',
    /^scanTicks: params\.stop\.kind must be 'nth', 'first' or 'marker'/,
  );
  assert.deepEqual(parseReplayHostRequest('writeReplayCopy', { path: '/tmp/x' }), { path: '/tmp/x' });
  assert.deepEqual(parseReplayHostRequest('writeRecordingGrowth', { path: '/tmp/g', from: mark }), {
    path: '/tmp/g',
    from: mark,
  });
  refused(
    () => parseReplayHostRequest('writeRecordingGrowth', { path: '/tmp/g', from: { ...mark, payload: -1 } }),
    'badRequest',
    /^writeRecordingGrowth: params\.from\.payload must be >= 0/,
  );
  refused(
    () => parseReplayHostRequest('writeRecordingGrowth', { path: '/tmp/g', from: { ...mark, lints: undefined } }),
    'badRequest',
    /^writeRecordingGrowth: params\.from\.lints must be a number/,
  );
  assert.deepEqual(parseReplayHostRequest('growRecording', { path: '/tmp/g', live: true }), {
    path: '/tmp/g',
    live: true,
  });
  refused(
    () => parseReplayHostRequest('growRecording', { path: '/tmp/g' }),
    'badRequest',
    /^growRecording: params\.live must be a boolean/,
  );
  assert.deepEqual(parseReplayHostRequest('replayLineTick', { tick: 3 }), { tick: 3 });
  refused(
    () => parseReplayHostRequest('replayLineTick', { tick: 1.5 }),
    'badRequest',
    /^replayLineTick: params\.tick must be an integer/,
  );
  assert.deepEqual(parseReplayHostRequest('warmTick', { tick: 88, keep: [92] }), { tick: 88, keep: [92] });
  refused(
    () => parseReplayHostRequest('warmTick', { tick: 88, keep: [1.5] }),
    'badRequest',
    /^warmTick: params\.keep must be an array of ticks/,
  );
});

test('the replay-host protocol holds the fourteen internal methods, none of the public ones', () => {
  assert.deepEqual(Object.keys(REPLAY_HOST_PARAMS_PARSERS).sort(), [
    'growRecording',
    'holdCheckpoints',
    'pastHit',
    'pastHitLine',
    'pastHitLineValues',
    'pastLine',
    'pastLineValues',
    'pastLog',
    'pastWarm',
    'replayLineTick',
    'scanTicks',
    'warmTick',
    'writeRecordingGrowth',
    'writeReplayCopy',
  ]);
  for (const method of Object.keys(HOST_PARAMS_PARSERS)) assert.equal(isReplayHostMethodName(method), false, method);
  refused(() => parseReplayHostRequest('snapshot', {}), 'unknownMethod', /unknown method "snapshot"/);
  refused(() => parseReplayHostRequest('__proto__', {}), 'unknownMethod', /unknown method "__proto__"/);
});
