// StopView (runtime/host/worker/stop-view.ts) of a stop over a fake V8 (FakeInspector: the objects, script
// sources and evaluations of one stop, shaped as V8 answered them for the same program paused at `debugger`)
// and real LoadedScripts holding plain .js files of a temp folder: the frames shown (the machinery left out, a
// task's frames ending at its `_step`), scopes by name, variables with handles valid for one stop, a `let` in
// its dead zone `<uninitialized>` (from the function's text, or asked of V8 for a Closure), value texts,
// evaluate in a frame, and the refusals when not stopped or for a handle of another stop.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LineFrameInfo } from '../../../../protocol/host-protocol';
import type {
  CdpCallFrame,
  CdpPaused,
  CdpPropertyDescriptor,
  CdpRemoteObject,
} from '../../../../runtime/host/worker/cdp-shapes';
import { LoadedScripts } from '../../../../runtime/host/worker/loaded-scripts';
import { StopView } from '../../../../runtime/host/worker/stop-view';

/** The program stopped at `debugger` (line 5) in `inner`, `later` not declared yet. */
const PROGRAM = `function outer(n) {
  const label = 'outer';
  function inner(a) {
    const early = a + n;
    debugger;
    let later = early * 2;
    return later + label.length;
  }
  return inner;
}
module.exports = { outer };
`;
const PROGRAM_ID = '109';
const BRIDGE_ID = '110';

let dir = '';
let program = '';
let scripts = new LoadedScripts();

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'coroscope-stop-view-'));
  program = join(dir, 'program.js');
  writeFileSync(program, PROGRAM);
  // A runtime host's own script: machinery, never shown.
  mkdirSync(join(dir, 'runtime', 'host'), { recursive: true });
  const bridge = join(dir, 'runtime', 'host', 'bridge.js');
  writeFileSync(bridge, 'exports.live = () => true;\n');
  scripts = new LoadedScripts();
  scripts.add({ scriptId: PROGRAM_ID, url: pathToFileURL(program).href });
  scripts.add({ scriptId: BRIDGE_ID, url: pathToFileURL(bridge).href });
});
after(() => rmSync(dir, { recursive: true, force: true }));

const at = (scriptId: string, lineNumber: number, columnNumber: number) => ({ scriptId, lineNumber, columnNumber });
const object = (objectId: string): CdpRemoteObject => ({ type: 'object', objectId });
const number = (value: number): CdpRemoteObject => ({ type: 'number', value, description: String(value) });

const INNER: CdpCallFrame = {
  callFrameId: 'frame-inner',
  functionName: 'inner',
  location: at(PROGRAM_ID, 4, 4),
  scopeChain: [
    {
      type: 'local',
      name: 'inner',
      object: object('scope-local'),
      startLocation: at(PROGRAM_ID, 2, 16),
      endLocation: at(PROGRAM_ID, 7, 3),
    },
    {
      type: 'closure',
      name: 'outer',
      object: object('scope-closure'),
      startLocation: at(PROGRAM_ID, 0, 14),
      endLocation: at(PROGRAM_ID, 9, 1),
    },
    { type: 'global', object: object('scope-global') },
  ],
};
const ANONYMOUS: CdpCallFrame = {
  callFrameId: 'frame-anonymous',
  functionName: '',
  location: at(PROGRAM_ID, 10, 0),
  scopeChain: [
    { type: 'block', object: object('scope-block') },
    { type: 'global', object: object('scope-global') },
  ],
};
const frameIn = (callFrameId: string, functionName: string, scriptId: string): CdpCallFrame => ({
  callFrameId,
  functionName,
  location: at(scriptId, 0, 0),
  scopeChain: [],
});
/** Innermost first: the bridge (machinery), inner, a script not kept, an anonymous frame, the task's _step, beyond. */
const STOP: CdpPaused = {
  reason: 'other',
  callFrames: [
    frameIn('frame-bridge', 'live', BRIDGE_ID),
    INNER,
    frameIn('frame-internal', 'processTicks', '1'),
    ANONYMOUS,
    frameIn('frame-step', '_step', BRIDGE_ID),
    frameIn('frame-beyond', 'runner', PROGRAM_ID),
  ],
};

