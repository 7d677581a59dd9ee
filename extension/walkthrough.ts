// The "Coroscope: Coroutines step by step" walkthrough (package.json `contributes.walkthroughs`):
// the names both sides agree on. Its first step runs the demo crawl and completes once a paused
// worker's coroutine stack was shown (WORKER_STACK_SHOWN_KEY); then one step per tutorial sample,
// complete once the sample was stepped (or ran to its end, for samples with no task on the loop).
// No vscode import, so test/extension/walkthrough.test.ts checks package.json against it.
//
// Invariant: a context key is the sample id in camel case (`busy-nonblocking` →
// `coroscope.stepped.busyNonblocking`), so a `when` expression reads it as one identifier.

export const WALKTHROUGH_ID = 'coroscope.tutorial';

/** The first step's id: run the demo crawl, pause it, look at a worker's coroutine stack. */
export const CRAWL_STEP_ID = 'crawl-pause-look';
/** The walkthrough's last step: a program of your own (its button runs coroscope.newProgram; done once it ran). */
export const OWN_PROGRAM_STEP_ID = 'own-program';

/** Set once the panel showed a crawl worker's coroutine stack while the crawl was paused. */
export const WORKER_STACK_SHOWN_KEY = 'coroscope.workerStackShown';

/**
 * Whether a task detail the panel just showed completes the first step: the run is a crawl
 * (the demo site or URLs), paused, and the task is one of its workers with frames to show.
 */
export function showsPausedWorkerStack(
  target: { readonly kind: string } | null,
  phase: string,
  detail: { readonly task: { readonly name: string }; readonly frames: readonly unknown[] },
): boolean {
  return (
    (target?.kind === 'demo' || target?.kind === 'crawl') &&
    phase === 'paused' &&
    /^worker-\d+$/.test(detail.task.name) &&
    detail.frames.length > 0
  );
}

export type SteppedContextKey = `coroscope.stepped.${string}`;

/** The context key set once the sample `id` ran paused and was stepped (or ran with nothing to step). */
export function steppedContextKey(id: string): SteppedContextKey {
  return `coroscope.stepped.${id.replace(/-+([a-z0-9])/gi, (_m, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '')}`;
}

/** The sample id a walkthrough link passes: the string itself, or `{id}`. */
export function sampleIdArg(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg !== '') return arg;
  if (typeof arg === 'object' && arg !== null) {
    const id = (arg as Record<string, unknown>).id;
    if (typeof id === 'string' && id !== '') return id;
  }
  return undefined;
}

/**
 * The editor column for a sample's source opened from the walkthrough: beside the
 * walkthrough (`active`), and never the inspector panel's column (`panel`), which would hide one of them.
 */
export function besideColumn(active: number | undefined, panel: number | undefined): number {
  const from = active ?? 1;
  for (let c = from + 1; c <= 9; c++) if (c !== panel) return c;
  for (let c = 1; c < from; c++) if (c !== panel) return c;
  return from;
}
