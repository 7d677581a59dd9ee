// The line debugger worker's routing (runtime/host/worker/request-routes.ts), the decisions
// line-debug-worker.ts's dispatch takes: where each request goes while the thread runs (forwarded,
// or the search's replay host for a moment's query when it shows a line) and while it is held on a
// line (continue and pause answered there, loop steps refused, the stop's replay host for a moment
// replayed, run-changing requests letting the thread go, the rest through the synchronous call);
// which requests wait for a warm-up, leave a searched hit, are answered at a line stop; the refusal code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOST_PARAMS_PARSERS } from '../../../../protocol/host-requests';
import { ProtocolError } from '../../../../protocol/rpc';
import { MOMENT_QUERIES } from '../../../../runtime/host/worker/line-replay-host';
import {
  LOOP_MOVES,
  READ_ONLY,
  RUN_CHANGING,
  atLineStop,
  leavesSearchedHit,
  refusalCode,
  routeOf,
  waitsForWarmUp,
  type RequestRoute,
  type WorkerView,
} from '../../../../runtime/host/worker/request-routes';

const RUNNING: WorkerView = { stopped: false, searchShowsLine: false, stopShowsMoment: false };
const RUNNING_HIT_SHOWN: WorkerView = { stopped: false, searchShowsLine: true, stopShowsMoment: false };
const HELD: WorkerView = { stopped: true, searchShowsLine: false, stopShowsMoment: false };
const HELD_PAST_SHOWN: WorkerView = { stopped: true, searchShowsLine: false, stopShowsMoment: true };

/** Methods of each kind the routing tells apart. */
const METHODS = [
  'lineStep',
  'lineStack',
  'setLineStepMode',
  'pastHit',
  'pastLogpointHits',
  'setBreakpoints',
  'hello',
  'snapshot',
  'taskDetail',
  'variables',
  'evaluate',
  'samples',
  'continue',
  'pause',
  'stepTick',
  'stepTask',
  'stepOut',
  'seekTick',
  'launch',
  'openRecording',
  'stop',
  'shutdown',
  'setExceptionBreaks',
] as const;

const routes = (view: WorkerView): Record<string, RequestRoute> =>
  Object.fromEntries(METHODS.map((m) => [m, routeOf(m, view)]));

const ALL_METHODS = Object.keys(HOST_PARAMS_PARSERS);

