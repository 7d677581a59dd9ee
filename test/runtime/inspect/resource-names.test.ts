// Tests of runtime/inspect/resource-names.ts: the name a resource was created into, read
// from its creation line in the shapes programs write (a const with or without a type, a
// `this.x =` attribute, a class field, an object literal's property, a plain assignment),
// none for an argument or a return; a real Lock, Queue, Event, Semaphore and Condition made
// in this file named by their variables and creation lines; a Lock's holder's acquire line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import {
  Condition,
  Event,
  EventLoop,
  Lock,
  Queue,
  Semaphore,
  VirtualClock,
  coroutine,
  type Coroutine,
} from '../../../runtime/index';
import { setCoroutineTracking } from '../../../runtime/coroutine';
import { bindingNameAt, heldSinceOf, resourceLabel, resourceNamingOf } from '../../../runtime/inspect/resource-names';
import { lineOf } from '../../source-line';

describe('bindingNameAt', () => {
  const cases: Array<[string, string, string | null]> = [
    ['  const ledger = new Lock();', 'Lock', 'ledger'],
    ['  const auditLog: Lock = new Lock();', 'Lock', 'auditLog'],
    ['  let jobs: Queue<number> = new Queue<number>(10);', 'Queue', 'jobs'],
    ['    this.auditLog = new Lock();', 'Lock', 'auditLog'],
    ['    this.#ready = new Event();', 'Event', 'ready'],
    ['  private readonly slots = new Semaphore(3);', 'Semaphore', 'slots'],
    ['  readonly done?: Event = new Event();', 'Event', 'done'],
    ['  const locks = { ledger: new Lock(), auditLog: new Lock() };', 'Lock', 'ledger'],
    ['  state.cond = new Condition(lock);', 'Condition', 'cond'],
    ['  gate = new Event();', 'Event', 'gate'],
    ['  return new Lock();', 'Lock', null],
    ['  use(new Lock());', 'Lock', null],
    ['  const q = makeQueue();', 'Queue', null],
  ];
  for (const [line, cls, name] of cases) {
    test(`${line.trim()} → ${String(name)}`, () => {
      assert.equal(bindingNameAt(line, cls, line.indexOf(`new ${cls}`) + 1), name);
    });
  }
  test('the column picks one of two on a line', () => {
    const line = '  const locks = { ledger: new Lock(), auditLog: new Lock() };';
    assert.equal(bindingNameAt(line, 'Lock', line.lastIndexOf('new Lock') + 1), 'auditLog');
    assert.equal(bindingNameAt(line, 'Lock', null), null);
  });
});

class Bank {
  readonly vault = new Lock();
  audit: Queue<string>;
  constructor() {
    this.audit = new Queue<string>();
  }
}

describe('resources made with coroutine tracking on', () => {
  test('are named by their variables and attributes, with their creation lines', () => {
    setCoroutineTracking(true);
    try {
      const ledger = new Lock();
      const auditLog: Lock = new Lock();
      const ready = new Event();
      const slots = new Semaphore(2);
      const changed = new Condition(ledger);
      const bank = new Bank();
      const here = __filename;
      const from = lineOf(here, 'class Bank {');
      for (const [res, name, needle] of [
        [ledger, 'ledger', 'const ledger = new Lock();'],
        [auditLog, 'auditLog', 'const auditLog: Lock = new Lock();'],
        [ready, 'ready', 'const ready = new Event();'],
        [slots, 'slots', 'const slots = new Semaphore(2);'],
        [changed, 'changed', 'const changed = new Condition(ledger);'],
        [bank.vault, 'vault', 'readonly vault = new Lock();'],
        [bank.audit, 'audit', 'this.audit = new Queue<string>();'],
      ] as const) {
        const n = resourceNamingOf(res);
        assert.equal(n.name, name, needle);
        assert.equal(n.createdAt?.file, here, needle);
        assert.equal(n.createdAt?.line, lineOf(here, needle, from), needle);
      }
      assert.equal(
        resourceLabel(ledger),
        `ledger (Lock, ${basename(here)}:${lineOf(here, 'const ledger = new Lock();', from)})`,
      );
    } finally {
      setCoroutineTracking(false);
    }
  });

  test("a Lock's holder is shown with the line where it took it", async () => {
    setCoroutineTracking(true);
    const loop = new EventLoop({ clock: new VirtualClock() });
    try {
      const ledger = new Lock();
      const take = coroutine(function* take(): Coroutine<void> {
        yield* ledger.acquire();
      });
      await loop.runUntilComplete(take());
      const at = heldSinceOf(ledger);
      assert.equal(at?.file, __filename);
      assert.equal(at?.line, lineOf(__filename, 'yield* ledger.acquire();'));
      ledger.release();
      assert.equal(heldSinceOf(ledger), null);
    } finally {
      loop.close();
      setCoroutineTracking(false);
    }
  });

  test('without tracking nothing is captured', () => {
    const plain = new Lock();
    assert.deepEqual(resourceNamingOf(plain), { className: 'Lock', name: null, createdAt: null });
    assert.equal(resourceLabel(plain), null);
  });
});
