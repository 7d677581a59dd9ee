// readRunLog's view of the cancels asked from outside the loop: only those between ticks
// with no requesting task, each placed among the socket inputs of its gap as it came. A
// recording read as it grows (RunLogReader over a live RunRecorder's views): only its new
// records are decoded at each reading, and the last reading equals a reading of the whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RunLogReader,
  RunLogWriter,
  readRunLog,
  wholeRecording,
  type RecordingSoFar,
  type RunLog,
} from '../../../runtime/record/run-log';
import { RunRecorder } from '../../../runtime/record/run-recorder';
import { EventLoop } from '../../../runtime/loop';
import { coroutine } from '../../../runtime/coroutine';
import { sleep } from '../../../runtime/sleep';
import { openConnection } from '../../../runtime/streams';
import type { Coroutine } from '../../../runtime/task';
import { createServer, type AddressInfo } from 'node:net';

test('a cancel between ticks is an input of the next tick, in its place among the socket inputs; one inside a tick or by a task is not', () => {
  const w = new RunLogWriter();
  w.created(0, 'crawl', 1);
  w.created(1, 'worker-1', 2);
  w.socket('127.0.0.1', 80);
  w.tick(0.001);
  w.step(1);
  w.cancel(2, 1); // by task #1, inside a tick: the program's own
  w.cancel(2, 0); // by a callback or timer inside a tick: replays itself
  w.tickEnd(1);
  w.input(1, 'data', Buffer.from('ab'));
  w.cancel(1, 0); // from outside (a signal), after one input of the gap
  w.input(1, 'end', null);
  w.cancel(2, 0);
  w.tick(0.002);
  w.tickEnd(0);
  const events = w.events.bytes();
  const log = readRunLog(events, w.gaps.bytes(), Buffer.concat(w.payloads), 'test.corotrace');
  // noTask: its index among the cancels by no task (the one inside tick 1 is the first), for its asked cancel.
  assert.deepEqual(log.cancelsBefore, [
    [],
    [
      { task: 1, afterInputs: 1, noTask: 1 },
      { task: 2, afterInputs: 2, noTask: 2 },
    ],
  ]);
  assert.equal(log.inputsBefore[1]!.length, 2);
});

/** What a replay reads of a log, as plain values (to compare two readings). */
function contents(log: RunLog): unknown {
  const ticks = log.times.length;
  return {
    times: [...log.times],
    inputs: log.inputsBefore
      .slice(0, ticks)
      .map((list) =>
        list.map((i) => [
          i.socket,
          i.kind,
          Buffer.isBuffer(i.payload) ? i.payload.toString('latin1') : String(i.payload),
        ]),
      ),
    cancels: log.cancelsBefore.slice(0, ticks),
    gaps: Array.from({ length: ticks }, (_, i) => [...(log.gapReadsBefore[i] ?? [])]),
    sockets: log.sockets,
    offsets: [...log.tickOffsets],
    ends: [...log.tickEnds],
    taskIds: log.taskIds,
    taskNames: log.taskNames,
    steps: log.steps,
  };
}

test('a live recording read as it grows: each reading decodes only the records added since the last, and the last one equals a reading of the whole', async () => {
  // A server that answers each line with a few chunks: socket bytes arrive between ticks.
  const server = createServer((sock) =>
    sock.on('data', (d) => {
      for (let i = 0; i < 3; i++) sock.write(`${d.toString().trim()}-${i};`);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const reader = new RunLogReader('live');
  const asked: number[] = [];
  const readings: Array<{ ticks: number; log: RunLog }> = [];
  let shown: RecordingSoFar | null = null;
  const readNow = (): void => {
    const soFar = rec.soFar();
    // What an earlier reading decoded is never read again: blank it out in a copy.
    const events = Buffer.from(soFar.events);
    if (shown !== null) events.fill(0xff, 0, shown.events.length);
    const given: RecordingSoFar = {
      events,
      gaps: soFar.gaps,
      payloadFrom: (from) => (asked.push(from), soFar.payloadFrom(from)),
    };
    shown = soFar;
    readings.push({ ticks: rec.ticks, log: reader.read(given) });
  };
  const client = coroutine(function* client(): Coroutine<string> {
    const [r, writer] = yield* openConnection('127.0.0.1', port);
    let got = '';
    for (let n = 0; n < 4; n++) {
      writer.write(Buffer.from(`m${n}\n`));
      while (!got.includes(`m${n}-2;`)) got += (yield* r.read(100)).toString();
      readNow();
      yield* sleep(0.001);
    }
    writer.close();
    return got;
  });
  try {
    await loop.runUntilComplete(client());
  } finally {
    server.close();
  }
  const streams = rec.finish();
  loop.close();
  const whole = readRunLog(streams.events, streams.gaps, streams.payload, 'whole');
  const last = reader.read(wholeRecording(streams));
  assert.deepEqual(contents(last), contents(whole));
  // Each reading holds its ticks (all but the one running when read), asked for the socket bytes from where
  // the one before stopped.
  for (const r of readings) assert.equal(r.log.times.length, r.ticks);
  assert.ok(
    asked.length === readings.length &&
      asked[0] === 0 &&
      asked.every((from, i) => i === 0 || from >= asked[i - 1]!) &&
      asked[asked.length - 1]! > 0,
    `payload asked from ${asked.join(', ')}`,
  );
  // Earlier readings stay as they were read (the lists grew, their ticks did not change).
  const firstTicks = readings[0]!.log.times.length;
  assert.deepEqual([...readings[0]!.log.times], [...whole.times.subarray(0, firstTicks)]);
});
