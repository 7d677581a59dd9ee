// The `coroscope` debug configurations as data: the initial ones written into a new
// launch.json, the snippets offered while editing it, the dynamic ones listed in Run and
// Debug, the attach configuration ("Debug This Run", or a run picked from a list), and the
// launch and attach attributes' JSON schemas. package.json's `contributes.debuggers`
// carries the same data (VS Code reads it from there before the extension runs); a unit test
// checks that the two agree, and `node extension/debug/write-contributions.mjs`
// rewrites package.json's copy.
//
// No vscode import: the provider (register.ts) and the tests use this module alike.

import { CRAWL_OPTION_BOUNDS, type CrawlOptionName } from '../../protocol/crawl-option-bounds';

/** The JSON schema bounds of a crawl option: its documented bounds (crawl-option-bounds.ts). */
function schemaBounds(name: CrawlOptionName): { minimum: number; maximum: number } {
  return { minimum: CRAWL_OPTION_BOUNDS[name].min, maximum: CRAWL_OPTION_BOUNDS[name].max };
}

/** A launch configuration as launch.json holds it. */
export interface CoroscopeConfiguration {
  type: 'coroscope';
  request: 'launch' | 'attach';
  name: string;
  [attribute: string]: unknown;
}

/**
 * The tutorial samples the runtime host can launch, as suggestions (the host's sample
 * registry, runtime/samples/index.ts, is the authority: a unit test checks this list
 * against it; the extension must not import the runtime).
 */
export const KNOWN_SAMPLES: ReadonlyArray<{ id: string; title: string }> = [
  { id: 'generators', title: 'Generator basics: send, return, yield*, throw' },
  { id: 'blocking', title: 'Blocking fetches, then pools of threads and processes' },
  { id: 'busy-nonblocking', title: 'A non-blocking socket and a busy retry loop' },
  { id: 'callbacks', title: 'The select loop with callbacks, and its ripped stack trace' },
  { id: 'future-task', title: 'Future + Task + a generator fetch, then factored with yield*' },
  { id: 'crawler', title: 'The full crawler: a queue, workers, redirects, cancellation' },
  { id: 'fib-threads', title: 'Printing on time while threads compute Fibonacci numbers' },
  { id: 'fib-loop', title: 'One loop blocked by CPU work, caught by the slow-callback warning' },
  { id: 'timers-loop', title: 'A callback event loop with a timer heap, built by hand' },
  { id: 'trampoline', title: 'A coroutine loop with explicit stacks (a trampoline)' },
  { id: 'exception-chain', title: 'An exception crossing coroutines A -> B -> C' },
  { id: 'gather-vs-ascompleted', title: 'gather against asCompleted' },
  { id: 'json-fetch', title: 'A JSON fetch over openConnection, HTTP by hand' },
];

export const DEMO_CRAWL: CoroscopeConfiguration = {
  type: 'coroscope',
  request: 'launch',
  name: 'Coroscope: crawl the demo site',
  crawl: 'demo',
  maxTasks: 10,
  stopOnEntry: false,
};

export const URL_CRAWL: CoroscopeConfiguration = {
  type: 'coroscope',
  request: 'launch',
  name: 'Coroscope: crawl a URL',
  crawl: 'http://localhost:8080/',
  maxTasks: 100,
  stopOnEntry: false,
};

export const SAMPLE_RUN: CoroscopeConfiguration = {
  type: 'coroscope',
  request: 'launch',
  name: 'Coroscope: run a tutorial sample',
  sample: 'future-task',
  stopOnEntry: true,
};

export const PROGRAM_RUN: CoroscopeConfiguration = {
  type: 'coroscope',
  request: 'launch',
  name: "Coroscope: run this module's main coroutine",
  program: '${file}',
  stopOnEntry: true,
};

/**
 * The command that lists the live runs and gives the key of the one picked (`${command:…}` in an attach
 * configuration).
 */
export const PICK_RUN_COMMAND = 'coroscope.pickRun';

/** Attaches to a run already going (the panel's crawl, a sample): the one picked from the live runs. */
export const ATTACH_RUN: CoroscopeConfiguration = {
  type: 'coroscope',
  request: 'attach',
  name: 'Coroscope: attach to a run',
  run: `\${command:${PICK_RUN_COMMAND}}`,
};

/** The configuration "Debug This Run" starts for a run of the registry. */
export function attachConfiguration(run: { key: number; title: string }): CoroscopeConfiguration {
  return { type: 'coroscope', request: 'attach', name: `Coroscope: run ${run.key}, ${run.title}`, run: run.key };
}

