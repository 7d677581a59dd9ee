// The ways a recording can be refused or a replay can fail, each with a message that names
// the recording file and says what is wrong, so a user never sees a crash or a hang.
//
// - RecordingFormatError: the file is not a recording, is of a version this build does not
//   read, or is truncated or corrupt.
// - RecordingSourceMismatchError: the recording ran sources that have changed since (it
//   could not be replayed exactly); lists the changed files.
// - ReplayDivergedError: the replay asked for something the recording does not hold (more
//   ticks, another clock reading, a different event): the program is not the one recorded.

export class RecordingError extends Error {
  override name = 'RecordingError';
}

export class RecordingFormatError extends RecordingError {
  override name = 'RecordingFormatError';
}

export class RecordingSourceMismatchError extends RecordingError {
  override name = 'RecordingSourceMismatchError';
  constructor(
    message: string,
    readonly changed: readonly string[],
  ) {
    super(message);
  }
}

export class ReplayDivergedError extends RecordingError {
  override name = 'ReplayDivergedError';
  constructor(
    message: string,
    readonly tick: number,
  ) {
    super(message);
  }
}
