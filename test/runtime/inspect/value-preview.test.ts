// Tests of runtime/inspect/value-preview.ts: one-line previews of every kind of value, bounded
// whatever the size, that never run program code (getters, Proxy traps, overridden
// iterators), children pages behind handles, and the value a preview stands for.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop, VirtualClock, coroutine, setCoroutineTracking, type Coroutine } from '../../../runtime/index';
import {
  HandleTable,
  childrenOf,
  classNameOf,
  previewValue,
  valueOfPreview,
  type HandleSink,
} from '../../../runtime/inspect/index';

function sink(): HandleSink {
  const table = new HandleTable();
  return { table, group: table.newGroup() };
}

const text = (v: unknown): string => previewValue(v, null).text;

describe('previewValue', () => {
  test('primitives', () => {
    assert.equal(text(undefined), 'undefined');
    assert.equal(text(null), 'null');
    assert.equal(text(true), 'true');
    assert.equal(text(-0), '-0');
    assert.equal(text(1.5), '1.5');
    assert.equal(text(NaN), 'NaN');
    assert.equal(text(12n), '12n');
    assert.equal(text(Symbol('s')), 'Symbol(s)');
    assert.equal(text('a"b'), '"a\\"b"');
    const long = previewValue('é'.repeat(5000), null);
    assert.equal(long.size, 5000);
    assert.equal(long.text, `${JSON.stringify('é'.repeat(200) + '…')} (5000 chars)`);
  });

  test('a tracked coroutine reads as the generator it drives: a Generator, nothing to expand', () => {
    function* fetchPage(): Coroutine<number> {
      yield;
      return 1;
    }
    const untracked = fetchPage();
    setCoroutineTracking(true);
    try {
      const tracked = coroutine(fetchPage)();
      const s = sink();
      const [a, b] = [previewValue(untracked, s), previewValue(tracked, s)];
      assert.deepEqual([b.text, b.className], [a.text, a.className]);
      assert.equal(b.text, 'Generator');
      assert.equal(classNameOf(tracked), 'Generator');
      assert.deepEqual(childrenOf(tracked, s), childrenOf(untracked, s));
    } finally {
      setCoroutineTracking(false);
    }
  });

  test('functions and classes', () => {
    function plain(): void {}
    function* gen(): Generator<number> {
      yield 1;
    }
    class Shape {}
    assert.equal(text(plain), 'ƒ plain()');
    assert.equal(text(gen), 'ƒ* gen()');
    assert.equal(
      text(async () => 1),
      'async ƒ (anonymous)()',
    );
    assert.equal(text(Shape), 'class Shape');
  });

  test('objects one level deep, arrays with their length, collections with their size', () => {
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
    }
    assert.equal(text(new Point(1, 2)), 'Point {x: 1, y: 2}');
    assert.equal(
      text({ a: { b: { c: 1 } }, list: [1, 2], p: new Point(0, 0), s: 'y'.repeat(100) }),
      `{a: {…}, list: Array(2), p: Point, s: "${'y'.repeat(40)}…"}`,
    );
    assert.equal(text(Object.create(null) as object), '{}');
    assert.equal(text([1, 'two', [3], { four: 4 }]), 'Array(4) [1, "two", Array(1), {…}]');
    assert.equal(text(new Array(3)), 'Array(3) [empty, empty, empty]');
    assert.equal(text(new Map([['k', { v: 1 }]])), 'Map(1) {"k" => {…}}');
    assert.equal(text(new Set([1, 2])), 'Set(2) {1, 2}');
    assert.equal(text(new Uint8Array([1, 2, 3])), 'Uint8Array(3) [1, 2, 3]');
    assert.equal(text(Buffer.from('hi')), 'Buffer(2) [104, 105]');
    assert.equal(text(new Date(0)), '1970-01-01T00:00:00.000Z');
    assert.equal(text(/a+b/g), '/a+b/g');
    assert.equal(text(new TypeError('bad thing')), 'TypeError: bad thing');
    assert.equal(text(Promise.resolve(1)), 'Promise');
    assert.equal(text(new URL('http://example.test/x')), 'URL "http://example.test/x"');
    assert.equal(text(new WeakMap()), 'WeakMap');
  });

  test('runtime objects show their own description', () => {
    const loop = new EventLoop({ clock: new VirtualClock() });
    const fut = loop.createFuture<number>();
    fut._origin = { kind: 'queue.get', detail: 'd' };
    assert.equal(text(fut), '<Future pending queue.get d>');
    loop.close();
  });

  test('never runs getters, Proxy traps or overridden iterators', () => {
    let ran = 0;
    const withGetter = {
      plain: 1,
      get boom(): number {
        ran++;
        return 2;
      },
    };
    assert.equal(text(withGetter), '{plain: 1, boom: (accessor)}');
    const proxy = new Proxy(
      {},
      {
        get: () => ran++,
        ownKeys: () => {
          ran++;
          return [];
        },
        getPrototypeOf: () => {
          ran++;
          return null;
        },
        getOwnPropertyDescriptor: () => {
          ran++;
          return undefined;
        },
      },
    );
    assert.equal(text(proxy), 'Proxy');
    assert.equal(text({ inner: proxy }), '{inner: Proxy}');
    assert.deepEqual(childrenOf(proxy, sink()).children, []);
    const map = new Map([[1, 1]]);
    const overridden = function* (): Generator<[number, number]> {
      ran++;
      yield [9, 9];
    };
    Object.defineProperty(map, Symbol.iterator, { value: overridden });
    Object.defineProperty(map, 'entries', { value: overridden });
    assert.equal(text(map), 'Map(1) {1 => 1}');
    const s = sink();
    const page = childrenOf(withGetter, s);
    assert.deepEqual(
      page.children.map((c) => [c.name, c.kind, c.value.text]),
      [
        ['plain', 'property', '1'],
        ['boom', 'accessor', '(getter)'],
      ],
    );
    assert.equal(ran, 0);
  });

  test('every preview is short, whatever the value', () => {
    const huge: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) huge[`k${'z'.repeat(50)}${i}`] = 'v'.repeat(1000);
    for (const v of [huge, Array.from({ length: 1e5 }, () => huge), new Map([[huge, huge]]), 'q'.repeat(1e6)]) {
      assert.ok(text(v).length <= 230, `${text(v).length}: ${text(v).slice(0, 80)}`);
    }
  });

  test('classNameOf reads data properties only', () => {
    class Named {}
    assert.equal(classNameOf(new Named()), 'Named');
    assert.equal(classNameOf(Object.create(null) as object), 'Object');
    const tricky = Object.create({
      get constructor(): never {
        throw new Error('ran');
      },
    }) as object;
    assert.equal(classNameOf(tricky), 'Object');
  });
});