/** V8's answers at the stop: each object's properties, the scripts' sources, evaluations in a frame. */
class FakeInspector {
  readonly calls: Array<[string, Record<string, unknown>]> = [];
  readonly objects = new Map<string, CdpPropertyDescriptor[]>([
    [
      'scope-local',
      [
        { name: 'a', value: number(4) },
        { name: 'early', value: number(7) },
        { name: 'later', value: { type: 'undefined' } },
      ],
    ],
    [
      'scope-closure',
      [
        { name: 'n', value: number(3) },
        { name: 'label', value: { type: 'string', value: 'outer' } },
        // A binding of the enclosing function V8 holds no value for (its dead zone, in a context).
        { name: 'pending', value: { type: 'undefined' } },
        { name: 'unset', value: { type: 'undefined' } },
      ],
    ],
    ['scope-block', [{ name: 'k', value: number(1) }]],
    [
      'object-1',
      [
        { name: 'long', value: { type: 'string', value: 'x'.repeat(300) } },
        { name: 'big', value: { type: 'bigint', unserializableValue: '10n', description: '10n' } },
        {
          name: 'list',
          value: {
            type: 'object',
            subtype: 'array',
            className: 'Array',
            description: 'Array(2)',
            objectId: 'object-2',
          },
        },
        { name: 'map', value: { type: 'object', className: 'Map', description: 'Map(0)', objectId: 'object-3' } },
        {
          name: 'f',
          value: { type: 'function', className: 'Function', description: 'function f() {}', objectId: 'object-4' },
        },
        { name: 'none', value: { type: 'object', subtype: 'null', value: null } },
        { name: 'u', value: { type: 'undefined' } },
        { name: 'viaGetter', get: { type: 'function', objectId: 'object-5' } },
      ],
    ],
  ]);

  readonly post = async <T>(method: string, params: object): Promise<T> => {
    const p = params as Record<string, unknown>;
    this.calls.push([method, p]);
    switch (method) {
      case 'Runtime.getProperties': {
        const result = this.objects.get(String(p.objectId));
        if (result === undefined) throw new Error(`no object ${String(p.objectId)}`);
        return { result } as T;
      }
      case 'Debugger.getScriptSource':
        if (p.scriptId === PROGRAM_ID) return { scriptSource: PROGRAM } as T;
        throw new Error('no source');
      case 'Debugger.evaluateOnCallFrame':
        return this.evaluate(String(p.callFrameId), String(p.expression)) as T;
      default:
        throw new Error(`unexpected ${method}`);
    }
  };

  private evaluate(callFrameId: string, expression: string): unknown {
    if (expression === 'pending')
      return {
        result: { type: 'undefined' },
        exceptionDetails: {
          text: 'Uncaught',
          exception: {
            type: 'object',
            className: 'ReferenceError',
            description: 'ReferenceError: pending is not defined',
          },
        },
      };
    if (expression === 'unset') return { result: { type: 'undefined' } };
    if (expression === 'boom')
      return {
        result: { type: 'object' },
        exceptionDetails: { text: 'Uncaught', exception: { type: 'object', description: 'Error: boom\n    at eval' } },
      };
    if (expression === 'thing' && callFrameId === 'frame-anonymous')
      return { result: { type: 'object', className: 'Object', description: 'Object', objectId: 'object-1' } };
    return { result: { type: 'number', value: expression.length, description: String(expression.length) } };
  }
}

function viewOf(stopped: { paused: CdpPaused; taskId: number | null } | null = { paused: STOP, taskId: 12 }): {
  view: StopView;
  v8: FakeInspector;
  stop: { now: { paused: CdpPaused; taskId: number | null } | null };
} {
  const v8 = new FakeInspector();
  const stop = { now: stopped };
  return { view: new StopView(v8.post, scripts, () => stop.now), v8, stop };
}

test("the stack: the user's frames innermost first, the machinery left out, a task's frames ending at its _step", () => {
  const { view } = viewOf();
  const position = (line: number, column: number) => ({ file: program, line, column });
  assert.deepEqual(view.stack(), {
    taskId: 12,
    frames: [
      {
        index: 0,
        name: 'inner',
        position: position(5, 5),
        generated: position(5, 5),
        scopes: [
          { name: 'Locals', handle: 1 },
          { name: 'Closure (outer)', handle: 2 },
        ],
      },
      {
        index: 1,
        name: '(anonymous)',
        position: position(11, 1),
        generated: position(11, 1),
        scopes: [{ name: 'Block', handle: 3 }],
      },
    ] satisfies LineFrameInfo[],
  });
});

