// outside-values.ts: the globals a program reads outside values through. Without a tap on the running
// loop they read as Node's; with one, only reads within that loop's ticks go through it; Date keeps its
// behaviour for every other use (arguments, instanceof, statics, subclasses).
import crypto = require('node:crypto');
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../runtime/loop';
import { coroutine } from '../../runtime/coroutine';
import type { Coroutine } from '../../runtime/task';
import { OutsideValue, realDateNow, realNow, setOutsideValueTap } from '../../runtime/outside-values';

test('a tap on the running loop gives the values its program reads; other loops and code outside read live', async () => {
  const asked: OutsideValue[] = [];
  const loop = new EventLoop();
  setOutsideValueTap(loop, {
    read: (kind) => {
      asked.push(kind);
      return kind === OutsideValue.RANDOM ? 0.25 : 86_400_000;
    },
  });
  const reads = coroutine(function* reads(): Coroutine<unknown[]> {
    yield;
    return [Math.random(), performance.now(), Date.now(), new Date().toISOString(), Date().slice(0, 15)];
  });
  try {
    const seen = await loop.runUntilComplete(reads());
    assert.deepEqual(seen, [0.25, 86_400_000, 86_400_000, '1970-01-02T00:00:00.000Z', 'Fri Jan 02 1970']);
    assert.deepEqual(asked, [
      OutsideValue.RANDOM,
      OutsideValue.PERFORMANCE_NOW,
      OutsideValue.DATE_NOW,
      OutsideValue.NEW_DATE,
      OutsideValue.NEW_DATE,
    ]);
    // Outside the loop's ticks: Node's own.
    assert.notEqual(Math.random(), 0.25);
    assert.ok(Math.abs(Date.now() - realDateNow()) < 1000);
    assert.ok(Math.abs(performance.now() - realNow()) < 1000);
    const other = new EventLoop();
    try {
      const live = await other.runUntilComplete(reads());
      assert.notEqual(live[0], 0.25);
    } finally {
      other.close();
    }
  } finally {
    setOutsideValueTap(loop, null);
    loop.close();
  }
});

test('Date, wrapped, is still Date: arguments, instanceof, statics, subclasses', () => {
  // Wrapped once a tap is set (the test above may not have run first).
  const loop = new EventLoop();
  setOutsideValueTap(loop, { read: (_kind, live) => live() });
  setOutsideValueTap(loop, null);
  loop.close();
  assert.equal(new Date(0).toISOString(), '1970-01-01T00:00:00.000Z');
  assert.equal(new Date(2020, 1, 2).getMonth(), 1);
  assert.equal(new Date('2001-02-03T04:05:06Z').getUTCHours(), 4);
  assert.ok(new Date() instanceof Date);
  assert.equal(Object.getPrototypeOf(new Date()), Date.prototype);
  assert.equal(new Date().constructor, Date);
  assert.equal(new (new Date(3).constructor as DateConstructor)(4).getTime(), 4);
  assert.equal(Date.UTC(2000, 0), 946_684_800_000);
  assert.equal(Date.parse('1970-01-01T00:00:01Z'), 1000);
  assert.equal(typeof Date(), 'string');
  assert.equal(Date.length, 7);
  class Stamp extends Date {
    label(): string {
      return `at ${this.getTime()}`;
    }
  }
  assert.equal(new Stamp(5).label(), 'at 5');
  assert.ok(new Stamp() instanceof Date);
});

test("crypto's random values and process's clocks and usage go through the tap, a number at a time", async () => {
  const asked: OutsideValue[] = [];
  const loop = new EventLoop();
  setOutsideValueTap(loop, {
    read: (kind) => {
      asked.push(kind);
      if (kind >= OutsideValue.UPTIME) return 5;
      return kind === OutsideValue.RANDOM_INT ? 7 : kind === OutsideValue.HRTIME ? 12 : 0x01020304;
    },
  });
  const reads = coroutine(function* reads(): Coroutine<unknown[]> {
    yield;
    return [
      crypto.randomUUID(),
      globalThis.crypto.randomUUID(),
      crypto.randomBytes(5).toString('hex'),
      Array.from(crypto.getRandomValues(new Uint8Array(2))),
      crypto.randomInt(10),
      process.hrtime(),
      process.hrtime.bigint(),
      process.uptime(),
      process.cpuUsage(),
      process.memoryUsage(),
      process.memoryUsage.rss(),
    ];
  });
  try {
    assert.deepEqual(await loop.runUntilComplete(reads()), [
      '01020304-0102-0304-0102-030401020304',
      '01020304-0102-0304-0102-030401020304',
      '0403020104',
      [4, 3],
      7,
      [12, 12],
      (0x01020304n << 32n) | 0x01020304n,
      5,
      { user: 5, system: 5 },
      { rss: 5, heapTotal: 5, heapUsed: 5, external: 5, arrayBuffers: 5 },
      5,
    ]);
    assert.deepEqual(asked, [
      ...Array(8).fill(OutsideValue.RANDOM_UUID),
      OutsideValue.RANDOM_BYTES,
      OutsideValue.RANDOM_BYTES,
      OutsideValue.RANDOM_BYTES,
      OutsideValue.RANDOM_INT,
      OutsideValue.HRTIME,
      OutsideValue.HRTIME,
      OutsideValue.HRTIME_BIGINT,
      OutsideValue.HRTIME_BIGINT,
      OutsideValue.UPTIME,
      OutsideValue.CPU_USAGE,
      OutsideValue.CPU_USAGE,
      ...Array(5).fill(OutsideValue.MEMORY_USAGE),
      OutsideValue.MEMORY_RSS,
    ]);
  } finally {
    setOutsideValueTap(loop, null);
    loop.close();
  }
});

test("the wrapped crypto and process calls keep Node's checks, errors and callback forms; ES module imports see them", async () => {
  const loop = new EventLoop();
  setOutsideValueTap(loop, { read: (_kind, live) => live() });
  setOutsideValueTap(loop, null);
  loop.close();
  assert.throws(() => crypto.randomBytes(-1), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => crypto.randomInt(5, 1), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => crypto.randomFillSync(Buffer.alloc(2), 3), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => globalThis.crypto.getRandomValues(new Float64Array(1) as unknown as Uint8Array), {
    name: 'TypeMismatchError',
  });
  assert.throws(() => process.hrtime('no' as unknown as [number, number]), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => process.cpuUsage({ user: -1, system: 0 }), { code: 'ERR_INVALID_ARG_VALUE' });
  const since = process.cpuUsage(process.cpuUsage());
  assert.ok(since.user >= 0 && since.system >= 0);
  assert.ok(process.memoryUsage.rss() > 0);
  const later = await new Promise<Buffer>((resolve, reject) =>
    crypto.randomBytes(4, (e, b) => (e === null ? resolve(b) : reject(e))),
  );
  assert.equal(later.length, 4);
  const drawn = await new Promise<number>((resolve, reject) =>
    crypto.randomInt(3, (e, n) => (e ? reject(e) : resolve(n))),
  );
  assert.ok(drawn >= 0 && drawn < 3);
  const esm = (await import('node:crypto')) as { randomUUID: unknown };
  assert.equal(esm.randomUUID, crypto.randomUUID);
  assert.equal(crypto.randomUUID.name, 'randomUUID');
});
