// Tests of RunRecorder (runtime/record/run-recorder.ts): a run on a VirtualClock is recorded and its
// event log decoded back (RunLogDecoder) into an ordered list of records, compared whole: ticks at
// their clock times, tasks numbered in creation order with their parent, each step's suspension
// site, who woke whom, cancels and outcomes. Then the cuts (finish and the streams taken mid-tick),
// a task made before the recording began, socket inputs, and the refusals of attach().

import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { EventLoop } from '../../../runtime/loop';
import { getRunningLoop } from '../../../runtime/running-loop';
import { sleep } from '../../../runtime/sleep';
import { openConnection } from '../../../runtime/streams';
import type { Coroutine } from '../../../runtime/task';
import { RecordingError } from '../../../runtime/record/recording-errors';
import { RunLogDecoder, type RunLogVisitor } from '../../../runtime/record/run-log';
import { RunRecorder, type RecordedStreams } from '../../../runtime/record/run-recorder';

const OUTCOME = ['result', 'exception', 'cancelled'];

/** The records of `streams`, one line each, in log order. */
function recordsOf(streams: Pick<RecordedStreams, 'events' | 'payload'>): string[] {
  const out: string[] = [];
  // WokenBy: 0 a callback, 1 I/O, 2 a timer, 3 + n task n.
  const waker = (by: number): string => (by >= 3 ? `task ${by - 3}` : (['callback', 'io', 'timer'][by] ?? '?'));
  const visitor: RunLogVisitor = {
    tick: (t, time) => out.push(`tick ${t} @${time}`),
    tickEnd: (t) => out.push(`end ${t}`),
    step: (t) => out.push(`step ${t}`),
    site: (s) => out.push(`  suspended on ${s}`),
    created: (t, parent, name) => out.push(`created ${t} ${name} by ${parent}`),
    done: (t, o) => out.push(`done ${t} ${OUTCOME[o]}`),
    cancel: (t, by) => out.push(`cancel ${t} by ${by}`),
    wake: (t, by) => out.push(`wake ${t} by ${waker(by)}`),
    timer: () => out.push('timer'),
    socket: (n, host) => out.push(`socket ${n} to ${host}`),
    input: (n, kind, payload, bytes) =>
      out.push(`input ${n} ${kind} ${bytes}${Buffer.isBuffer(payload) ? ` ${payload.toString()}` : ''}`),
  };
  new RunLogDecoder(visitor, 'test').decode(streams.events, streams.payload);
  return out;
}

const child = coroutine(function* child(): Coroutine<number> {
  yield* sleep(2);
  return 1;
});
const sleeper = coroutine(function* sleeper(): Coroutine<void> {
  yield* sleep(50);
});
/** Starts a child (2 s) and a sleeper (50 s), cancels the sleeper at 1 s, returns the child's result. */
const main = coroutine(function* main(): Coroutine<number> {
  const loop = getRunningLoop();
  const c = loop.createTask(child(), { name: 'child' });
  const s = loop.createTask(sleeper(), { name: 'sleeper' });
  yield* sleep(1);
  s.cancel();
  return yield* c;
});

/** A recorder and a loop on its (virtual) clock, attached. */
function recorded(): { rec: RunRecorder; loop: EventLoop } {
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  return { rec, loop };
}

