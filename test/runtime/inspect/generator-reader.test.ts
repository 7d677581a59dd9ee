// Tests of runtime/inspect/generator-reader.ts and inspector-session.ts: node:inspector
// answers in-process synchronously; a suspended generator's function, location, state and
// locals (parameters, block-scoped variables, `this`, shadowing) are read without resuming
// it; previews stay bounded and run no program code; handles expand into children (private
// fields included) until released; nothing is left in the global slot or the handle table.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  GeneratorReader,
  HandleTable,
  inspectorSession,
  type GeneratorFrame,
  type LocalVariable,
} from '../../../runtime/inspect/index';

const reader = new GeneratorReader(inspectorSession(), new HandleTable());

function local(frame: GeneratorFrame, name: string): LocalVariable {
  const l = frame.locals?.find((v) => v.name === name);
  assert.ok(l !== undefined, `local ${name} among ${frame.locals?.map((v) => v.name).join(', ')}`);
  return l;
}

class Account {
  owner = 'ada';
  balance = 42;
  #pin = 1234;
  #history = ['opened'];
  get risky(): number {
    throw new Error('a preview must never run a getter');
  }
  pin(): number {
    return this.#pin + this.#history.length;
  }
  *audit(limit: number): Generator<string, void, unknown> {
    const seen: string[] = [];
    yield `auditing ${this.owner} up to ${limit}`;
    seen.push('x');
  }
}

describe('InspectorSession', () => {
  test('posts answer synchronously, in-process', () => {
    const session = inspectorSession();
    const before = session.calls;
    const result = session.withObjectGroup((group) => session.objectIdOf({ a: 1 }, group));
    assert.equal(typeof result, 'string', 'the objectId is there when the call returns');
    assert.ok(session.calls > before);
    assert.equal(
      (globalThis as unknown as Record<string, unknown>).__coroscopeInspectorSlot,
      undefined,
      'the slot is emptied',
    );
  });

  test('script URLs come from one debugger scan, and are cached', () => {
    const gen = (function* scanned(): Generator<number, void, unknown> {
      yield 1;
    })();
    gen.next();
    const session = inspectorSession();
    reader.readGenerator(gen);
    const scans = session.scriptScans;
    const again = reader.readGenerator(gen);
    assert.equal(session.scriptScans, scans, 'a known script needs no new scan');
    assert.equal(again.location?.url, `file://${__filename}`);
  });
});