describe('handles and children', () => {
  test('objects get handles in the sink; primitives do not', () => {
    const s = sink();
    assert.equal(previewValue(1, s).handle, null);
    assert.equal(previewValue('x'.repeat(1000), s).handle, null);
    const h = previewValue({ a: 1 }, s).handle;
    assert.ok(h !== null && s.table.has(h));
    assert.equal(s.table.groupOf(h), s.group);
    assert.equal(s.table.release(s.group), 1);
    assert.equal(s.table.has(h), false);
  });

  test('children pages of arrays, maps, sets and errors', () => {
    const s = sink();
    assert.deepEqual(
      childrenOf(['a', 'b', 'c'], s, 1, 5).children.map((c) => [c.name, c.value.text]),
      [
        ['1', '"b"'],
        ['2', '"c"'],
      ],
    );
    const m = childrenOf(
      new Map<unknown, unknown>([
        ['k', 1],
        [{ o: 1 }, 2],
      ]),
      s,
    );
    assert.equal(m.total, 2);
    assert.deepEqual(
      m.children.map((c) => [c.name, c.kind, c.value.text]),
      [
        ['"k"', 'entry', '1'],
        ['{…}', 'entry', '2'],
      ],
    );
    assert.deepEqual(
      childrenOf(new Set(['x']), s).children.map((c) => c.value.text),
      ['"x"'],
    );
    const err = childrenOf(new RangeError('out'), s);
    const names = err.children.map((c) => c.name);
    assert.ok(names.includes('stack') && names.includes('message'), names.join());
    const sym = Symbol('tag');
    assert.deepEqual(
      childrenOf({ [sym]: 1, b: 2 }, s).children.map((c) => c.name),
      ['b', '[Symbol(tag)]'],
    );
  });
});

describe('valueOfPreview', () => {
  const back = (v: unknown): { value: unknown; cut: boolean } => valueOfPreview(previewValue(v, null));

  test('a primitive comes back whole from its preview', () => {
    for (const v of [
      undefined,
      null,
      true,
      false,
      0,
      -0,
      1.5,
      -7,
      NaN,
      Infinity,
      12n,
      -3n,
      '',
      'a"b\\c\n',
      'é'.repeat(200),
    ]) {
      const r = back(v);
      assert.equal(r.cut, false, String(v));
      assert.ok(Object.is(r.value, v), `${String(v)} came back as ${String(r.value)}`);
    }
  });

  test('a cut string comes back as the text its preview kept, marked cut', () => {
    const long = 'x"'.repeat(150) + 'tail';
    assert.deepEqual(back(long), { value: long.slice(0, 200), cut: true });
  });

  test('objects, functions and symbols are not in their preview: undefined, marked cut', () => {
    for (const v of [{ a: 1 }, [1, 2], new Map(), function f(): void {}, Symbol('s')])
      assert.deepEqual(back(v), { value: undefined, cut: true });
    // A preview made with handles reads back the same: the handle is the caller's to follow.
    assert.deepEqual(valueOfPreview(previewValue({ a: 1 }, sink())), { value: undefined, cut: true });
  });
});
