// Tests of protocol/host-requests.ts: the runtime host's table of params parsers. Good params
// come back typed; bad ones are refused with a ProtocolError naming the method and the field;
// an unknown method is refused as such.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOST_PARAMS_PARSERS, isHostMethodName, parseHostRequest } from '../../protocol/host-requests';
import { ProtocolError } from '../../protocol/rpc';

function refused(fn: () => unknown, code: string, message: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ProtocolError, `expected a ProtocolError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return true;
  });
}

test('good params pass, typed and with nothing extra', () => {
  assert.deepEqual(parseHostRequest('hello', { client: 'test', protocolVersion: 1 }), {
    client: 'test',
    protocolVersion: 1,
  });
  assert.deepEqual(parseHostRequest('snapshot', { since: 4 }), { since: 4 });
  assert.deepEqual(parseHostRequest('snapshot', undefined), {});
  assert.deepEqual(parseHostRequest('seekTick', { tick: null }), { tick: null });
  assert.deepEqual(parseHostRequest('seekTick', { tick: 12, extra: 1 }), { tick: 12 });
  assert.deepEqual(parseHostRequest('timeline', { sinceTick: 40 }), { sinceTick: 40 });
  assert.deepEqual(parseHostRequest('stepOut', { taskId: 3, depth: 0, extra: true }), { taskId: 3, depth: 0 });
  assert.deepEqual(
    parseHostRequest('launch', {
      target: { kind: 'demo', pages: 20, latency: 'instant' },
      options: { maxTasks: 5, stopOnEntry: true },
    }),
    {
      target: { kind: 'demo', pages: 20, latency: 'instant' },
      options: { maxTasks: 5, stopOnEntry: true },
    },
  );
  assert.deepEqual(
    parseHostRequest('setBreakpoints', {
      file: '/a.ts',
      breakpoints: [{ line: 3, condition: 'n > 1', logMessage: 'n={n}' }],
    }),
    {
      file: '/a.ts',
      breakpoints: [{ file: '/a.ts', line: 3, condition: 'n > 1', logMessage: 'n={n}' }],
    },
  );
  assert.deepEqual(
    parseHostRequest('setBreakpoints', { file: '/a.ts', breakpoints: [{ line: 3 }], yieldLines: 'before' }),
    { file: '/a.ts', breakpoints: [{ file: '/a.ts', line: 3 }], yieldLines: 'before' },
  );
  assert.deepEqual(parseHostRequest('evaluate', { expression: 'url', taskId: 2, frameIndex: 1 }), {
    expression: 'url',
    taskId: 2,
    frameIndex: 1,
  });
  assert.deepEqual(parseHostRequest('lineStep', { kind: 'into' }), { kind: 'into' });
  assert.deepEqual(parseHostRequest('setLineStepMode', { mode: 'followLoop' }), { mode: 'followLoop' });
  assert.deepEqual(parseHostRequest('compare', { pages: 10, latencyMs: 0 }), { pages: 10, latencyMs: 0 });
});

test('bad params are refused with the method and the field named', () => {
  refused(
    () => parseHostRequest('hello', { client: 'x' }),
    'badRequest',
    /^hello: params\.protocolVersion must be a number, got nothing/,
  );
  refused(() => parseHostRequest('stepTask', { taskId: -1 }), 'badRequest', /^stepTask: params\.taskId must be >= 0/);
  refused(
    () => parseHostRequest('stepOut', { taskId: 1, depth: 'top' }),
    'badRequest',
    /^stepOut: params\.depth must be a number/,
  );
  refused(() => parseHostRequest('snapshot', 'all'), 'badRequest', /^snapshot: params must be an object/);
  refused(
    () => parseHostRequest('launch', { target: { kind: 'demo', latency: 'slow' } }),
    'badRequest',
    /^launch: target\.latency must be 'realistic' or 'instant'/,
  );
  refused(
    () => parseHostRequest('launch', { target: { kind: 'crawl', urls: ['a', 3] } }),
    'badRequest',
    /^launch: params\.target\.urls\[1\] must be a string/,
  );
  refused(
    () => parseHostRequest('launch', { target: { kind: 'demo' }, options: { exclude: '(' } }),
    'badRequest',
    /^launch: options\.exclude is not a regular expression/,
  );
  refused(
    () => parseHostRequest('setBreakpoints', { file: '/a.ts', breakpoints: [{ line: 2 }, { line: 'x' }] }),
    'badRequest',
    /^setBreakpoints: params\.breakpoints\[1\]\.line must be a number/,
  );
  refused(
    () => parseHostRequest('setBreakpoints', { file: '/a.ts', breakpoints: [], yieldLines: 'after' }),
    'badRequest',
    /^setBreakpoints: params\.yieldLines must be "suspension" or "before"/,
  );
  refused(
    () => parseHostRequest('setExceptionBreaks', { taskFailed: true }),
    'badRequest',
    /^setExceptionBreaks: params\.taskCancelled must be a boolean/,
  );
  refused(() => parseHostRequest('evaluate', { expression: '  ' }), 'badRequest', /^evaluate: the expression is empty/);
  refused(
    () => parseHostRequest('evaluate', { expression: 'x', frameIndex: 0 }),
    'badRequest',
    /^evaluate: frameIndex needs a taskId/,
  );
  refused(() => parseHostRequest('variables', { handle: 0 }), 'badRequest', /^variables: handle 0 has no children/);
  refused(
    () => parseHostRequest('compare', { pages: 0, latencyMs: 0 }),
    'badRequest',
    /^compare: params\.pages must be 1\.\.2000, got 0/,
  );
  refused(
    () => parseHostRequest('lineStep', { kind: 'sideways' }),
    'badRequest',
    /^lineStep: params\.kind must be 'over', 'into' or 'out'/,
  );
  refused(
    () => parseHostRequest('setLineStepMode', {}),
    'badRequest',
    /^setLineStepMode: params\.mode must be a string, got nothing/,
  );
  refused(
    () => parseHostRequest('saveRecording', { path: 7 }),
    'badRequest',
    /^saveRecording: params\.path must be a string, got number 7/,
  );
  refused(
    () => parseHostRequest('seekTick', {}),
    'badRequest',
    /^seekTick: params\.tick must be a number, got nothing/,
  );
  refused(
    () => parseHostRequest('seekTick', { tick: 2.5 }),
    'badRequest',
    /^seekTick: params\.tick must be an integer/,
  );
  refused(
    () => parseHostRequest('timeline', { sinceTick: -1 }),
    'badRequest',
    /^timeline: params\.sinceTick must be >= 0/,
  );
  refused(
    () => parseHostRequest('openRecording', { path: 'a', midTick: 1 }),
    'badRequest',
    /^openRecording: params\.midTick must be a boolean/,
  );
  refused(() => parseHostRequest('pause', [1]), 'badRequest', /^pause: params must be an object, got an array/);
});

test('the breakpoint search of the past: pastBreakpointHit; openRecording of a replay copy', () => {
  assert.deepEqual(parseHostRequest('pastBreakpointHit', { direction: 'back', tick: 40, floor: 3 }), {
    direction: 'back',
    tick: 40,
    floor: 3,
  });
  refused(
    () => parseHostRequest('pastBreakpointHit', { direction: 'up', tick: 4 }),
    'badRequest',
    /^pastBreakpointHit: params\.direction must be 'back' or 'forward'/,
  );
  refused(
    () => parseHostRequest('pastBreakpointHit', { direction: 'back' }),
    'badRequest',
    /^pastBreakpointHit: params\.tick must be a number/,
  );
  assert.deepEqual(parseHostRequest('openRecording', { path: '/tmp/x', unshown: true }), {
    path: '/tmp/x',
    unshown: true,
  });
  refused(
    () => parseHostRequest('openRecording', { path: 'a', unshown: 'yes' }),
    'badRequest',
    /^openRecording: params\.unshown must be a boolean/,
  );
});

test('logpoints in the past: pastLogpointHits, and pastBreakpointHit going to one of their hits', () => {
  const logpoint = { file: '/a.ts', line: 3, logMessage: 'n={n}', hitCondition: '%2' };
  assert.deepEqual(parseHostRequest('pastLogpointHits', { logpoints: [logpoint], tick: 40 }), {
    logpoints: [logpoint],
    tick: 40,
  });
  assert.deepEqual(parseHostRequest('pastLogpointHits', { logpoints: [logpoint], through: 0 }), {
    logpoints: [logpoint],
    through: 0,
  });
  refused(
    () => parseHostRequest('pastLogpointHits', { logpoints: [logpoint], through: -1 }),
    'badRequest',
    /through must be >= 0/,
  );
  refused(
    () => parseHostRequest('pastLogpointHits', { logpoints: [{ file: '/a.ts', line: 3 }] }),
    'badRequest',
    /logMessage must be a string/,
  );
  refused(
    () => parseHostRequest('pastLogpointHits', { logpoints: [{ file: '/a.ts', line: 3, logMessage: '' }] }),
    'badRequest',
    /logMessage must not be empty/,
  );
  assert.deepEqual(
    parseHostRequest('pastBreakpointHit', {
      direction: 'back',
      tick: 40,
      logpointHit: { logpoint, tick: 12, ordinal: 1 },
    }),
    { direction: 'back', tick: 40, logpointHit: { logpoint, tick: 12, ordinal: 1 } },
  );
});

test('lineStepBack takes a number of lines, lineValuesBack the values watched', () => {
  assert.deepEqual(parseHostRequest('lineStepBack', { lines: 4, moment: 'm1' }), { lines: 4, moment: 'm1' });
  assert.deepEqual(parseHostRequest('lineStepBack', {}), {});
  refused(() => parseHostRequest('lineStepBack', { lines: 0 }), 'badRequest', /lines must be 1 or more/);
  refused(() => parseHostRequest('lineStepBack', { lines: 1.5 }), 'badRequest', /lines/);
  const watched = [{ expression: 'box.n', functionName: 'worker', depth: 0 }];
  assert.deepEqual(parseHostRequest('lineValuesBack', { watched }), { watched });
  refused(
    () => parseHostRequest('lineValuesBack', { watched: [{ expression: ' ', functionName: 'f', depth: 0 }] }),
    'badRequest',
    /must not be empty/,
  );
  refused(
    () => parseHostRequest('lineValuesBack', { watched: [{ expression: 'a', functionName: 'f', depth: -1 }] }),
    'badRequest',
    /depth/,
  );
});

test('an unknown method is refused as unknown, and only the protocol methods are known', () => {
  refused(() => parseHostRequest('snapshto', {}), 'unknownMethod', /unknown method "snapshto"/);
  refused(() => parseHostRequest('toString', {}), 'unknownMethod', /unknown method "toString"/);
  assert.equal(isHostMethodName('snapshot'), true);
  assert.equal(isHostMethodName('__proto__'), false);
  assert.equal(Object.keys(HOST_PARAMS_PARSERS).length, 35);
  // The internal replay-host methods are a protocol of their own (protocol/replay-host-requests.ts).
  for (const internal of [
    'pastLine',
    'pastLineValues',
    'pastHitLine',
    'pastHit',
    'scanTicks',
    'writeReplayCopy',
    'writeRecordingGrowth',
    'growRecording',
    'replayLineTick',
  ]) {
    assert.equal(isHostMethodName(internal), false, internal);
    refused(() => parseHostRequest(internal, {}), 'unknownMethod', new RegExp(`unknown method "${internal}"`));
  }
});
