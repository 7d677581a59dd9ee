// What the Exceptions tab shows, and in which order (issue 27): the run's own failures first
// (the URLs its crawl recorded as failed, the tasks that failed); the side-by-side coroutine
// traceback and callback trace of a failed URL when the run has one; the demonstration (a
// crawl of a failing page on a demo site of its own) only when asked by its button, which is
// offered only while the run has no failure at all. Pure: the view renders what it says.
//
// Invariants: the demonstration is never fetched by itself, never shown above a failure of
// the run, and its button disappears once the run fails; a pair that is not the run's own is
// asked for again once the run's failed URLs grow (the host then answers with the run's own).

export interface ExceptionsFacts {
  /** Tasks of the run that failed (the panel's exception list). */
  readonly taskFailures: number;
  /** URLs the run's crawl recorded as failed (the dashboard's error count). */
  readonly urlFailures: number;
  /** The trace pair the view holds: null when none; `own`: the run's failure (else the demonstration). */
  readonly pair: { readonly own: boolean } | null;
  /** The run's failed URLs when the pair was asked for. */
  readonly urlFailuresAtFetch: number;
  /** The user pressed the demonstration's button. */
  readonly demoAsked: boolean;
  /** A fetch is under way, or failed (its error shown). */
  readonly fetching: boolean;
}

export interface ExceptionsPlan {
  /** Ask the host for the trace pair now. */
  readonly fetchPair: boolean;
  /** Show the pair held (below the run's failures). */
  readonly showPair: boolean;
  /** Offer the demonstration's button. */
  readonly demoButton: boolean;
}

export function planExceptions(f: ExceptionsFacts): ExceptionsPlan {
  const runFailed = f.taskFailures > 0 || f.urlFailures > 0;
  const stale = f.pair !== null && !f.pair.own && f.urlFailures > f.urlFailuresAtFetch;
  const wanted = f.urlFailures > 0 || (f.demoAsked && !runFailed);
  return {
    fetchPair: !f.fetching && wanted && (f.pair === null || stale),
    showPair: f.pair !== null && (f.pair.own || (f.demoAsked && !runFailed)),
    demoButton: !runFailed && !f.demoAsked,
  };
}

/**
 * The run's exception entries in the tab's two lists, by their index in the run's list (the selection's): the
 * deadlocks (no task failed: they wait forever) and the tasks that failed.
 */
export function exceptionGroups(entries: readonly { readonly deadlock?: unknown }[]): {
  readonly deadlocks: number[];
  readonly failures: number[];
} {
  const deadlocks: number[] = [];
  const failures: number[] = [];
  entries.forEach((e, i) => (e.deadlock === undefined ? failures : deadlocks).push(i));
  return { deadlocks, failures };
}
