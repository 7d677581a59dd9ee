// RunLogFeed: one decode of a recorded run's event log feeding every reader of it (the timeline
// and the task table by tick), incrementally: `update(events, upTo)` decodes what was added.
// A reader joining late reads the records decoded before on its own once, then goes on.
//
// Invariants: every reader joined is told every record up to the feed's position, in log order,
// exactly once; socket bytes are never decoded (inputs carry null); a record that does not check
// is a RecordingFormatError for the reader that asked, and the feed goes no further.

import { RunLogDecoder, type RunLogVisitor } from './run-log';

/** The records a RunLogVisitor is told of (its methods). */
const RECORDS = [
  'tick',
  'tickEnd',
  'step',
  'site',
  'created',
  'done',
  'cancel',
  'uncancel',
  'cancelEffect',
  'socket',
  'input',
  'wake',
  'timer',
] as const satisfies ReadonlyArray<keyof RunLogVisitor>;

export class RunLogFeed {
  private readonly readers: RunLogVisitor[] = [];
  /** Readers joined after some of the log was decoded: they read it first, at the next update. */
  private readonly joining: RunLogVisitor[] = [];
  private readonly decoder: RunLogDecoder;
  /** Where the log was decoded to (bytes of the event stream: the end of a tick). */
  private decodedTo = 0;
  /** Decodes done (each of new records; a late reader's first read not counted). */
  decodes = 0;

  constructor(
    /** What the log is ("run.corotrace"), for error messages. */
    private readonly what: string,
  ) {
    this.decoder = new RunLogDecoder(fanOut(this.readers), what);
  }

  /** Ticks decoded so far. */
  get ticks(): number {
    return this.decoder.tickCount;
  }

  /** A reader of the log from its start. */
  join(reader: RunLogVisitor): void {
    if (this.decodedTo === 0) this.readers.push(reader);
    else this.joining.push(reader);
  }

  /** Decodes the records written since the last call, up to `upTo` (the end of a tick), for every reader. */
  update(events: Uint8Array, upTo = events.length): void {
    for (const late of this.joining.splice(0)) {
      new RunLogDecoder(late, this.what).decode(events, null, this.decodedTo);
      this.readers.push(late);
    }
    if (upTo <= this.decodedTo) return;
    this.decoder.decode(events, null, upTo);
    this.decodes++;
    this.decodedTo = upTo;
  }
}

/** One visitor telling each record to every reader, in the order they joined. */
function fanOut(readers: readonly RunLogVisitor[]): RunLogVisitor {
  const out: Record<string, (...args: never[]) => void> = {};
  for (const name of RECORDS) {
    out[name] = (...args: never[]): void => {
      for (const r of readers) (r[name] as ((...a: never[]) => void) | undefined)?.apply(r, args);
    };
  }
  return out as RunLogVisitor;
}
