// The trap that checks a field's last write found by its assignment lines (extension/debug/field-write-trap.ts):
// its expressions run here in a fresh context as the scan's logpoints run them, with writes made by
// Object.assign, a bracketed key and a plain assignment, and its verdict on what the scan's end reports.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createContext, runInContext } from 'node:vm';
import {
  parseReport,
  parseSeen,
  type TrapEntry,
  trapCondition,
  trapMessage,
  firstChange,
  trapVerdict,
} from '../../../extension/debug/field-write-trap';

/**
 * A context holding `o` and a program (file prog.js): `hit` is an assignment line's hit (its logpoint's
 * condition then message, as a scan evaluates them in the line's frame) and, on that same line, its write of
 * `write` if given; `run` runs code from another line (its writes are not that line's).
 */
function scan(): {
  hit: (kind: 'write' | 'anchor', write?: string) => string;
  run: (code: string) => unknown;
  end: () => string;
} {
  const context = createContext({ o: { status: 'new', n: 1 } });
  const condition = trapCondition('t1', 'status', 7);
  const message = (kind: 'write' | 'anchor'): string => trapMessage('o', kind, '/somewhere/prog.js').slice(1, -1);
  runInContext(
    [
      'function hit(expression, write) { const m = eval(expression); if (write !== undefined) o.status = write; return m; }',
      'function elsewhere(code) { return eval(code); }',
    ].join('\n'),
    context,
    { filename: 'prog.js' },
  );
  const call = (f: string, ...args: unknown[]): unknown => {
    const fn = runInContext(f, context) as (...a: unknown[]) => unknown;
    return fn(...args);
  };
  return {
    hit: (kind, write) => String(call('hit', `(${condition}) && String(${message(kind)})`, write)),
    run: (code) => call('elsewhere', code),
    end: () => {
      const report = runInContext('globalThis.__coroscopeScanEnd', context) as { bp: number; read: () => string };
      assert.equal(report.bp, 7);
      return report.read();
    },
  };
}

const AT_STOP = (value: string): { reachable: true; value: string; type: string } => ({
  reachable: true,
  value,
  type: 'string',
});