/** Written into a new launch.json. */
export const INITIAL_CONFIGURATIONS: readonly CoroscopeConfiguration[] = [DEMO_CRAWL, PROGRAM_RUN];

/**
 * What the configuration provider answers (register.ts). For a new launch.json ('initial'),
 * nothing: VS Code writes package.json's `initialConfigurations` (INITIAL_CONFIGURATIONS) and
 * appends whatever the provider gives (newLaunchJsonConfigurations), so giving them here too
 * wrote each configuration twice.
 */
export function providedConfigurations(
  trigger: 'initial' | 'dynamic',
  activeFileIsModule: boolean,
): CoroscopeConfiguration[] {
  return trigger === 'initial' ? [] : dynamicConfigurations(activeFileIsModule);
}

/**
 * The configurations "create a launch.json file" writes, put together as VS Code does: the contributed
 * initial ones, then the provider's.
 */
export function newLaunchJsonConfigurations(
  contributed: readonly CoroscopeConfiguration[],
  provided: readonly CoroscopeConfiguration[],
): CoroscopeConfiguration[] {
  return [...contributed, ...provided];
}

/** Dynamic configurations (the Run and Debug drop-down, "coroscope…"). */
export function dynamicConfigurations(activeFileIsModule: boolean): CoroscopeConfiguration[] {
  const out: CoroscopeConfiguration[] = [DEMO_CRAWL];
  if (activeFileIsModule) out.push(PROGRAM_RUN);
  out.push(ATTACH_RUN);
  for (const s of KNOWN_SAMPLES)
    out.push({
      type: 'coroscope',
      request: 'launch',
      name: `Coroscope sample: ${s.title}`,
      sample: s.id,
      stopOnEntry: true,
    });
  return out;
}

/** A launch.json snippet (package.json's configurationSnippets format: `body` is what is inserted). */
export interface ConfigurationSnippet {
  label: string;
  description: string;
  body: Record<string, unknown>;
}

export const CONFIGURATION_SNIPPETS: readonly ConfigurationSnippet[] = [
  {
    label: 'Coroscope: Crawl the demo site',
    description: 'Crawl the embedded demo website, with its tasks as threads.',
    body: {
      type: 'coroscope',
      request: 'launch',
      name: 'Coroscope: crawl the demo site',
      crawl: 'demo',
      maxTasks: 10,
      stopOnEntry: false,
    },
  },
  {
    label: 'Coroscope: Crawl a URL',
    description: "Crawl a website with the chapter's crawler (maxTasks workers).",
    body: {
      type: 'coroscope',
      request: 'launch',
      name: 'Coroscope: crawl ${1:a site}',
      crawl: '${2:http://localhost:8080/}',
      maxTasks: 100,
      stopOnEntry: false,
    },
  },
  {
    label: 'Coroscope: Run a tutorial sample',
    description: 'Run one of the tutorial samples, stopped before its first tick.',
    body: {
      type: 'coroscope',
      request: 'launch',
      name: 'Coroscope: sample ${1:future-task}',
      sample: '${1:future-task}',
      stopOnEntry: true,
    },
  },
  {
    label: "Coroscope: Run a module's main coroutine",
    description: 'Run a TypeScript or JavaScript module that exports a main coroutine function.',
    body: {
      type: 'coroscope',
      request: 'launch',
      name: 'Coroscope: run ${1:main}',
      program: '^"\\${workspaceFolder}/${2:src/main.ts}"',
      exportName: '${1:main}',
      stopOnEntry: true,
    },
  },
  {
    label: 'Coroscope: Attach to a run',
    description:
      'Debug a run started from the Coroscope panel or the command palette (a pick list when several are live).',
    body: {
      type: 'coroscope',
      request: 'attach',
      name: 'Coroscope: attach to a run',
      run: `^"\\\${command:${PICK_RUN_COMMAND}}"`,
    },
  },
];

/** JSON schema of the attach attributes (package.json's configurationAttributes.attach). */
export const ATTACH_ATTRIBUTES = {
  properties: {
    run: {
      type: ['integer', 'string'],
      default: `\${command:${PICK_RUN_COMMAND}}`,
      description:
        'The run to debug: its number (the panel and "Coroscope: Debug This Run" name it), or "${command:coroscope.pickRun}" to pick one of the runs (live, or finished and recorded: then stopped at the tick the views show, to step back through). Without it: the only such run.',
    },
  },
} as const;