describe("the line debugger worker's request routes", () => {
  it('the sets name host methods only', () => {
    for (const set of [READ_ONLY, RUN_CHANGING, LOOP_MOVES])
      assert.deepEqual(
        [...set].filter((m) => !ALL_METHODS.includes(m)),
        [],
      );
  });

  it('while the thread runs: everything but its own requests and breakpoints is forwarded', () => {
    assert.deepEqual(routes(RUNNING), {
      lineStep: 'own',
      lineStack: 'own',
      setLineStepMode: 'own',
      pastHit: 'own',
      pastLogpointHits: 'own',
      setBreakpoints: 'setBreakpoints',
      hello: 'forward',
      snapshot: 'forward',
      taskDetail: 'forward',
      variables: 'forward',
      evaluate: 'forward',
      samples: 'forward',
      continue: 'forward',
      pause: 'forward',
      stepTick: 'forward',
      stepTask: 'forward',
      stepOut: 'forward',
      seekTick: 'forward',
      launch: 'forward',
      openRecording: 'forward',
      stop: 'forward',
      shutdown: 'forward',
      setExceptionBreaks: 'forward',
    });
  });

  it("while it runs and the search's replay host shows a line: the moment's queries are that host's", () => {
    const shown = routes(RUNNING_HIT_SHOWN);
    assert.deepEqual(
      METHODS.filter((m) => shown[m] === 'searchReplay'),
      ['snapshot', 'taskDetail', 'variables', 'evaluate'],
    );
    assert.deepEqual(
      ALL_METHODS.filter((m) => routeOf(m, RUNNING_HIT_SHOWN) === 'searchReplay'),
      ALL_METHODS.filter((m) => MOMENT_QUERIES.has(m)),
    );
    // The stop's replay host only counts while a stop holds the thread.
    assert.deepEqual(routes({ ...RUNNING, stopShowsMoment: true }), routes(RUNNING));
  });

  it('while held on a line: moves answered or refused there, run changes let the thread go', () => {
    assert.deepEqual(routes(HELD), {
      lineStep: 'own',
      lineStack: 'own',
      setLineStepMode: 'own',
      pastHit: 'own',
      pastLogpointHits: 'own',
      setBreakpoints: 'setBreakpoints',
      hello: 'mainThreadHeld',
      snapshot: 'mainThreadHeld',
      taskDetail: 'taskDetail',
      variables: 'variables',
      evaluate: 'mainThreadHeld',
      samples: 'mainThreadHeld',
      continue: 'continue',
      pause: 'pause',
      stepTick: 'refuseLoopStep',
      stepTask: 'refuseLoopStep',
      stepOut: 'refuseLoopStep',
      seekTick: 'seekTick',
      launch: 'runChanging',
      openRecording: 'runChanging',
      stop: 'runChanging',
      shutdown: 'runChanging',
      setExceptionBreaks: 'mainThreadHeld',
    });
    // A hit the search's replay host shows does not take the queries from a held thread.
    assert.deepEqual(routes({ ...HELD, searchShowsLine: true }), routes(HELD));
  });

  it("while held with a past moment shown: the moment's queries are the stop's replay host's, the rest as held", () => {
    const shown = routes(HELD_PAST_SHOWN);
    const held = routes(HELD);
    assert.deepEqual(
      METHODS.filter((m) => shown[m] !== held[m]).map((m) => [m, shown[m]]),
      [
        ['snapshot', 'stopReplay'],
        ['taskDetail', 'stopReplay'],
        ['variables', 'stopReplay'],
        ['evaluate', 'stopReplay'],
      ],
    );
  });

  it("every line and past request is the worker's own, in every view", () => {
    const own = ALL_METHODS.filter((m) => m.startsWith('line') || m.startsWith('past'));
    assert.ok(own.length >= 8, 'the host has line and past methods');
    for (const view of [RUNNING, RUNNING_HIT_SHOWN, HELD, HELD_PAST_SHOWN])
      assert.deepEqual(
        own.filter((m) => routeOf(m, view) !== 'own'),
        [],
      );
  });

  it('only the queries that change nothing skip the warm-up, and are served at a line stop', () => {
    assert.deepEqual(
      ALL_METHODS.filter((m) => !waitsForWarmUp(m)),
      ['hello', 'snapshot', 'taskDetail', 'variables', 'graph', 'lints', 'samples', 'programLoops'],
    );
    assert.deepEqual(
      ALL_METHODS.filter((m) => atLineStop(m) === 'serve'),
      ALL_METHODS.filter((m) => !waitsForWarmUp(m)),
    );
    assert.deepEqual(Object.fromEntries(METHODS.map((m) => [m, atLineStop(m)])), {
      lineStep: 'wait',
      lineStack: 'wait',
      setLineStepMode: 'wait',
      pastHit: 'wait',
      pastLogpointHits: 'wait',
      setBreakpoints: 'wait',
      hello: 'serve',
      snapshot: 'serve',
      taskDetail: 'serve',
      variables: 'serve',
      evaluate: 'wait',
      samples: 'serve',
      continue: 'tick',
      pause: 'wait',
      stepTick: 'tick',
      stepTask: 'tick',
      stepOut: 'tick',
      seekTick: 'wait',
      launch: 'wait',
      openRecording: 'wait',
      stop: 'wait',
      shutdown: 'wait',
      setExceptionBreaks: 'wait',
    });
  });

  it("the views' moves leave a searched hit; no moment query does (the worker routes it after the drop)", () => {
    assert.deepEqual(
      METHODS.filter((m) => leavesSearchedHit(m)),
      [
        'continue',
        'pause',
        'stepTick',
        'stepTask',
        'stepOut',
        'seekTick',
        'launch',
        'openRecording',
        'stop',
        'shutdown',
      ],
    );
    assert.deepEqual(
      [...MOMENT_QUERIES].filter((m) => leavesSearchedHit(m)),
      [],
    );
  });

  it("a refusal's code: a protocol error's own, else a line request's is a bad request", () => {
    assert.deepEqual(
      [
        refusalCode('lineStep', new ProtocolError('no such method', 'unknownMethod')),
        refusalCode('snapshot', new ProtocolError('bad params')),
        refusalCode('lineVariables', new Error('gone')),
        refusalCode('pastHit', new Error('gone')),
        refusalCode('snapshot', 'thrown text'),
      ],
      ['unknownMethod', 'badRequest', 'badRequest', 'failed', 'failed'],
    );
  });
});