describe('what a run records', () => {
  test('ticks at virtual times, tasks by parent, sites, wakes, a cancel and the outcomes, in order', async () => {
    const { rec, loop } = recorded();
    assert.equal(await loop.runUntilComplete(loop.createTask(main(), { name: 'main' })), 1);
    const streams = rec.finish();
    loop.close();
    assert.deepEqual(recordsOf(streams), [
      'created 1 main by 0',
      'tick 1 @0',
      'step 1',
      'created 2 child by 1',
      'created 3 sleeper by 1',
      '  suspended on sleep',
      'end 1',
      'tick 2 @0',
      'step 2',
      '  suspended on sleep',
      'step 3',
      '  suspended on sleep',
      'end 2',
      'tick 3 @1',
      'timer',
      'wake 1 by timer',
      'end 3',
      'tick 4 @1',
      'step 1',
      'cancel 3 by 1',
      'wake 3 by task 1',
      '  suspended on task',
      'end 4',
      'tick 5 @1',
      'step 3',
      '  suspended on done',
      'done 3 cancelled',
      'end 5',
      'tick 6 @2',
      'timer',
      'wake 2 by timer',
      'end 6',
      'tick 7 @2',
      'step 2',
      '  suspended on done',
      'wake 1 by callback',
      'done 2 result',
      'end 7',
      'tick 8 @2',
      'step 1',
      '  suspended on done',
      'done 1 result',
      'end 8',
      'tick 9 @2',
      'end 9',
    ]);
    assert.deepEqual(
      { ticks: streams.ticks, tasks: streams.tasks, steps: streams.steps, sockets: streams.sockets },
      { ticks: 9, tasks: 3, steps: 7, sockets: 0 },
    );
  });

  test('a task made before the recording began is numbered at its first record, with no parent', async () => {
    const rec = new RunRecorder({ clock: new VirtualClock() });
    const loop = new EventLoop({ clock: rec.clock });
    const early = loop.createTask(child(), { name: 'early' });
    rec.attach(loop);
    await loop.runUntilComplete(early);
    const records = recordsOf(rec.finish());
    loop.close();
    assert.deepEqual(records.slice(0, 4), ['tick 1 @0', 'created 1 early by 0', 'step 1', '  suspended on sleep']);
    assert.equal(records.filter((r) => r.startsWith('created')).length, 1);
  });

  test('socket inputs: the connection opened and each input with its bytes', async (t) => {
    const server = createServer((sock) => sock.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const { rec, loop } = recorded();
    const got = await loop.runUntilComplete(
      coroutine(function* client(): Coroutine<string> {
        const [reader, writer] = yield* openConnection('127.0.0.1', port);
        const text = (yield* reader.read()).toString();
        writer.close();
        return text;
      })(),
    );
    const streams = rec.finish();
    loop.close();
    assert.equal(got, 'hello');
    const io = recordsOf(streams).filter((r) => r.startsWith('socket') || r.startsWith('input'));
    assert.equal(io[0], 'socket 1 to 127.0.0.1');
    assert.ok(io.includes('input 1 data 5 hello'), io.join('\n'));
    assert.equal(streams.sockets, 1);
    assert.equal(streams.payload.toString(), 'hello', 'the payload holds exactly the bytes the run read');
  });
});

describe('where the streams are cut', () => {
  test('mid-tick: streamsSoFar and finish stop after the last complete tick, streamsWithOpenTick holds its start', async () => {
    const { rec, loop } = recorded();
    let soFar: RecordedStreams | null = null;
    let open: RecordedStreams | null = null;
    let finished: RecordedStreams | null = null;
    await loop.runUntilComplete(
      coroutine(function* cut(): Coroutine<void> {
        yield* sleep(1);
        yield* sleep(1);
        // In tick 5 (at 2 s; each sleep is a timer's tick, then the step's), while it runs.
        soFar = rec.streamsSoFar();
        open = rec.streamsWithOpenTick();
        finished = rec.finish();
      })(),
    );
    loop.close();
    const complete = recordsOf(soFar!);
    assert.equal(soFar!.ticks, 4);
    assert.equal(complete.at(-1), 'end 4');
    assert.deepEqual(recordsOf(finished!), complete, 'finish() cuts where streamsSoFar() does');
    assert.equal(finished!.ticks, 4);
    assert.equal(open!.openTick, true);
    assert.equal(open!.ticks, 5);
    assert.deepEqual(recordsOf(open!), [...complete, 'tick 5 @2'], 'the open tick: its start and time only');
  });

  test('nothing is recorded after finish()', async () => {
    const { rec, loop } = recorded();
    await loop.runUntilComplete(sleep(1));
    const streams = rec.finish();
    const ticks = rec.ticks;
    await loop.runUntilComplete(sleep(1));
    loop.close();
    assert.equal(rec.ticks, ticks);
    assert.deepEqual(recordsOf(rec.streamsSoFar()), recordsOf(streams));
  });
});

describe('attach()', () => {
  test('refuses a loop built on another clock, and a loop recorded already', () => {
    const rec = new RunRecorder({ clock: new VirtualClock() });
    const other = new EventLoop({ clock: new VirtualClock() });
    assert.throws(
      () => rec.attach(other),
      (e: unknown) => e instanceof RecordingError && !other.hasObserver(rec),
    );
    other.close();
    const loop = new EventLoop({ clock: rec.clock });
    rec.attach(loop);
    assert.throws(
      () => rec.attach(loop),
      (e: unknown) => e instanceof RecordingError && e.message === 'this loop is being recorded already',
    );
    assert.ok(loop.hasObserver(rec));
    rec.detach();
    loop.close();
  });
});
