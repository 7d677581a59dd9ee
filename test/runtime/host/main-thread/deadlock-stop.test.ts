// Tests of runtime/host/main-thread/deadlock-stop.ts and of where a holder took a Semaphore's
// slot (runtime/semaphore.ts, runtime/inspect/resource-names.ts): two tasks taking two
// one-slot Semaphores in opposite order stop as a lock-order cycle whose details name each
// semaphore by its variable and say where its holder acquired it, as a Lock's do; the await
// graph's `holds` edges carry those lines; a Semaphore with several holders names each with
// its own acquire line, and a released slot's line is forgotten.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { Event, EventLoop, Semaphore, VirtualClock, coroutine, sleep, type Coroutine } from '../../../../runtime/index';
import { setCoroutineTracking } from '../../../../runtime/coroutine';
import { buildAwaitGraph, describeWaitOf } from '../../../../runtime/inspect/await-graph';
import { heldSinceOf } from '../../../../runtime/inspect/resource-names';
import { resourceIdOf } from '../../../../runtime/inspect/resource-ids';
import {
  DEADLOCK_TASKS_LISTED,
  deadlockReportOf,
  deadlockStopOf,
} from '../../../../runtime/host/main-thread/deadlock-stop';
import { lineOf } from '../../../source-line';

const HERE = basename(__filename);
const at = (needle: string): string => `${HERE}:${lineOf(__filename, needle)}`.replace(/\./g, '\\.');

async function ticks(loop: EventLoop, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await loop.runOnce();
}

