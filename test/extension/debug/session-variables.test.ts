// The session's variables room (extension/debug/session-variables.ts) on the fake host, at the room's level:
// SessionCore and StopCache bound to a paused FakeRun, DAP responses caught by the sink and compared as bodies.
// A line stop's scopes (its frame's, its task, its program loops), variables with evaluate names and the
// items that can be watched, a coroutine frame's scopes and locals, evaluate in the real frame or in a
// suspended coroutine's locals (the host request each sends), paging, references dropped at a new stop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { LineFrameInfo, ProgramLoopState, SourcePosition } from '../../../protocol/host-protocol';
import { ERR_EVALUATE, SessionCore, type DapSink } from '../../../extension/debug/session-core';
import { SessionVariables } from '../../../extension/debug/session-variables';
import { StopCache } from '../../../extension/debug/stop-cache';
import type { PositionStop } from '../../../extension/debug/debug-position';
import { FakeRun, FakeRuns } from './fake-debug-host';

const FILE = '/work/prog.ts';
const LINE: SourcePosition = { file: FILE, line: 12, column: 5 };

/** A response as the room answered it: its body, or its error. */
type Answer = { success: true; body: unknown } | { success: false; error: { id: number; format: string } };

/** The room on a paused fake run; `ask` sends a request and waits for its response. */
function setUp() {
  const pending = new Map<number, (a: Answer) => void>();
  const sink: DapSink = {
    sendEvent: () => undefined,
    sendResponse: (r) => pending.get(r.request_seq)?.({ success: true, body: r.body }),
    sendErrorResponse: (r, e) => {
      const err = e as { id: number; format: string };
      pending.get(r.request_seq)?.({ success: false, error: { id: err.id, format: err.format } });
    },
    convertDebuggerLineToClient: (line) => line,
    convertDebuggerColumnToClient: (column) => column,
    convertDebuggerPathToClient: (path) => path,
    convertClientPathToDebugger: (path) => path,
    convertClientLineToDebugger: (line) => line,
  };
  const run = new FakeRun('paused');
  const core = new SessionCore(sink, { hostScript: 'none', runs: new FakeRuns(run) });
  core.host = run.host;
  core.run = run;
  const cache = new StopCache(core);
  const room = new SessionVariables(core, cache);
  let seq = 1;
  function ask(command: 'scopes', args: DebugProtocol.ScopesArguments): Promise<Answer>;
  function ask(command: 'variables', args: DebugProtocol.VariablesArguments): Promise<Answer>;
  function ask(command: 'evaluate', args: DebugProtocol.EvaluateArguments): Promise<Answer>;
  function ask(command: string, args: unknown): Promise<Answer> {
    const request_seq = seq++;
    const response = { seq: 0, type: 'response', request_seq, command, success: true } as DebugProtocol.Response;
    const answered = new Promise<Answer>((resolve) => pending.set(request_seq, resolve));
    if (command === 'scopes')
      room.scopesRequest(response as DebugProtocol.ScopesResponse, args as DebugProtocol.ScopesArguments);
    else if (command === 'variables')
      room.variablesRequest(response as DebugProtocol.VariablesResponse, args as DebugProtocol.VariablesArguments);
    else room.evaluateRequest(response as DebugProtocol.EvaluateResponse, args as DebugProtocol.EvaluateArguments);
    return answered;
  }
  const asked = (): string[] => run.endpoint.requests.map((r) => `${r.method} ${JSON.stringify(r.params)}`);
  return { run, core, cache, room, ask, asked };
}

function stopAt(line: SourcePosition | undefined): PositionStop {
  return {
    ...(line !== undefined ? { line } : {}),
    reason: 'breakpoint',
    tick: 3,
    taskId: 7,
    threadId: 7,
    description: 'Paused on breakpoint',
  };
}

const FRAMES: LineFrameInfo[] = [
  {
    index: 0,
    name: 'inner',
    position: LINE,
    generated: null,
    scopes: [
      { name: 'Locals', handle: 1 },
      { name: 'Closure (outer)', handle: 2 },
      { name: 'Block', handle: 0 },
    ],
  },
  { index: 1, name: 'outer', position: null, generated: null, scopes: [{ name: 'Locals', handle: 3 }] },
];

const LOOP: ProgramLoopState = {
  kind: 'selector',
  title: 'selector loop',
  running: 'on_readable',
  ready: [],
  sockets: [],
  timers: [],
  workers: [],
  notes: [],
};

