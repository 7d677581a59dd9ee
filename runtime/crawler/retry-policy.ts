// Which failed fetches the crawler tries again, and why not the others. A retry costs a
// server's time and, for a timeout, the whole timeout again; it is only worth it when the
// next try can turn out differently.
//
// - Transient: the connection failed (refused, reset, broken pipe, lookup) or closed before
//   the response was complete. A restarting or overloaded server answers these differently a
//   moment later: retried up to maxTries.
// - Stalled: a connect, read or total deadline passed. A server that let a request sit for
//   the whole timeout usually does it again, and each try costs that timeout: tried
//   MAX_STALLED_TRIES times at most (so a stalled URL costs 2 × the timeout, not maxTries ×).
// - Deterministic: the server answered, and the answer is wrong (malformed status line or
//   header, bad chunking, a body or head over the limits, an undecodable body) or the URL
//   cannot be fetched at all. The same request gets the same bytes back: never retried.
//
// Invariants: pure; every error gets a verdict; `why` is a sentence the report shows.

import { IncompleteReadError } from '../errors';
import { HttpConnectionError, HttpProtocolError, HttpTimeoutError } from '../http/errors';

/** Tries of a URL whose server stalled (one retry for a passing hiccup). */
export const MAX_STALLED_TRIES = 2;

export type FailureKind = 'transient' | 'stalled' | 'deterministic';

export interface RetryVerdict {
  retry: boolean;
  kind: FailureKind;
  /** Why the URL is (not) tried again, for the report. */
  why: string;
}

/** The kind of a fetch failure (see the header). */
export function failureKind(error: unknown): FailureKind {
  if (error instanceof HttpTimeoutError) return 'stalled';
  if (error instanceof HttpConnectionError) return 'transient';
  // A response cut short by the connection closing (not a malformed one).
  if (error instanceof HttpProtocolError && error.cause instanceof IncompleteReadError) return 'transient';
  return 'deterministic';
}

/** Whether a URL that failed with `error` after `tries` tries is tried again. */
export function retryVerdict(error: unknown, tries: number, maxTries: number): RetryVerdict {
  const kind = failureKind(error);
  switch (kind) {
    case 'deterministic':
      return { retry: false, kind, why: 'not retried: the server would send the same answer again' };
    case 'stalled': {
      const limit = Math.min(maxTries, MAX_STALLED_TRIES);
      if (tries < limit) return { retry: true, kind, why: 'the server stalled: one more try' };
      return { retry: false, kind, why: `stalled ${tries === 1 ? 'once' : `${tries} times`}: a stalling server is tried ${limit === 1 ? 'once' : `${limit} times`} at most` };
    }
    case 'transient':
      if (tries < maxTries) return { retry: true, kind, why: 'a connection failure may pass: trying again' };
      return { retry: false, kind, why: `gave up after ${tries} ${tries === 1 ? 'try' : 'tries'}` };
  }
}