describe('Semaphore holders and the deadlock stop', () => {
  test('a semaphore-order cycle names both semaphores and where each holder acquired its slot', async () => {
    setCoroutineTracking(true);
    const loop = new EventLoop({ clock: new VirtualClock() });
    try {
      const printer = new Semaphore(1);
      const scanner = new Semaphore(1);
      const copy = coroutine(function* copy(): Coroutine<void> {
        yield* printer.acquire(); // copy takes the printer
        yield* sleep(0);
        yield* scanner.acquire(); // copy waits for the scanner
      });
      const scan = coroutine(function* scan(): Coroutine<void> {
        yield* scanner.acquire(); // scan takes the scanner
        yield* sleep(0);
        yield* printer.acquire(); // scan waits for the printer
      });
      const a = loop.createTask(copy(), { name: 'copy' });
      const b = loop.createTask(scan(), { name: 'scan' });
      await ticks(loop, 4);

      const g = buildAwaitGraph(loop);
      assert.equal(g.deadlocks.length, 1, JSON.stringify(g.deadlocks));
      const d = g.deadlocks[0]!;
      const holds = (task: number, res: Semaphore) =>
        g.edges.find((e) => e.kind === 'holds' && e.from === `task:${task}` && e.to === resourceIdOf(res));
      assert.equal(holds(a.id, printer)?.at?.line, lineOf(__filename, '// copy takes the printer'));
      assert.equal(holds(b.id, scanner)?.at?.line, lineOf(__filename, '// scan takes the scanner'));

      const stop = deadlockStopOf(d, (id) => loop.allTasks().find((t) => t.id === id));
      assert.equal(stop.reason, 'exception');
      assert.equal(stop.description ?? '', 'Deadlock: lock-order cycle: copy → scan → copy over scanner, printer');
      const details = stop.deadlock?.details ?? '';
      assert.match(
        details,
        new RegExp(
          `"copy" waits on semaphore scanner \\(Semaphore, ${at('const scanner = new Semaphore(1);')}\\), held by Task #${b.id} "scan" since ${at('// scan takes the scanner')}`,
        ),
        details,
      );
      assert.match(
        details,
        new RegExp(
          `"scan" waits on semaphore printer \\(Semaphore, ${at('const printer = new Semaphore(1);')}\\), held by Task #${a.id} "copy" since ${at('// copy takes the printer')}`,
        ),
        details,
      );
      // Where to look first: where one of the holders took its slot.
      assert.ok(
        [lineOf(__filename, '// copy takes the printer'), lineOf(__filename, '// scan takes the scanner')].includes(
          stop.deadlock?.position?.line ?? 0,
        ),
      );
    } finally {
      loop.setExceptionHandler(() => undefined);
      loop.close();
      setCoroutineTracking(false);
    }
  });

  test('each of several holders is named with its own acquire line; a released slot is forgotten', async () => {
    setCoroutineTracking(true);
    const loop = new EventLoop({ clock: new VirtualClock() });
    try {
      const slots = new Semaphore(2);
      const first = coroutine(function* first(): Coroutine<void> {
        yield* slots.acquire(); // first takes a slot
        yield* sleep(10);
      });
      const second = coroutine(function* second(): Coroutine<void> {
        yield* sleep(0);
        yield* slots.acquire(); // second takes a slot
        yield* sleep(10);
      });
      const third = coroutine(function* third(): Coroutine<void> {
        yield* sleep(1);
        yield* slots.acquire(); // third waits for a slot
      });
      const a = loop.createTask(first(), { name: 'first' });
      const b = loop.createTask(second(), { name: 'second' });
      const c = loop.createTask(third(), { name: 'third' });
      await ticks(loop, 6);
      assert.equal(heldSinceOf(slots, a)?.line, lineOf(__filename, '// first takes a slot'));
      assert.equal(heldSinceOf(slots, b)?.line, lineOf(__filename, '// second takes a slot'));
      assert.equal(heldSinceOf(slots, c), null);
      assert.match(
        describeWaitOf(c),
        new RegExp(
          `"third" waits on semaphore slots \\(Semaphore, ${at('const slots = new Semaphore(2);')}\\), held by Task #${a.id} "first" since ${at('// first takes a slot')} and Task #${b.id} "second" since ${at('// second takes a slot')}$`,
        ),
      );
      slots.release(); // outside any task: frees the oldest holder's slot
      assert.equal(heldSinceOf(slots, a), null);
      assert.equal(heldSinceOf(slots, b)?.line, lineOf(__filename, '// second takes a slot'));
    } finally {
      for (const t of loop.allTasks()) t.cancel();
      await ticks(loop, 3);
      loop.close();
      setCoroutineTracking(false);
    }
  });

  test('a deadlock of many tasks names the first ones with where each waits and counts the rest', async () => {
    setCoroutineTracking(true);
    const loop = new EventLoop({ clock: new VirtualClock() });
    try {
      const never = new Event(); // nothing sets it
      const waiter = coroutine(function* waiter(): Coroutine<void> {
        yield* never.wait(); // each waiter waits here
      });
      const n = 3 * DEADLOCK_TASKS_LISTED;
      const waiters = Array.from({ length: n }, (_, i) => loop.createTask(waiter(), { name: `waiter-${i}` }));
      await ticks(loop, 3);
      const d = buildAwaitGraph(loop).deadlocks.find((x) => x.nodes.includes(`task:${waiters[0]!.id}`));
      assert.ok(d !== undefined, 'the waiters are a deadlock');
      const byId = (id: number) => loop.allTasks().find((t) => t.id === id);
      const report = deadlockReportOf(d, byId, false);
      assert.equal(report.traceback.frames.length, DEADLOCK_TASKS_LISTED);
      for (const f of report.traceback.frames)
        assert.equal(f.position?.line, lineOf(__filename, '// each waiter waits here'));
      const named = d.nodes.filter((id) => id.startsWith('task:')).length;
      assert.ok(named >= n, `${named} tasks in the deadlock`);
      const details = deadlockStopOf(d, byId).deadlock?.details ?? '';
      assert.equal(details.split('\n').filter((l) => l.includes(', suspended at ')).length, DEADLOCK_TASKS_LISTED);
      assert.ok(details.endsWith(`… and ${named - DEADLOCK_TASKS_LISTED} more tasks of this deadlock`), details);
      assert.equal(report.taskId, waiters[0]!.id);
    } finally {
      for (const t of loop.allTasks()) t.cancel();
      await ticks(loop, 3);
      loop.close();
      setCoroutineTracking(false);
    }
  });
});