/** The room at a line stop of task 7 in `inner`: frame id 100 is its frame 0, 101 its frame 1. */
function atLineStop() {
  const s = setUp();
  s.core.moveTo({ kind: 'liveLine', stop: stopAt(LINE) });
  s.cache.frameRefs.set(100, { kind: 'line', frameIndex: 0, taskId: 7 });
  s.cache.frameRefs.set(101, { kind: 'line', frameIndex: 1, taskId: 7 });
  s.run.endpoint.serve('lineStack', () => ({ taskId: 7, frames: FRAMES }));
  s.run.endpoint.serve('programLoops', () => ({ loops: [LOOP] }));
  s.run.endpoint.serve('lineVariables', (p) => {
    switch (p.handle) {
      case 1:
        return {
          variables: [
            { name: 'n', value: '3', type: 'number', handle: 0 },
            { name: 'point', value: 'Object', type: 'Object', handle: 5 },
          ],
        };
      case 5:
        return {
          variables: [
            { name: 'x', value: '1', type: 'number', handle: 0 },
            { name: '0', value: '"a"', type: 'string', handle: 0 },
            { name: 'a-b', value: '2', type: 'number', handle: 0 },
            { name: '[[Entries]]', value: 'Array(1)', type: 'array', handle: 6 },
          ],
        };
      default:
        throw new Error(`handle ${p.handle} is not valid at this stop`);
    }
  });
  return s;
}

function bodyOf(a: Answer): unknown {
  assert.ok(a.success, JSON.stringify(a));
  return a.body;
}

