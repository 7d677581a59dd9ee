// launch-programs.ts: what a sample measured outside its loop (its SampleInputs) is kept in the
// recording's program and given back to a replay of it, so the replay runs by the same numbers
// (a fib sample's n fitted to the machine) instead of measuring again.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventLoop } from '../../../../runtime/loop';
import {
  readRecordedProgram,
  recordedProgram,
  startReplayed,
} from '../../../../runtime/host/main-thread/launch-programs';
import { RecordingError } from '../../../../runtime/record/recording-errors';
import type { SampleOutcome } from '../../../../runtime/samples/index';

test("a recording's program keeps the numbers its sample measured; a corrupt set is refused", () => {
  const written = recordedProgram({
    target: { kind: 'sample', id: 'fib-loop' },
    options: {},
    siteUrl: 'http://127.0.0.1:1/',
    frames: true,
    inputs: { fibN: 27 },
  });
  const read = readRecordedProgram(JSON.parse(JSON.stringify(written)) as typeof written, 'x.corotrace');
  assert.deepEqual(read.inputs, { fibN: 27 });
  // None measured: none written.
  assert.equal(
    'inputs' in
      recordedProgram({
        target: { kind: 'sample', id: 'generators' },
        options: {},
        siteUrl: null,
        frames: true,
        inputs: {},
      }),
    false,
  );
  assert.throws(
    () => readRecordedProgram({ ...written, inputs: { fibN: 'many' } }, 'x.corotrace'),
    (e: unknown) => e instanceof RecordingError && /numbers its sample measured/.test(e.message),
  );
});

test('a replay of a sample runs by the number its run measured, not one measured again', async () => {
  const loop = new EventLoop();
  // 25 is the smallest n the sample would choose, never what a machine measures for 0.45 s of fib.
  const replay = startReplayed(loop, { kind: 'sample', id: 'fib-loop' }, {}, null, { fibN: 25 });
  const outcome = (await replay.run()) as SampleOutcome;
  loop.close();
  assert.equal(outcome.numbers.n, 25);
  assert.ok(
    outcome.lines.some((l) => l.startsWith('fib(25) = 75025')),
    outcome.lines.join('\n'),
  );
});
