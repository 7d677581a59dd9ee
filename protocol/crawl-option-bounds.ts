// The documented bounds of a crawl's numeric options, in one place for every door a value
// comes in by: the CLI's flags, the Crawler's options, the runtime host's launch options, the
// debug configuration and the VS Code settings (package.json's schema repeats them; a test
// keeps the two equal). A value outside them is refused with a message that names the option
// and its bounds, never clamped in silence and never let through to exhaust memory (1e30
// worker tasks once did).
//
// Invariants: pure data and one pure check; min <= default <= max for every bound.

export interface OptionBound {
  readonly min: number;
  readonly max: number;
  /** Whole numbers only (counts), or any finite number (seconds). */
  readonly integer: boolean;
}

export const CRAWL_OPTION_BOUNDS = {
  /** Worker tasks: each is a task with its own connection; 10,000 is far past any useful crawl. */
  maxTasks: { min: 1, max: 10_000, integer: true },
  maxRedirect: { min: 0, max: 100, integer: true },
  maxTries: { min: 1, max: 100, integer: true },
  /** URLs queued at most (0: no limit). */
  maxPages: { min: 0, max: 10_000_000, integer: true },
  maxDepth: { min: 0, max: 10_000, integer: true },
  /** Seconds per request: a day at most (Node's timers hold about 24 days). */
  timeout: { min: 0.001, max: 86_400, integer: false },
  /** Seconds the whole crawl may take (a week at most: Node's timers hold about 24 days). */
  deadline: { min: 0.001, max: 604_800, integer: false },
  /** Seconds before the CLI's task dump (0: at the first tick). */
  dumpTasksAfter: { min: 0, max: 604_800, integer: false },
  /** Pages of the embedded demo site. */
  demoPages: { min: 1, max: 100_000, integer: true },
} as const satisfies Record<string, OptionBound>;

export type CrawlOptionName = keyof typeof CRAWL_OPTION_BOUNDS;

/**
 * Why `value` is not an acceptable value for the option (`label` names it as the caller's
 * user knows it: `--max-tasks`, `options.maxTasks`), or null when it is.
 */
export function crawlOptionProblem(name: CrawlOptionName, value: unknown, label: string = name): string | null {
  const bound: OptionBound = CRAWL_OPTION_BOUNDS[name];
  const kind = bound.integer ? 'a whole number' : 'a number';
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (bound.integer && !Number.isInteger(value)) ||
    value < bound.min ||
    value > bound.max
  ) {
    return `${label} must be ${kind} from ${bound.min} to ${bound.max}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  }
  return null;
}