describe('session variables', () => {
  it("a line stop's scopes: the frame's (the first one the Locals), its task, its program loops", async () => {
    const { ask, asked } = atLineStop();
    assert.deepEqual(bodyOf(await ask('scopes', { frameId: 100 })), {
      scopes: [
        { name: 'Locals', variablesReference: 1, expensive: false, presentationHint: 'locals' },
        { name: 'Closure (outer)', variablesReference: 2, expensive: true },
        { name: 'Block', variablesReference: 0, expensive: true },
        { name: 'Task', variablesReference: 3, expensive: false },
        { name: 'Program loop: selector loop', variablesReference: 4, expensive: false },
      ],
    });
    assert.deepEqual(asked(), ['lineStack {}', 'programLoops {}']);
  });

  it('line variables carry evaluate names; the fields of a local can be watched, named by their path', async () => {
    const { ask, room, asked } = atLineStop();
    await ask('scopes', { frameId: 100 });
    const locals = bodyOf(await ask('variables', { variablesReference: 1 }));
    assert.deepEqual(locals, {
      variables: [
        { name: 'n', value: '3', type: 'number', variablesReference: 0, evaluateName: 'n' },
        { name: 'point', value: 'Object', type: 'Object', variablesReference: 5, evaluateName: 'point' },
      ],
    });
    const fields = bodyOf(await ask('variables', { variablesReference: 5 })) as { variables: DebugProtocol.Variable[] };
    assert.deepEqual(
      fields.variables.map((v) => [v.name, v.evaluateName ?? null, v.variablesReference]),
      [
        ['x', 'point.x', 0],
        ['0', 'point[0]', 0],
        ['a-b', 'point["a-b"]', 0],
        ['[[Entries]]', null, 6],
      ],
    );
    assert.deepEqual(asked().slice(-2), ['lineVariables {"handle":1}', 'lineVariables {"handle":5}']);
    assert.deepEqual(await room.watchedValueOf(5, 'x'), { expression: 'point.x', functionName: 'inner', depth: 1 });
    assert.deepEqual(await room.watchedValueOf(1, 'n'), { expression: 'n', functionName: 'inner', depth: 1 });
    assert.equal(
      await room.watchedValueOf(5, '[[Entries]]'),
      '"[[Entries]]" is not a local or a field the line stop shows (the Locals and closure scopes of a frame, and what they hold)',
    );
  });

  it('evaluate at a line stop: in the frame asked (frame 0 without one), its result expandable', async () => {
    const { ask, run, asked } = atLineStop();
    run.endpoint.serve('lineEvaluate', (p) => ({
      value: `${p.expression}!`,
      type: 'string',
      handle: (p.frameIndex ?? 0) + 8,
    }));
    await ask('scopes', { frameId: 100 });
    assert.deepEqual(bodyOf(await ask('evaluate', { expression: 'a', frameId: 101 })), {
      result: 'a!',
      type: 'string',
      variablesReference: 5,
    });
    assert.deepEqual(bodyOf(await ask('evaluate', { expression: 'b' })), {
      result: 'b!',
      type: 'string',
      variablesReference: 6,
    });
    assert.deepEqual(asked().slice(-2), [
      'lineEvaluate {"expression":"a","frameIndex":1}',
      'lineEvaluate {"expression":"b","frameIndex":0}',
    ]);
  });

  it('between ticks: a coroutine frame has Locals and Task; the loop, the creator, a loop trace theirs', async () => {
    const { ask, core, cache } = setUp();
    core.moveTo({ kind: 'paused', stop: stopAt(undefined) });
    cache.frameRefs.set(1, { kind: 'coroutine', taskId: 7, frameIndex: 2 });
    cache.frameRefs.set(2, { kind: 'loop' });
    cache.frameRefs.set(3, { kind: 'creation', taskId: 7, creatorId: 1 });
    cache.frameRefs.set(4, { kind: 'trace', taskId: null, index: 0 });
    cache.frameRefs.set(5, { kind: 'await', taskId: 7 });
    const names = async (frameId: number): Promise<unknown> =>
      (bodyOf(await ask('scopes', { frameId })) as DebugProtocol.ScopesResponse['body']).scopes.map((s) => [
        s.name,
        s.variablesReference,
      ]);
    assert.deepEqual(await names(1), [
      ['Locals', 1],
      ['Task', 2],
    ]);
    assert.deepEqual(await names(2), [['Event loop', 3]]);
    assert.deepEqual(await names(3), [
      ['Task', 4],
      ['Creator task', 5],
    ]);
    assert.deepEqual(await names(4), [['Event loop', 6]]);
    assert.deepEqual(await names(5), [['Task', 7]]);
    assert.deepEqual(await names(99), []);
  });

  it("a coroutine frame's locals (the task's detail with locals), paged; a host value expands through variables", async () => {
    const { ask, core, cache, run, asked } = setUp();
    core.moveTo({ kind: 'paused', stop: stopAt(undefined) });
    cache.frameRefs.set(1, { kind: 'coroutine', taskId: 7, frameIndex: 1 });
    run.endpoint.serve('taskDetail', () => ({
      task: {
        id: 7,
        name: 'worker',
        state: 'suspended',
        steps: 2,
        busyMs: 0,
        sinceResumedMs: 0,
        createdBy: null,
        awaiting: null,
        awaitedBy: [],
        frames: ['main', 'fetch'],
      },
      frames: [
        { index: 0, name: 'main', position: null, generated: null, locals: [] },
        {
          index: 1,
          name: 'fetch',
          position: null,
          generated: null,
          locals: [
            { name: 'url', value: '"/a"', type: 'string', handle: 0 },
            { name: 'response', value: 'Response', type: 'Response', handle: 9 },
            { name: 'tries', value: '2', type: 'number', handle: 0 },
          ],
        },
      ],
      awaitChain: [],
      createdAt: null,
      traceback: null,
    }));
    run.endpoint.serve('variables', (p) => ({
      variables: [{ name: 'status', value: String(p.handle * 10 + 200 - 90), type: 'number', handle: 0 }],
    }));
    await ask('scopes', { frameId: 1 });
    assert.deepEqual(bodyOf(await ask('variables', { variablesReference: 1, start: 1, count: 1 })), {
      variables: [
        { name: 'response', value: 'Response', type: 'Response', variablesReference: 3, evaluateName: 'response' },
      ],
    });
    assert.deepEqual(bodyOf(await ask('variables', { variablesReference: 3 })), {
      variables: [{ name: 'status', value: '200', type: 'number', variablesReference: 0 }],
    });
    assert.deepEqual(asked(), ['taskDetail {"taskId":7,"locals":true}', 'variables {"handle":9}']);
  });

  it("evaluate between ticks: in a coroutine frame's locals, or the loop's names; a failure is the request's error", async () => {
    const { ask, core, cache, run, asked, room } = setUp();
    core.moveTo({ kind: 'paused', stop: stopAt(undefined) });
    cache.frameRefs.set(1, { kind: 'coroutine', taskId: 7, frameIndex: 1 });
    run.endpoint.serve('evaluate', (p) => {
      if (p.expression === 'boom') throw new Error('evaluate: the expression threw Error: boom');
      return { value: '42', type: 'number', handle: 0 };
    });
    assert.deepEqual(bodyOf(await ask('evaluate', { expression: 'x', frameId: 1 })), {
      result: '42',
      type: 'number',
      variablesReference: 0,
    });
    await ask('evaluate', { expression: 'tasks' });
    assert.deepEqual(await ask('evaluate', { expression: 'boom' }), {
      success: false,
      error: { id: ERR_EVALUATE, format: 'evaluate: the expression threw Error: boom' },
    });
    assert.deepEqual(asked(), [
      'evaluate {"expression":"x","taskId":7,"frameIndex":1}',
      'evaluate {"expression":"tasks"}',
      'evaluate {"expression":"boom"}',
    ]);
    assert.equal(
      await room.watchedValueOf(1, 'x'),
      "only a value shown at a stop on a line (a breakpoint, a step, a past line) can be followed: between ticks the locals are a suspended frame's copy",
    );
  });

  it('a new stop drops the references and the watchable items', async () => {
    const { ask, core, room, asked } = atLineStop();
    await ask('scopes', { frameId: 100 });
    await ask('variables', { variablesReference: 1 });
    const before = asked().length;
    core.invalidate();
    assert.deepEqual(bodyOf(await ask('variables', { variablesReference: 1 })), { variables: [] });
    assert.equal(asked().length, before, 'nothing asked for a dropped reference');
    assert.equal(typeof (await room.watchedValueOf(1, 'n')), 'string');
  });
});
