// Moment ids: how a view knows the host's answer to its own move in time. A view that moves
// the run's viewed moment (seekTick, lineStep, lineStepBack, pastBreakpointHit) names the
// request with an id of its own; the host echoes it on the moment that request made: the
// seek's answer (ViewedMoment.moment), the `viewedTick` events it causes (the moment, then its
// replay landing) and the `paused` of a past line it shows. A moment nobody asked for (a live
// stop, a run that goes on, a request without an id) carries none. So no layer guesses from
// the order or the tick of events whether one is its answer.
//
// Invariants: an id is `<asker>:<n>`, `n` counting up from 1 per MomentIds; two askers with
// different names never make the same id; `isOwn` is true exactly for ids this instance made;
// an id is at most MAX_MOMENT_ID_LENGTH characters (the host refuses longer ones).
// Pure: no I/O; used by the extension (RunSession), the webview (SeekQueue) and tests.

/** The longest moment id a host accepts (a view's name and a counter fit many times over). */
export const MAX_MOMENT_ID_LENGTH = 200;

export class MomentIds {
  private count = 0;
  private readonly prefix: string;

  constructor(
    /** Who asks ('panel', 'debug 2', 'webview 1f3c'): unique among the run's views. */
    readonly asker: string,
  ) {
    this.prefix = `${asker}:`;
  }

  /** A new id for this asker's next move. */
  next(): string {
    this.count++;
    return `${this.prefix}${this.count}`;
  }

  /** The id this asker made last (undefined: none yet). */
  get last(): string | undefined {
    return this.count === 0 ? undefined : `${this.prefix}${this.count}`;
  }

  /** True when `id` is one this asker made (a host's echo of its own move). */
  isOwn(id: string | undefined): boolean {
    if (id === undefined || !id.startsWith(this.prefix)) return false;
    const n = id.slice(this.prefix.length);
    return /^[1-9]\d*$/.test(n) && Number(n) <= this.count;
  }
}

/** `{ moment }` for a message when a move named itself, else nothing (no `moment: undefined` on the wire). */
export function idOf(moment: string | undefined): { moment?: string } {
  return moment === undefined ? {} : { moment };
}