/** JSON schema of the launch attributes (package.json's configurationAttributes.launch). */
export const LAUNCH_ATTRIBUTES = {
  properties: {
    crawl: {
      type: ['string', 'array'],
      items: { type: 'string' },
      description:
        'What to crawl: a URL (or a list of root URLs), or "demo" for the embedded demo website. Exactly one of crawl, sample, program.',
    },
    sample: {
      type: 'string',
      enum: KNOWN_SAMPLES.map((s) => s.id),
      enumDescriptions: KNOWN_SAMPLES.map((s) => s.title),
      description: 'A tutorial sample to run (its id). Exactly one of crawl, sample, program.',
    },
    program: {
      type: 'string',
      description:
        'A TypeScript or JavaScript module exporting a main coroutine function (a generator function wrapped with coroutine()). Exactly one of crawl, sample, program.',
    },
    exportName: {
      type: 'string',
      default: 'main',
      description: 'The export of "program" to run as the main coroutine.',
    },
    maxTasks: {
      type: 'integer',
      ...schemaBounds('maxTasks'),
      default: 100,
      description: 'Crawler worker tasks (each one is a thread in the Call Stack view).',
    },
    maxRedirect: {
      type: 'integer',
      ...schemaBounds('maxRedirect'),
      default: 10,
      description: 'Redirects followed from one URL.',
    },
    maxTries: {
      type: 'integer',
      ...schemaBounds('maxTries'),
      default: 4,
      description:
        'Tries per URL: connection failures up to this many, a stalled server twice at most, a malformed answer once.',
    },
    exclude: { type: 'string', description: 'A regular expression: URLs matching it are not crawled.' },
    strict: {
      type: 'boolean',
      default: true,
      description: "Strict host matching (only the roots' hosts); false also follows subdomains.",
    },
    robots: { type: 'boolean', default: true, description: 'Respect robots.txt.' },
    pages: {
      type: 'integer',
      ...schemaBounds('demoPages'),
      description: 'Number of content pages of the demo site (crawl: "demo" only).',
    },
    demoLatency: {
      type: 'string',
      enum: ['realistic', 'instant'],
      default: 'realistic',
      enumDescriptions: [
        'Every response 100-800 ms late, pages of 24 KiB: a crawl lasts long enough to pause it.',
        'Answers at once with small pages: for benchmarks and tests.',
      ],
      description: 'How the demo site answers (crawl: "demo" only).',
    },
    inspect: {
      type: 'boolean',
      default: true,
      description: 'Track coroutine frames (stacks, locals, line breakpoints). Off: only task summaries, for speed.',
    },
    record: {
      type: 'boolean',
      default: true,
      description:
        "Record the run (clock, socket inputs, every task step) so Step Back, Reverse Continue and the panel's timeline can replay any past tick. Default: the coroscope.record setting (on).",
    },
    stopOnEntry: { type: 'boolean', default: false, description: "Stop before the event loop's first tick." },
    stopAtEnd: {
      type: 'boolean',
      default: true,
      description:
        'When the recorded run finishes, stop at its last tick instead of ending the session: Step Back and Reverse Continue go through its past; Continue or Stop then ends the session. Ignored when "record" is off.',
    },
    lineStepMode: {
      type: 'string',
      enum: ['stayWithTask', 'followLoop'],
      default: 'stayWithTask',
      enumDescriptions: [
        "Step over a yield* that suspends lands on the same task's next line, once the loop resumes it.",
        'Step over a yield* that suspends lands on the next line the loop runs, in whichever task it resumes next.',
      ],
      description:
        'Where a line step (F10) over a yield* that suspends its task lands. The Debug Console says which task suspended and which one the loop runs.',
    },
    cwd: {
      type: 'string',
      default: '${workspaceFolder}',
      description: 'Working directory of the runtime host; a relative "program" is resolved against it.',
    },
  },
} as const;

/** The `contributes.debuggers` entry of package.json. */
export function debuggerContribution(): Record<string, unknown> {
  return {
    type: 'coroscope',
    label: 'Coroscope (generator coroutines)',
    languages: ['typescript', 'javascript'],
    configurationAttributes: { launch: LAUNCH_ATTRIBUTES, attach: ATTACH_ATTRIBUTES },
    initialConfigurations: INITIAL_CONFIGURATIONS,
    configurationSnippets: CONFIGURATION_SNIPPETS,
  };
}
