// Tests of the ways a recording is refused or a replay fails (runtime/record/recording-errors.ts): each
// kind is a RecordingError (an Error) told apart by its class and its name (what a traceback shows), with
// its message as given; a source mismatch carries the changed files, a divergence its tick.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  RecordingError,
  RecordingFormatError,
  RecordingSourceMismatchError,
  ReplayDivergedError,
} from '../../../runtime/record/recording-errors';

test('each kind: a RecordingError with its own name and message; the mismatch and divergence say where', () => {
  const errors = [
    new RecordingError('r'),
    new RecordingFormatError('x.corotrace is not a recording'),
    new RecordingSourceMismatchError('sources changed', ['/a.ts', '/b.ts']),
    new ReplayDivergedError('the replay asked for tick 9', 9),
  ];
  assert.deepEqual(
    errors.map((e) => [e instanceof Error, e instanceof RecordingError, e.name, e.message]),
    [
      [true, true, 'RecordingError', 'r'],
      [true, true, 'RecordingFormatError', 'x.corotrace is not a recording'],
      [true, true, 'RecordingSourceMismatchError', 'sources changed'],
      [true, true, 'ReplayDivergedError', 'the replay asked for tick 9'],
    ],
  );
  assert.deepEqual((errors[2] as RecordingSourceMismatchError).changed, ['/a.ts', '/b.ts']);
  assert.equal((errors[3] as ReplayDivergedError).tick, 9);
  assert.equal(String(errors[1]), 'RecordingFormatError: x.corotrace is not a recording');
  assert.equal(errors[1] instanceof ReplayDivergedError, false);
});