describe('GeneratorReader', () => {
  test('reads function, state, location and locals of a suspended generator without resuming it', () => {
    function* fetchPage(url: string, tries: number): Generator<string, number, unknown> {
      let attempt = 0;
      const headers = { accept: 'text/html', host: 'example.test' };
      for (let i = 0; i < tries; i++) {
        const inLoop = `try ${i}`;
        attempt++;
        yield `${url} ${inLoop} ${headers.host}`;
      }
      return attempt;
    }
    const gen = fetchPage('http://example.test/a', 3);
    gen.next();
    const frame = reader.readGenerator(gen, { locals: true });
    assert.equal(frame.functionName, 'fetchPage');
    assert.equal(frame.state, 'suspended');
    assert.ok(frame.location !== null && frame.location.line0 >= 0 && frame.location.column0 >= 0);
    assert.equal(local(frame, 'url').value.text, '"http://example.test/a"');
    assert.equal(local(frame, 'url').scope, 'local');
    assert.equal(local(frame, 'tries').value.text, '3');
    assert.equal(local(frame, 'attempt').value.text, '1');
    assert.equal(local(frame, 'headers').value.text, '{accept: "text/html", host: "example.test"}');
    assert.equal(local(frame, 'i').scope, 'block');
    assert.equal(local(frame, 'inLoop').value.text, '"try 0"');
    // Reading changed nothing: the generator goes on from where it was.
    assert.equal(gen.next().value, 'http://example.test/a try 1 example.test');
    assert.equal(local(reader.readGenerator(gen, { locals: true }), 'attempt').value.text, '2');
  });

  test('an inner block variable shadows the outer one; closure variables are not locals', () => {
    const captured = 'from the closure';
    // Names nothing else in this file uses: esbuild renames a shadowing variable (y → y2)
    // and V8 reports generated names (task-snapshot.test.ts checks they are restored).
    function* shadows(): Generator<number, void, unknown> {
      const shadowed = 'outer';
      {
        const shadowed = 'inner';
        yield shadowed.length + captured.length;
      }
      yield shadowed.length;
    }
    const gen = shadows();
    gen.next();
    const frame = reader.readGenerator(gen, { locals: true });
    const names = frame.locals!.map((l) => l.name);
    // The inner one comes first, whatever esbuild called it.
    assert.equal(frame.locals![0]!.value.text, '"inner"', names.join(', '));
    assert.ok(frame.locals!.some((l) => l.value.text === '"outer"'));
    assert.equal(names.includes('captured'), false);
  });

  test('a method generator lists `this` first; the preview runs no getter', () => {
    const acct = new Account();
    const gen = acct.audit(5);
    gen.next();
    const frame = reader.readGenerator(gen, { locals: true });
    assert.equal(frame.functionName, 'audit');
    assert.equal(frame.locals![0]!.name, 'this');
    assert.equal(frame.locals![0]!.value.text, 'Account {owner: "ada", balance: 42}');
    assert.equal(local(frame, 'limit').value.text, '5');
    assert.equal(local(frame, 'seen').value.text, 'Array(0) []');
  });

  test('children of a handle: own properties, accessors unread, private fields through the inspector', () => {
    const gen = new Account().audit(1);
    gen.next();
    const group = reader.newHandleGroup();
    const frame = reader.readGenerator(gen, { locals: true, handles: { table: reader.handles, group } });
    const self = frame.locals![0]!.value;
    assert.ok(self.handle !== null);
    const page = reader.readChildren(self.handle);
    const byName = new Map(page.children.map((c) => [c.name, c]));
    assert.equal(byName.get('#pin')?.value.text, '1234');
    assert.equal(byName.get('#pin')?.kind, 'private');
    assert.equal(byName.get('#history')?.value.text, 'Array(1) ["opened"]');
    assert.equal(byName.get('owner')?.value.text, '"ada"');
    // Expanding a private field's value works too: it has a handle in the same group.
    const history = byName.get('#history')!.value.handle!;
    assert.deepEqual(
      reader.readChildren(history).children.map((c) => c.value.text),
      ['"opened"'],
    );
    reader.releaseHandles(group);
    assert.throws(() => reader.readChildren(self.handle!), /released handle/);
  });

  test('previews of big values stay bounded', () => {
    function* holdsBigThings(): Generator<number, void, unknown> {
      const bigText = 'x'.repeat(1_000_000);
      const bigList = Array.from({ length: 100_000 }, (_, i) => i);
      const wide: Record<string, number> = {};
      for (let i = 0; i < 10_000; i++) wide[`key${i}`] = i;
      const bytes = Buffer.alloc(1 << 20);
      const nested = { level1: { level2: { level3: 'deep' } }, list: bigList };
      yield bigText.length + bigList.length + Object.keys(wide).length + bytes.length + Object.keys(nested).length;
    }
    const gen = holdsBigThings();
    gen.next();
    const group = reader.newHandleGroup();
    const frame = reader.readGenerator(gen, { locals: true, handles: { table: reader.handles, group } });
    for (const l of frame.locals!) assert.ok(l.value.text.length <= 230, `${l.name}: ${l.value.text.length} chars`);
    const text = local(frame, 'bigText').value;
    assert.equal(text.size, 1_000_000);
    assert.match(text.text, /^"x{200}…" \(1000000 chars\)$/);
    assert.match(local(frame, 'bigList').value.text, /^Array\(100000\) \[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, …\]$/);
    assert.match(local(frame, 'wide').value.text, /^\{key0: 0, key1: 1, key2: 2, key3: 3, key4: 4, key5: 5, …\}$/);
    assert.match(local(frame, 'bytes').value.text, /^Buffer\(1048576\) \[0, 0/);
    assert.equal(local(frame, 'nested').value.text, '{level1: {…}, list: Array(100000)}');
    // Children come in pages.
    const list = local(frame, 'bigList').value.handle!;
    const page = reader.readChildren(list, { offset: 500, limit: 3 });
    assert.equal(page.total, 100_000);
    assert.deepEqual(
      page.children.map((c) => [c.name, c.value.text]),
      [
        ['500', '500'],
        ['501', '501'],
        ['502', '502'],
      ],
    );
    reader.releaseHandles(group);
  });

  test('a closed generator and a running one', () => {
    function* once(): Generator<number, void, unknown> {
      yield 1;
    }
    const done = once();
    done.next();
    done.next();
    assert.equal(reader.readGenerator(done).state, 'closed');

    let inside: GeneratorFrame | null = null;
    function* readsItself(): Generator<number, void, unknown> {
      inside = reader.readGenerator(self, { locals: true });
      yield 1;
    }
    const self = readsItself();
    self.next();
    assert.ok(inside !== null);
    const frame = inside as GeneratorFrame;
    assert.equal(frame.state, 'running');
    assert.equal(frame.locals, null);
  });

  test('handles are only made for a sink and kept until released', () => {
    const table = new HandleTable();
    const r = new GeneratorReader(inspectorSession(), table);
    function* holder(): Generator<number, void, unknown> {
      const a = { x: 1 };
      const b = [1, 2];
      yield a.x + b.length;
    }
    const gen = holder();
    gen.next();
    const g1 = r.newHandleGroup();
    const g2 = r.newHandleGroup();
    r.readGenerator(gen, { locals: true, handles: { table, group: g1 } });
    r.readGenerator(gen, { locals: true, handles: { table, group: g2 } });
    assert.equal(table.size(), 4);
    r.releaseHandles(g1);
    assert.equal(table.size(), 2);
    r.releaseHandles(g2);
    assert.equal(table.size(), 0);
    // Reading without locals, or locals without a sink, registers nothing.
    r.readGenerator(gen);
    const bare = r.readGenerator(gen, { locals: true });
    assert.equal(table.size(), 0);
    assert.deepEqual(
      bare.locals!.map((l) => [l.name, l.value.text, l.value.handle]),
      [
        ['a', '{x: 1}', null],
        ['b', 'Array(2) [1, 2]', null],
      ],
    );
  });

  test('reads batches of many generators (more than one object group)', () => {
    function* numbered(n: number): Generator<number, void, unknown> {
      yield n;
    }
    const gens = Array.from({ length: 100 }, (_, i) => {
      const g = numbered(i);
      g.next();
      return g;
    });
    const group = reader.newHandleGroup();
    const frames = reader.readGenerators(gens, { locals: true, handles: { table: reader.handles, group } });
    assert.equal(frames.length, 100);
    frames.forEach((f, i) => {
      assert.equal(f.functionName, 'numbered');
      assert.equal(local(f, 'n').value.text, String(i));
    });
    reader.releaseHandles(group);
  });

  test('a let, const or class in its temporal dead zone reads <uninitialized>, a declared one undefined', () => {
    const seen: string[] = [];
    class Box {
      *take(label: string): Generator<number, number, number> {
        var counted = label.length;
        let before = 1;
        let empty: number | undefined;
        const got = yield before;
        for (let turn = 0; turn < 1; turn++) {
          const inLoop = yield turn;
          const afterInLoop = inLoop;
          seen.push(String(afterInLoop));
        }
        class Late {}
        const after = got + counted + (empty ?? 0);
        return after + (Late === undefined ? 0 : 1);
      }
    }
    const gen = new Box().take('w');
    gen.next();
    const texts = (): Record<string, string> =>
      Object.fromEntries(
        reader
          .readGenerator(gen, { locals: true })
          .locals!.filter((l) => l.name !== 'this')
          .map((l) => [l.name, l.value.text]),
      );
    // Suspended inside `got`'s declaration: got, after and Late are not initialized yet; empty is undefined.
    assert.deepEqual(texts(), {
      label: '"w"',
      counted: '1',
      before: '1',
      empty: 'undefined',
      got: '<uninitialized>',
      after: '<uninitialized>',
      Late: '<uninitialized>',
    });
    gen.next(5);
    // In the loop's block, inside inLoop's declaration: the turn's bindings after it are not yet.
    const inTurn = texts();
    assert.equal(inTurn.turn, '0');
    assert.equal(inTurn.inLoop, '<uninitialized>');
    assert.equal(inTurn.afterInLoop, '<uninitialized>');
    assert.equal(inTurn.got, '5');
    assert.equal(inTurn.after, '<uninitialized>');
  });
});
