// Tests of the process's own inspector session used synchronously (runtime/inspect/inspector-session.ts),
// on this process's real inspector: an object's id reads its properties, and is released with its group
// (a read after fails as InspectorError); the global slot is empty (and hidden) between calls; many
// objects' remote objects come in order with their class (a generator object's is its function's name),
// one evaluate for one; values come back through valuesOf; a function that throws is an InspectorError;
// a script's URL and source map URL are learned once, an unknown script scanned for once.

import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { InspectorError, InspectorSession, inspectorSession } from '../../../runtime/inspect/inspector-session';

const SLOT = '__coroscopeInspectorSlot';

function* countTo(n: number): Generator<number> {
  for (let i = 0; i < n; i++) yield i;
}

/** The script of a function, as [[FunctionLocation]] says it. */
function scriptIdOf(session: InspectorSession, fn: object): string {
  return session.withObjectGroup((group) => {
    const props = session.getProperties({ objectId: session.objectIdOf(fn, group), ownProperties: true });
    const at = props.internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value as
      | { scriptId: string }
      | undefined;
    assert.ok(at !== undefined);
    return at.scriptId;
  });
}

describe('objects by id', () => {
  test("an object's id reads its properties; released with its group, then unknown", () => {
    const s = inspectorSession();
    let id = '';
    const names = s.withObjectGroup((group) => {
      id = s.objectIdOf({ a: 1, b: 'two' }, group);
      return s.getProperties({ objectId: id, ownProperties: true }).result.map((p) => [p.name, p.value?.value]);
    });
    assert.deepEqual(names, [
      ['a', 1],
      ['b', 'two'],
    ]);
    assert.throws(
      () => s.getProperties({ objectId: id, ownProperties: true }),
      (e: unknown) => e instanceof InspectorError && e.message.startsWith('Runtime.getProperties: '),
    );
  });

  test('the global slot is empty and hidden between calls', () => {
    const s = inspectorSession();
    s.withObjectGroup((group) => s.objectIdOf({ kept: false }, group));
    const slot = Object.getOwnPropertyDescriptor(globalThis, SLOT);
    assert.deepEqual([slot?.value, slot?.enumerable], [undefined, false]);
  });

  test('remote objects of many in order with their class; one object: one evaluate; none: no call', () => {
    const s = inspectorSession();
    const before = s.calls;
    const none = s.remoteObjectsOf([], 'unused');
    const afterNone = s.calls;
    const classes = s.withObjectGroup((group) => {
      const one = s.remoteObjectsOf([new Map()], group).map((r) => r.className);
      const oneCalls = s.calls - afterNone;
      const many = s.remoteObjectsOf([countTo(2), new Set(), [1]], group).map((r) => r.className);
      return { one, oneCalls, many };
    });
    assert.deepEqual(
      { none, noneCalls: afterNone - before, ...classes },
      {
        none: [],
        noneCalls: 0,
        one: ['Map'],
        oneCalls: 1,
        many: ['countTo', 'Set', 'Array'],
      },
    );
  });

  test('values back through valuesOf; a function that throws is an InspectorError', () => {
    const s = inspectorSession();
    const target = { n: 4 };
    const arg = { m: 5 };
    const back = s.withObjectGroup((group) =>
      s.valuesOf(s.objectIdOf(target, group), [{ objectId: s.objectIdOf(arg, group) }, { value: 6 }]),
    );
    assert.equal(back.self, target);
    assert.equal(back.args[0], arg);
    assert.equal(back.args[1], 6);
    assert.equal(Object.getOwnPropertyDescriptor(globalThis, SLOT)?.value, undefined);
    assert.throws(
      () =>
        s.withObjectGroup((group) =>
          s.callFunctionOn({
            objectId: s.objectIdOf(target, group),
            functionDeclaration: 'function () { throw new Error("no"); }',
            silent: true,
          }),
        ),
      (e: unknown) => e instanceof InspectorError && e.message.startsWith('Runtime.callFunctionOn threw: '),
    );
  });
});

test("a script's URL and source map URL, learned once; an unknown script scanned for once", () => {
  const s = inspectorSession();
  const id = scriptIdOf(s, countTo);
  const info = s.scriptInfo(id);
  assert.equal(info?.url, pathToFileURL(__filename).href);
  assert.equal(info?.sourceMapURL?.startsWith('data:application/json'), true);
  const scans = s.scriptScans;
  s.scriptInfo(id);
  assert.equal(s.scriptInfo('no-such-script'), null);
  assert.equal(s.scriptInfo('no-such-script'), null);
  assert.equal(s.scriptScans - scans, 1, 'the known one from memory, the unknown one scanned for once');
});