describe('field write trap', () => {
  it('names the line whose write was the last change, to the value at the stop', () => {
    const s = scan();
    const anchor = parseSeen(s.hit('anchor'))!;
    const write = parseSeen(s.hit('write', 'written'))!;
    assert.equal(write.id, anchor.id, 'one object, one id');
    const report = parseReport(s.end())!;
    assert.equal(trapVerdict(report.get(anchor.id), write.seq, AT_STOP('"written"')), null);
    // The scan's end made the field plain again (a replay's later views show it as the program left it).
    assert.equal(
      s.run('JSON.stringify(Object.getOwnPropertyDescriptor(o, "status"))'),
      '{"value":"written","writable":true,"enumerable":true,"configurable":true}',
    );
  });

  for (const [how, code] of [
    ['Object.assign', "Object.assign(o, { status: 'assigned' })"],
    ['a bracketed key', "o['sta' + 'tus'] = 'assigned'"],
    ['destructuring', "({ s: o.status } = { s: 'assigned' })"],
  ] as const) {
    it(`sees a later write by ${how} and does not name the line`, () => {
      const s = scan();
      const anchor = parseSeen(s.hit('anchor'))!;
      const write = parseSeen(s.hit('write', 'written'))!;
      s.run(code);
      assert.equal(s.run('o.status'), 'assigned', 'the program reads what it wrote');
      const doubt = trapVerdict(parseReport(s.end())!.get(anchor.id), write.seq, AT_STOP('"assigned"'));
      assert.deepEqual(doubt, { kind: 'unseen', why: '1 write(s) after that line changed it again' });
    });
  }

  it('does not name a line whose write is not the value at the stop', () => {
    const s = scan();
    const anchor = parseSeen(s.hit('anchor'))!;
    const write = parseSeen(s.hit('write', 'written'))!;
    const doubt = trapVerdict(parseReport(s.end())!.get(anchor.id), write.seq, AT_STOP('"other"'));
    assert.equal(doubt?.kind, 'unseen');
  });

  it('does not name a line that did not write, when other code wrote with no hit between', () => {
    const s = scan();
    const anchor = parseSeen(s.hit('anchor'))!;
    const write = parseSeen(s.hit('write'))!;
    s.run("Object.assign(o, { status: 'assigned' })");
    const doubt = trapVerdict(parseReport(s.end())!.get(anchor.id), write.seq, AT_STOP('"assigned"'));
    assert.deepEqual(doubt, { kind: 'unseen', why: 'the line found did not write it, other code did' });
  });

  it('cannot tell for a field that is an accessor', () => {
    const s = scan();
    s.run("Object.defineProperty(o, 'status', { get: () => 'x', set: () => {}, configurable: true })");
    const anchor = parseSeen(s.hit('anchor'))!;
    const write = parseSeen(s.hit('write'))!;
    const doubt = trapVerdict(parseReport(s.end())!.get(anchor.id), write.seq, AT_STOP('"x"'));
    assert.equal(doubt?.kind, 'unknown');
    assert.match(doubt?.why ?? '', /accessor/);
  });

  it("counts the changes before the last assignment line, since the one before it wrote (other code's)", () => {
    const s = scan();
    const anchor = parseSeen(s.hit('anchor'))!;
    s.run("o.status = 'unseen'");
    s.run("o.status = 'unseen'");
    const first = parseSeen(s.hit('write', 'first'))!;
    const quiet = parseReport(s.end())!.get(anchor.id)!;
    assert.deepEqual([quiet.since, quiet.changesBefore], [first.seq, 1], 'one change (a second write kept it)');
    const t = scan();
    const seen = parseSeen(t.hit('anchor'))!;
    t.hit('write', 'first');
    const second = parseSeen(t.hit('write', 'second'))!;
    const none = parseReport(t.end())!.get(seen.id)!;
    assert.deepEqual([none.since, none.changesBefore], [second.seq, 0], "the first line's own write is not counted");
    const v = scan();
    const object = parseSeen(v.hit('anchor'))!;
    v.hit('write', 'first');
    v.run("o.status = 'unseen'");
    const third = parseSeen(v.hit('write', 'third'))!;
    const changed = parseReport(v.end())!.get(object.id)!;
    assert.deepEqual([changed.since, changed.changesBefore], [third.seq, 1], 'a change after the first line wrote');
    const u = scan();
    const alone = parseSeen(u.hit('anchor'))!;
    assert.equal(parseReport(u.end())!.get(alone.id)!.changesBefore, null, 'no assignment line seen');
  });

  it('finds the first of several assignment lines that changed the field, each line accounted for', () => {
    const s = scan();
    const anchor = parseSeen(s.hit('anchor'))!;
    const kept = parseSeen(s.hit('write', 'new'))!;
    const first = parseSeen(s.hit('write', 'first'))!;
    const second = parseSeen(s.hit('write', 'second'))!;
    const entry = parseReport(s.end())!.get(anchor.id)!;
    assert.deepEqual(
      entry.earlier.map((l) => [l.since, l.mine?.kept, l.changesBefore]),
      [
        [kept.seq, true, 0],
        [first.seq, false, 0],
      ],
    );
    assert.deepEqual(
      firstChange(entry, [kept.seq, first.seq, second.seq]),
      { index: 1 },
      'the same value is no change',
    );
    assert.deepEqual(firstChange(entry, [second.seq]), { index: 0 });
    // Other code changed it between two lines: the first line's write is not the first change seen after it.
    const t = scan();
    const seen = parseSeen(t.hit('anchor'))!;
    const same = parseSeen(t.hit('write', 'new'))!;
    t.run("o.status = 'unseen'");
    const after = parseSeen(t.hit('write', 'after'))!;
    const doubt = firstChange(parseReport(t.end())!.get(seen.id)!, [same.seq, after.seq]);
    assert.equal('kind' in doubt ? doubt.kind : 'named', 'unseen');
    const u = scan();
    const alone = parseSeen(u.hit('anchor'))!;
    const only = parseSeen(u.hit('write', 'new'))!;
    const none = firstChange(parseReport(u.end())!.get(alone.id)!, [only.seq]);
    assert.match('why' in none ? none.why : '', /no assignment line seen changed it/);
  });

  it('judges a report: a write that kept the value, a trap put on too late', () => {
    const entry: TrapEntry = {
      installedAt: 1,
      untrappable: null,
      since: 3,
      writes: 1,
      mine: { kept: true, type: 'string', text: '"a"' },
      laterChanges: 0,
      located: true,
      changesBefore: 0,
      earlier: [],
    };
    assert.equal(trapVerdict(entry, 3, AT_STOP('"a"'))?.kind, 'unknown');
    assert.equal(trapVerdict({ ...entry, mine: null, laterChanges: 1 }, 3, AT_STOP('"a"'))?.kind, 'unseen');
    assert.equal(trapVerdict({ ...entry, installedAt: 4 }, 3, AT_STOP('"a"'))?.kind, 'unknown');
    assert.equal(trapVerdict(undefined, 3, AT_STOP('"a"'))?.kind, 'unknown');
    const unlocated = { ...entry, mine: null, laterChanges: 1, located: false };
    assert.match(trapVerdict(unlocated, 3, AT_STOP('"a"'))?.why ?? '', /not in the stack/);
    assert.equal(parseReport('not json'), null);
  });
});
