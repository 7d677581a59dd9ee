// outside-effects.ts: a program's synchronous file calls. Recorded, each is Node's and its outcome goes
// through the loop's tap as numbers (Node's own calls within one are not); replayed from those numbers,
// none is made: the values returned and the errors thrown are the recorded ones, an fd opened for
// writing is the recording's and the calls on it are not made, in a tick or outside one. A replay's
// start of its program makes none either; without a tap each call is Node's.
import fs = require('node:fs');
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../runtime/loop';
import { coroutine } from '../../runtime/coroutine';
import type { Coroutine } from '../../runtime/task';
import { OutsideValue, setOutsideValueTap, wrapGlobals, type OutsideValueTap } from '../../runtime/outside-values';
import { withoutFileEffects } from '../../runtime/outside-effects';

// As a process that records or replays does before it loads a program.
wrapGlobals();

const dir = mkdtempSync(join(tmpdir(), 'coroscope-effects-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A recording tap: every number read, kept. */
function recorder(): OutsideValueTap & { numbers: number[] } {
  const numbers: number[] = [];
  return {
    numbers,
    read: (kind, live) => {
      assert.equal(kind, OutsideValue.FILE_OUTCOME);
      const n = live();
      numbers.push(n);
      return n;
    },
  };
}

/** A replay's tap giving back `numbers` in order (then what `live` says: not recorded). */
function replayer(numbers: readonly number[]): OutsideValueTap & { given: number } {
  const tap = {
    replaying: true,
    given: 0,
    read: (_kind: OutsideValue, live: () => number) => (tap.given < numbers.length ? numbers[tap.given++]! : live()),
  };
  return tap;
}

/** Runs `body` in a tick of a loop with `tap`. */
async function inTick<T>(tap: OutsideValueTap, body: () => T): Promise<T> {
  const loop = new EventLoop();
  setOutsideValueTap(loop, tap);
  const one = coroutine(function* one(): Coroutine<T> {
    yield;
    return body();
  });
  try {
    return await loop.runUntilComplete(one());
  } finally {
    setOutsideValueTap(loop, null);
    loop.close();
  }
}

/** A program's writes: a file written and appended, an fd written and closed, a failure caught, a temp dir. */
function program(base: string): unknown[] {
  const file = join(base, 'out.txt');
  fs.writeFileSync(file, 'one\n');
  fs.appendFileSync(file, 'two\n');
  const fd = fs.openSync(file, 'a');
  const wrote = fs.writeSync(fd, 'three\n');
  fs.closeSync(fd);
  let failed = '';
  try {
    fs.writeFileSync(join(base, 'no-such-dir', 'x'), 'x');
  } catch (e) {
    const x = e as NodeJS.ErrnoException;
    failed = `${x.code} ${x.syscall} ${x.errno} ${x.path} ${x.message}`;
  }
  const made = fs.mkdtempSync(join(base, 'tmp-'));
  return [wrote, failed, made];
}

describe('outside effects', () => {
  test('recorded: made as Node makes them, Node-internal calls not recorded; replayed: none made, same outcomes', async () => {
    const base = fs.mkdtempSync(join(dir, 'run-'));
    const rec = recorder();
    const live = await inTick(rec, () => program(base));
    const file = join(base, 'out.txt');
    assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\nthree\n');
    assert.match(String(live[1]), /^ENOENT open -2 .*no-such-dir\/x ENOENT: no such file or directory, open /);
    assert.ok(fs.existsSync(String(live[2])));
    // Each call's outcome once: 7 calls, the error's and the temp dir's texts.
    assert.ok(rec.numbers.length > 7);

    fs.rmSync(String(live[2]), { recursive: true });
    const rep = replayer(rec.numbers);
    const replayed = await inTick(rep, () => program(base));
    assert.deepEqual(replayed, live);
    assert.equal(rep.given, rec.numbers.length, 'every number read back');
    // Nothing written, made or appended again.
    assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\nthree\n');
    assert.equal(fs.existsSync(String(live[2])), false);
  });

  test('replayed without a recorded outcome (not the run recorded): not made, answered as Node on success', async () => {
    const base = fs.mkdtempSync(join(dir, 'unrecorded-'));
    const file = join(base, 'out.txt');
    const got = await inTick(replayer([]), () => {
      fs.writeFileSync(file, 'x');
      const fd = fs.openSync(file, 'w');
      const n = fs.writeSync(fd, 'héllo');
      fs.closeSync(fd);
      return [n, fd >= 0x40000000];
    });
    assert.deepEqual(got, [6, true]);
    assert.equal(fs.existsSync(file), false);
  });

  test("a replay's fd opened for writing is never one of the process's, in a tick or after", async () => {
    const base = fs.mkdtempSync(join(dir, 'phantom-'));
    const file = join(base, 'out.txt');
    // Recorded: the live fd; replayed, a real fd of this process has that number (a file opened for reading).
    const reading = fs.openSync(__filename, 'r');
    try {
      const numbers = [1, reading, 1, 3];
      const fd = await inTick(replayer(numbers), () => {
        const fd = fs.openSync(file, 'w');
        fs.writeSync(fd, 'abc');
        return fd;
      });
      assert.equal(fd, reading);
      // Outside any tick: not written, not closed (the real fd stays open and readable).
      assert.equal(fs.writeSync(fd, 'more'), 4);
      fs.closeSync(fd);
      assert.ok(fs.fstatSync(reading).size > 0);
      assert.equal(fs.existsSync(file), false);
    } finally {
      fs.closeSync(reading);
    }
  });

  test('an fd opened for writing outside the ticks: its close in a tick is not recorded, live nor replayed', async () => {
    const base = fs.mkdtempSync(join(dir, 'off-ticks-'));
    const liveFd = fs.openSync(join(base, 'live.txt'), 'w');
    const rec = recorder();
    await inTick(rec, () => fs.closeSync(liveFd));
    assert.deepEqual(rec.numbers, []);
    // At the replay's start: a phantom, closed in a tick without a record read.
    const fd = withoutFileEffects(() => fs.openSync(join(base, 'replayed.txt'), 'w'));
    const rep = replayer([Number.NaN]);
    await inTick(rep, () => fs.closeSync(fd));
    assert.equal(rep.given, 0);
    assert.equal(fs.existsSync(join(base, 'replayed.txt')), false);
  });

  test("a replay's start of its program makes no call; without a tap, and for reads, Node's", () => {
    const base = fs.mkdtempSync(join(dir, 'start-'));
    const file = join(base, 'top.txt');
    const n = withoutFileEffects(() => {
      fs.appendFileSync(file, 'loaded\n');
      const fd = fs.openSync(file, 'a');
      const wrote = fs.writeSync(fd, 'x');
      fs.closeSync(fd);
      return wrote;
    });
    assert.equal(n, 1);
    assert.equal(fs.existsSync(file), false);
    fs.appendFileSync(file, 'live\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'live\n');
  });

  test('an ES module import of node:fs gets the wrappers', async () => {
    const base = fs.mkdtempSync(join(dir, 'esm-'));
    const file = join(base, 'esm.txt');
    const { writeFileSync } = await import('node:fs');
    withoutFileEffects(() => writeFileSync(file, 'x'));
    assert.equal(fs.existsSync(file), false);
  });
});