test("a scope's variables: a let before its declaration is <uninitialized>, as is a Closure binding V8 holds no value for", async () => {
  const { view, v8 } = viewOf();
  const [inner] = view.stack().frames;
  const [locals, closure] = inner!.scopes;
  assert.deepEqual(await view.variables(locals!.handle), [
    { name: 'a', value: '4', type: 'number', handle: 0 },
    { name: 'early', value: '7', type: 'number', handle: 0 },
    { name: 'later', value: '<uninitialized>', type: 'uninitialized', handle: 0 },
  ]);
  assert.deepEqual(await view.variables(closure!.handle), [
    { name: 'n', value: '3', type: 'number', handle: 0 },
    { name: 'label', value: '"outer"', type: 'string', handle: 0 },
    { name: 'pending', value: '<uninitialized>', type: 'uninitialized', handle: 0 },
    { name: 'unset', value: 'undefined', type: 'undefined', handle: 0 },
  ]);
  // The script's source was asked once; the Closure's undefined names were read in the frame, each once.
  assert.deepEqual(
    v8.calls.filter(([m]) => m !== 'Runtime.getProperties').map(([m, p]) => [m, p.scriptId ?? p.expression]),
    [
      ['Debugger.getScriptSource', PROGRAM_ID],
      ['Debugger.evaluateOnCallFrame', 'pending'],
      ['Debugger.evaluateOnCallFrame', 'unset'],
    ],
  );
});

test("an object's properties: value texts cut at 200, handles for objects (not functions), getters left out", async () => {
  const { view } = viewOf();
  view.stack();
  const thing = await view.evaluate('thing', 1);
  assert.deepEqual(thing, { value: 'Object', type: 'Object', handle: 4 });
  assert.deepEqual(await view.variables(thing.handle), [
    { name: 'long', value: `"${'x'.repeat(199)}…"`, type: 'string', handle: 0 },
    { name: 'big', value: '10n', type: 'bigint', handle: 0 },
    { name: 'list', value: 'Array(2)', type: 'array', handle: 5 },
    { name: 'map', value: 'Map(0)', type: 'Map', handle: 6 },
    { name: 'f', value: 'function f() {}', type: 'Function', handle: 0 },
    { name: 'none', value: 'null', type: 'null', handle: 0 },
    { name: 'u', value: 'undefined', type: 'undefined', handle: 0 },
  ]);
});

test('evaluate: in the frame asked (counted as the stack shows them), its exception thrown as an Error', async () => {
  const { view, v8 } = viewOf();
  assert.deepEqual(await view.evaluate('a + 1', 0), { value: '5', type: 'number', handle: 0 });
  assert.deepEqual(v8.calls.at(-1), [
    'Debugger.evaluateOnCallFrame',
    { callFrameId: 'frame-inner', expression: 'a + 1', silent: true },
  ]);
  await assert.rejects(view.evaluate('boom', 0), { message: 'Error: boom\n    at eval' });
  await assert.rejects(view.evaluate('a', 9), { message: 'lineEvaluate: no frame 9 (0..2)' });
});

test('the locals the line replay compares: names and value texts, dead zone judged, no handles made', async () => {
  const { view } = viewOf();
  assert.deepEqual(await view.localsOf(INNER), [
    { name: 'a', value: '4' },
    { name: 'early', value: '7' },
    { name: 'later', value: '<uninitialized>' },
  ]);
  assert.deepEqual(await view.localsOf(ANONYMOUS), []);
  // No handle was used up: the stack's first scope is still handle 1.
  assert.equal(view.stack().frames[0]!.scopes[0]!.handle, 1);
});

test('handles last one stop; nothing is read when not stopped', async () => {
  const { view, stop } = viewOf();
  const handle = view.stack().frames[0]!.scopes[0]!.handle;
  view.forget();
  await assert.rejects(view.variables(handle), {
    message: `lineVariables: handle ${handle} is not valid at this stop`,
  });
  stop.now = null;
  assert.throws(() => view.stack(), { message: 'lineStack: the program is not stopped on a line' });
  await assert.rejects(view.variables(1), { message: 'lineVariables: the program is not stopped on a line' });
  await assert.rejects(view.evaluate('a', 0), { message: 'lineEvaluate: the program is not stopped on a line' });
});
