// FrameDeadZones (runtime/host/worker/frame-dead-zones.ts) over a fake V8 (the script's source, the scopes'
// properties, reading a name in the frame): a Local or Block binding judged from the function's text (a `let`
// before its declaration, a loop body's `const` before its declaration on the next turn though V8 reads the
// last turn's value, a `case` a jump skipped 'unknown'); a Closure binding asked of V8 (its ReferenceError
// says dead zone), a name an inner scope shadows never read; `var`-like scopes none; a source asked once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CdpCallFrame, CdpLocation, CdpScope } from '../../../../runtime/host/worker/cdp-shapes';
import { FrameDeadZones } from '../../../../runtime/host/worker/frame-dead-zones';

const SCRIPT = '7';
const SOURCE = `function walk(items) {
  let total = 0;
  for (const item of items) {
    total += item;
    const seen = item;
  }
  let after = total;
  return after;
}
function pick(kind) {
  switch (kind) {
    case 1:
      let inCase = 1;
    case 2:
      return inCase;
  }
}
`;

/** Where the `n`-th `needle` of the source begins (`shift`: that many characters after it). */
function loc(needle: string, shift = 0, n = 1): CdpLocation {
  let i = -1;
  for (let k = 0; k < n; k++) i = SOURCE.indexOf(needle, i + 1);
  assert.ok(i >= 0, needle);
  const offset = i + shift;
  const before = SOURCE.slice(0, offset).split('\n');
  return { scriptId: SCRIPT, lineNumber: before.length - 1, columnNumber: before.at(-1)!.length };
}

const scope = (type: string, objectId: string, start?: CdpLocation, end?: CdpLocation): CdpScope => ({
  type,
  object: { type: 'object', objectId },
  ...(start !== undefined ? { startLocation: start } : {}),
  ...(end !== undefined ? { endLocation: end } : {}),
});

const WALK_LOCAL = scope('local', 'walk-local', loc('(items)'), loc('\n}\nfunction pick', 2));
const BODY = scope('block', 'walk-body', loc('{\n    total +='), loc('item;\n  }', 8));
const CLOSURE = scope('closure', 'module-closure');

/** `walk` stopped at `at`, its scopes innermost first. */
function walkFrame(at: CdpLocation, scopes: CdpScope[]): CdpCallFrame {
  return { callFrameId: 'walk-frame', functionName: 'walk', location: at, scopeChain: scopes };
}

/** V8 as FrameDeadZones asks it: the source (or none), scopes' names, a name read in the frame. */
function fakeV8(options: { source?: boolean; names?: Record<string, string[]>; deadInFrame?: string[] } = {}) {
  const calls: string[] = [];
  const post = async <T>(method: string, params: object): Promise<T> => {
    const p = params as Record<string, unknown>;
    calls.push(`${method} ${String(p.scriptId ?? p.objectId ?? p.expression)}`);
    switch (method) {
      case 'Debugger.getScriptSource':
        if (options.source === false) throw new Error('no source');
        return { scriptSource: SOURCE } as T;
      case 'Runtime.getProperties':
        return { result: (options.names?.[String(p.objectId)] ?? []).map((name) => ({ name })) } as T;
      case 'Debugger.evaluateOnCallFrame': {
        const name = String(p.expression);
        if (options.deadInFrame?.includes(name))
          return {
            exceptionDetails: {
              text: 'Uncaught',
              exception: {
                type: 'object',
                className: 'ReferenceError',
                description: `ReferenceError: ${name} is not defined`,
              },
            },
          } as T;
        return { result: { type: 'undefined' } } as T;
      }
      default:
        throw new Error(`unexpected ${method}`);
    }
  };
  return { post, calls };
}

function states(m: Map<string, string>): Record<string, string> {
  return Object.fromEntries(m);
}

test('a Local binding before its declaration is uninitialized; one declared before is not; the source asked once', async () => {
  const v8 = fakeV8();
  const zones = new FrameDeadZones(v8.post);
  const atLoop = walkFrame(loc('for (const item'), [WALK_LOCAL, CLOSURE]);
  assert.deepEqual(states(await zones.statesOf(atLoop, WALK_LOCAL, ['after'], ['total', 'items'])), {
    after: 'uninitialized',
  });
  const atReturn = walkFrame(loc('return after'), [WALK_LOCAL, CLOSURE]);
  assert.deepEqual(states(await zones.statesOf(atReturn, WALK_LOCAL, [], ['after', 'total'])), {});
  assert.deepEqual(v8.calls, [`Debugger.getScriptSource ${SCRIPT}`]);
});

test("a loop body's const on the next turn, before its declaration: uninitialized though V8 reads last turn's value", async () => {
  const zones = new FrameDeadZones(fakeV8().post);
  const frame = walkFrame(loc('total += item'), [BODY, WALK_LOCAL, CLOSURE]);
  assert.deepEqual(states(await zones.statesOf(frame, BODY, [], ['seen', 'item'])), { seen: 'uninitialized' });
  const later = walkFrame(loc('\n  }\n  let after', 1), [BODY, WALK_LOCAL, CLOSURE]);
  assert.deepEqual(states(await zones.statesOf(later, BODY, [], ['seen', 'item'])), {});
});

test("a let of a case the jump skipped: V8 reads its slot undefined either way, so it is 'unknown'", async () => {
  const v8 = fakeV8();
  const zones = new FrameDeadZones(v8.post);
  const local = scope('local', 'pick-local', loc('(kind)'), loc('\n}\n', 2, 2));
  const cases = scope('block', 'pick-switch', loc('{\n    case 1'), loc('inCase;\n  }', 10));
  const frame: CdpCallFrame = {
    callFrameId: 'pick-frame',
    functionName: 'pick',
    location: loc('return inCase'),
    scopeChain: [cases, local],
  };
  assert.deepEqual(states(await zones.statesOf(frame, cases, ['inCase'])), { inCase: 'unknown' });
  assert.ok(v8.calls.includes('Debugger.evaluateOnCallFrame inCase'), v8.calls.join(', '));
});

test('a Closure binding is asked of V8: its ReferenceError is the dead zone; a name shadowed inside is not read', async () => {
  const v8 = fakeV8({ names: { 'walk-local': ['total', 'items', 'after'] }, deadInFrame: ['config', 'after'] });
  const zones = new FrameDeadZones(v8.post);
  const frame = walkFrame(loc('return after'), [WALK_LOCAL, CLOSURE]);
  assert.deepEqual(states(await zones.statesOf(frame, CLOSURE, ['config', 'plain', 'after'])), {
    config: 'uninitialized',
  });
  assert.deepEqual(v8.calls, [
    'Runtime.getProperties walk-local',
    'Debugger.evaluateOnCallFrame config',
    'Debugger.evaluateOnCallFrame plain',
  ]);
});

test('scopes without a dead zone (global, catch, with) ask nothing; no source: a Local binding is asked of V8', async () => {
  const v8 = fakeV8({ source: false, deadInFrame: ['after'] });
  const zones = new FrameDeadZones(v8.post);
  const frame = walkFrame(loc('for (const item'), [WALK_LOCAL]);
  for (const type of ['global', 'catch', 'with'])
    assert.deepEqual(states(await zones.statesOf(frame, scope(type, type), ['x'])), {});
  assert.deepEqual(v8.calls, []);
  assert.deepEqual(states(await zones.statesOf(frame, WALK_LOCAL, ['after', 'total'])), { after: 'uninitialized' });
});
