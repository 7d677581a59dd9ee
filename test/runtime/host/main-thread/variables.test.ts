// VariableStore (runtime/host/main-thread/variables.ts) over the real generator reader: numeric handles for
// the inspector's, one number a value in a group; children read through them; handle groups kept for the last
// 64 taskDetail/evaluate requests (an older handle an error saying it expired), clear() releasing all; a
// local's real value (objects by handle, primitives from the preview); evaluate with bindings, `this` and a
// note, and its refusals (parse, throw).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError } from '../../../../protocol/rpc';
import { GeneratorReader, type LocalVariable } from '../../../../runtime/inspect/generator-reader';
import { previewValue } from '../../../../runtime/inspect/value-preview';
import { VariableStore } from '../../../../runtime/host/main-thread/variables';

/** `values` as a frame's locals, previewed in a new handle group of `store`. */
function localsIn(store: VariableStore, values: Record<string, unknown>): LocalVariable[] {
  const sink = store.newGroup();
  return Object.entries(values).map(([name, v]) => ({ name, scope: 'local', value: previewValue(v, sink) }));
}

function expired(handle: number): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof ProtocolError);
    assert.equal(
      e.message,
      `variables: handle ${handle} is unknown or expired (handles live for the last 64 taskDetail/evaluate requests)`,
    );
    return true;
  };
}

test('locals as variables: objects get handles in order, primitives none; children read through a handle', () => {
  const store = new VariableStore(new GeneratorReader());
  const point = { x: 1, label: 'p' };
  const locals = localsIn(store, { n: 3, s: 'hi', none: null, point, list: [point, 2] });
  assert.deepEqual(store.localsOf(locals), [
    { name: 'n', value: '3', type: 'number', handle: 0 },
    { name: 's', value: '"hi"', type: 'string', handle: 0 },
    { name: 'none', value: 'null', type: 'null', handle: 0 },
    { name: 'point', value: locals[3]!.value.text, type: 'Object', handle: 1 },
    { name: 'list', value: locals[4]!.value.text, type: 'Array', handle: 2 },
  ]);
  // The same inspector handle read again keeps its number.
  assert.equal(store.localsOf(locals)[3]!.handle, 1);
  assert.deepEqual(store.children(1), [
    { name: 'x', value: '1', type: 'number', handle: 0 },
    { name: 'label', value: '"p"', type: 'string', handle: 0 },
  ]);
  const elements = store.children(2);
  assert.deepEqual(
    elements.map((v) => [v.name, v.type]),
    [
      ['0', 'Object'],
      ['1', 'number'],
    ],
  );
  assert.equal(elements[0]!.handle, 3);
  assert.throws(() => store.children(99), expired(99));
});

test("a local's real value: the object itself through its handle, a primitive from its preview", () => {
  const store = new VariableStore(new GeneratorReader());
  const map = new Map([[1, 'one']]);
  const [m, n, big] = localsIn(store, { m: map, n: -0, big: 10n });
  assert.deepEqual(store.valueOfLocal(m!), { value: map, cut: false });
  assert.equal(store.valueOfLocal(m!).value, map);
  assert.ok(Object.is(store.valueOfLocal(n!).value, -0));
  assert.deepEqual(store.valueOfLocal(big!), { value: 10n, cut: false });
});

test('handle groups: the last 64 stay valid, an older one expires; clear() releases every one', () => {
  const store = new VariableStore(new GeneratorReader());
  const first = store.localsOf(localsIn(store, { o: { a: 1 } }))[0]!.handle;
  const handles = [first];
  for (let i = 1; i < 64; i++) handles.push(store.localsOf(localsIn(store, { o: { a: i } }))[0]!.handle);
  assert.deepEqual(store.children(first), [{ name: 'a', value: '1', type: 'number', handle: 0 }]);
  // The 65th group: the first one goes.
  const latest = store.localsOf(localsIn(store, { o: { a: 64 } }))[0]!.handle;
  assert.throws(() => store.children(first), expired(first));
  assert.deepEqual(store.children(handles[1]!), [{ name: 'a', value: '1', type: 'number', handle: 0 }]);
  assert.deepEqual(store.children(latest), [{ name: 'a', value: '64', type: 'number', handle: 0 }]);
  store.clear();
  assert.throws(() => store.children(latest), expired(latest));
});

test('evaluate: locals as variables and `this`, a note after the value, the result an expandable variable', () => {
  const store = new VariableStore(new GeneratorReader());
  const self = { base: 10 };
  assert.deepEqual(
    store.evaluate(
      'this.base + n',
      [
        ['n', 5],
        ['s', 'x'],
      ],
      self,
      null,
    ),
    { value: '15', type: 'number', handle: 0 },
  );
  assert.deepEqual(store.evaluate('s.repeat(2)', [['s', 'ab']], undefined, 'as it was in tick 4'), {
    value: '"abab"  (as it was in tick 4)',
    type: 'string',
    handle: 0,
  });
  const r = store.evaluate('({ total: n * 2 })', [['n', 4]], undefined, null);
  assert.equal(r.type, 'Object');
  assert.deepEqual(store.children(r.handle), [{ name: 'total', value: '8', type: 'number', handle: 0 }]);
});

test('evaluate refuses an expression that does not parse, and says what one threw', () => {
  const store = new VariableStore(new GeneratorReader());
  assert.throws(
    () => store.evaluate('n +', [['n', 1]], undefined, null),
    (e: unknown) =>
      e instanceof ProtocolError &&
      e.code !== 'evaluationFailed' &&
      /^evaluate: the expression does not parse: /.test(e.message),
  );
  assert.throws(
    () => store.evaluate('missing.x', [], undefined, null),
    (e: unknown) =>
      e instanceof ProtocolError &&
      e.code === 'evaluationFailed' &&
      e.message === 'evaluate: the expression threw ReferenceError: missing is not defined',
  );
});
