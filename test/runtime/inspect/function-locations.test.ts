// Tests of where a function is defined (runtime/inspect/function-locations.ts), read through this process's
// inspector and mapped through tsx's source map to this file: a function's TypeScript line; a builtin has
// none (null, and no file); one inspector read per function, misses included (the cache).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FunctionLocations } from '../../../runtime/inspect/function-locations';
import { type InspectorSession, inspectorSession } from '../../../runtime/inspect/inspector-session';
import { lineOf } from '../../source-line';

function definedHere(): number {
  return 1;
}
const arrowHere = (): number => 2;

/** The process's inspector session, counting the reads made through it (one object group each). */
function countingSession(): { session: InspectorSession; reads: () => number } {
  const real = inspectorSession();
  let reads = 0;
  const session = new Proxy(real, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (key === 'withObjectGroup' && typeof value === 'function')
        return (fn: (group: string) => unknown) => {
          reads++;
          return (value as (f: typeof fn) => unknown).call(target, fn);
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { session, reads: () => reads };
}

test("a function's TypeScript position; a builtin's none", () => {
  const locations = new FunctionLocations();
  const declared = locations.locationOf(definedHere);
  const arrow = locations.locationOf(arrowHere);
  assert.deepEqual(
    [declared?.file, declared?.line, arrow?.file, arrow?.line],
    [__filename, lineOf(__filename, 'function definedHere('), __filename, lineOf(__filename, 'const arrowHere =')],
  );
  assert.equal(declared?.mapped, true);
  assert.deepEqual([locations.locationOf(Math.max), locations.fileOf(Math.max)], [null, null]);
  assert.equal(locations.fileOf(definedHere), __filename);
});

test('one inspector read per function, misses included', () => {
  const { session, reads } = countingSession();
  const locations = new FunctionLocations(session);
  for (let i = 0; i < 3; i++) {
    locations.locationOf(definedHere);
    locations.fileOf(Math.max);
  }
  assert.equal(reads(), 2);
});
