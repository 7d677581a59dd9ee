// Tests of runtime/inspect/lexical-bindings.ts with Sucrase's parser (sucrase-tokens.ts, as the transpiler's
// bundle lends it): which `let`, `const` and `class` bindings of a function are in their temporal dead zone at a
// position. Each expectation is checked against V8 itself: the function is run to the position, and reading the
// name there throws a ReferenceError exactly when the analysis says uninitialized.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FunctionBindings, type BindingState } from '../../../runtime/inspect/lexical-bindings';
import { parseScript } from '../../../runtime/inspect/sucrase-tokens';

/** The text from the parameters' `(` on, as V8's function position and a Local scope's range give it. */
function bindingsOf(fn: (...args: never[]) => unknown): { text: string; bindings: FunctionBindings } {
  const whole = fn.toString();
  const bindings = FunctionBindings.of(whole, parseScript);
  assert.ok(bindings !== null, 'the function parses');
  return { text: whole, bindings };
}

/** Marks a position in a function's text (tsx drops comments: a string stays). */
function m<T>(_marker: string, value?: T): T | undefined {
  return value;
}

/** The state of each name at the first `marker` of the function's text (`m('@marker')`). */
function statesAt(
  fn: (...args: never[]) => unknown,
  marker: string,
  names: readonly string[],
  kind: 'local' | 'block' = 'local',
): Record<string, BindingState | null> {
  const { text, bindings } = bindingsOf(fn);
  const at = text.indexOf(`@${marker}`);
  assert.ok(at >= 0, marker);
  return Object.fromEntries(names.map((n) => [n, bindings.stateOf(at, n, kind)]));
}

describe('FunctionBindings', () => {
  test('a let or const declared later is uninitialized; a var, a parameter, one declared before are not', () => {
    function* f(p: number): Generator<number> {
      var v = p;
      let before = 1;
      let empty: number | undefined;
      m('@here');
      yield before + v + (empty ?? 0);
      const later = 2;
      let alsoLater = later;
      yield alsoLater;
    }
    assert.deepEqual(statesAt(f, 'here', ['p', 'v', 'before', 'empty', 'later', 'alsoLater']), {
      p: null,
      v: null,
      before: 'initialized',
      empty: 'initialized',
      later: 'uninitialized',
      alsoLater: 'uninitialized',
    });
  });

  test('a binding whose initializer holds the position is uninitialized (a `yield*` in its declaration)', () => {
    function* f(): Generator<number, number, number> {
      const first = 1,
        got = yield m('@inside', first)!;
      return got;
    }
    assert.deepEqual(statesAt(f, 'inside', ['first', 'got']), { first: 'initialized', got: 'uninitialized' });
  });

  test('a loop body is a new block each turn: its bindings after the position are uninitialized', () => {
    function* f(): Generator<number> {
      for (let turn = 0; turn < 2; turn++) {
        m('@top');
        const inLoop = turn;
        yield inLoop;
        const after = inLoop;
        yield after;
      }
      for (const item of m('@head', [1])!) yield item;
    }
    assert.deepEqual(statesAt(f, 'top', ['turn', 'inLoop', 'after'], 'block'), {
      turn: 'initialized',
      inLoop: 'uninitialized',
      after: 'uninitialized',
    });
    assert.deepEqual(statesAt(f, 'head', ['item'], 'block'), { item: 'uninitialized' });
  });

  test('a class is bound at the end of its body; destructured names each', () => {
    function* f(o: { a: number; b: number[] }): Generator<unknown> {
      const {
        a,
        b: [c],
      } = o;
      m('@before');
      class K {
        m(): number {
          return a + c;
        }
      }
      yield new K();
    }
    assert.deepEqual(statesAt(f, 'before', ['a', 'c', 'K']), {
      a: 'initialized',
      c: 'initialized',
      K: 'uninitialized',
    });
  });

  test('a binding a `case` label may have jumped past is unknown, never made up', () => {
    function f(n: number): number {
      switch (n) {
        case 1:
          let one = 1;
          return one;
        case 2:
          m('@two');
          return n;
      }
      return 0;
    }
    assert.deepEqual(statesAt(f, 'two', ['one'], 'block'), { one: 'unknown' });
  });

  test('agrees with V8: reading a name said uninitialized throws a ReferenceError there, and only then', () => {
    const seen: Record<string, string> = {};
    const probe = (name: string, read: () => unknown): void => {
      try {
        read();
        seen[name] = 'initialized';
      } catch (e) {
        seen[name] = e instanceof ReferenceError ? 'uninitialized' : 'threw';
      }
    };
    function f(): number {
      let early = 1;
      m('@probe');
      probe('early', () => early);
      probe('late', () => late);
      probe('K', () => K);
      let late = 2;
      class K {}
      return early + late + (K === undefined ? 0 : 1);
    }
    f();
    assert.deepEqual(statesAt(f, 'probe', ['early', 'late', 'K']), seen);
  });

  test('a text that does not parse gives no answer', () => {
    assert.equal(FunctionBindings.of('(a) { let = = ; }', parseScript), null);
  });
});

describe('FunctionBindings of a CommonJS module’s own code (its Local scope is the whole script)', () => {
  test('its top-level let and const after the position are uninitialized; its var and functions never', () => {
    const text = 'var v = 1;\nconst a = 1;\nfoo();\nlet b = 2;\nfunction foo() {}\nclass K {}\n';
    const bindings = FunctionBindings.of(text, parseScript);
    assert.ok(bindings !== null);
    const at = text.indexOf('foo();');
    assert.deepEqual(
      ['v', 'a', 'b', 'foo', 'K'].map((n) => bindings.stateOf(at, n, 'local')),
      [null, 'initialized', 'uninitialized', null, 'uninitialized'],
    );
  });
});

test('a body V8 reads as a Block (parameters with defaults) is the function’s own', () => {
  function* f(n = 1): Generator<number> {
    m('@body');
    const later = n;
    yield later;
  }
  assert.deepEqual(statesAt(f, 'body', ['later'], 'block'), { later: 'uninitialized' });
});
