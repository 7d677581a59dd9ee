// Command-line parsing for `coroscope`: turns argv into a typed command or a UsageError
// with a message that says what was wrong and how to get help. No side effects.
// Numbers are checked against the documented bounds of protocol/crawl-option-bounds.ts.
// An option that the chosen --stage cannot honour is refused, never ignored: the teaching
// stages (callbacks, generators) have no worker pool and no retries, and nothing to inspect.

import { CRAWL_OPTION_BOUNDS, crawlOptionProblem, type CrawlOptionName } from '../../protocol/crawl-option-bounds';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Stage = 'callbacks' | 'generators' | 'coroutines';

export interface CrawlCommand {
  kind: 'crawl';
  roots: string[];
  demo: boolean;
  /** The demo site answers at once (no network-like latency): for benchmarks and tests. */
  instant: boolean;
  pages: number;
  maxTasks: number;
  maxRedirect: number;
  maxTries: number;
  exclude: string | null;
  strict: boolean;
  maxPages: number;
  maxDepth: number | null;
  robots: boolean;
  stage: Stage;
  json: boolean;
  quiet: boolean;
  timeout: number;
  /** Seconds the whole crawl may take: then it is cancelled (attributed to the crawl deadline) and reported. */
  deadline: number | null;
  inspect: boolean;
  dumpTasksAfterMs: number | null;
  /** Record the run to this .corotrace file (coroutines stage only). */
  record: string | null;
}

export interface DemoSiteCommand {
  kind: 'demo-site';
  port: number;
  pages: number;
  latencyMs: number;
  faults: boolean;
}

export type Command =
  | CrawlCommand
  | DemoSiteCommand
  | { kind: 'help'; topic?: string }
  | { kind: 'version' }
  | { kind: 'other'; name: string; args: string[] };

export const USAGE = `coroscope: a web crawler on generator coroutines, and an inspector for them

Usage:
  coroscope crawl <url>... [options]     crawl from the given root URLs
  coroscope crawl --demo [--pages N] [--instant]
                                         crawl the embedded demo site (works offline; it
                                         answers with a network's latency, or at once with --instant)
  coroscope demo-site [--port P] [--pages N]
                                         serve the demo site until interrupted
  coroscope trace --demo                 a failure's coroutine traceback beside its callback trace
  coroscope replay <file.corotrace>      re-run a recorded crawl offline (see Replay below)
  coroscope run <program.js|.ts> [--record FILE] [--inspect] [--export NAME] [-- ARGS...]
                                         run your own coroutine program (see Run below)
  coroscope ps <PID>                     the task table of a process started with --inspect
  coroscope pstree <PID>                 its tasks as a tree (who awaits whom) with their coroutine stacks
  coroscope samples | sample <id> | compare [--pages N]
                                         the tutorial samples and the comparison of approaches
  coroscope --help | --version

Crawl options:
  --max-tasks N        worker tasks, 1 to 10000 (default 100; coroutines stage only)
  --max-redirect N     redirects followed from one URL, 0 to 100 (default 10)
  --max-tries N        tries per URL, 1 to 100 (default 4; coroutines stage only). Only
                       failures that can pass are retried: connection errors up to N
                       tries, a stalled server twice at most, a malformed answer never
  --exclude REGEX      do not crawl URLs matching REGEX
  --lenient            also crawl subdomains of the roots' hosts (default: strict)
  --max-pages N        stop queuing new URLs after N (default: no limit)
  --max-depth N        do not follow links deeper than N from a root
  --no-robots          ignore robots.txt (a robots.txt answering 5xx disallows everything)
  --timeout SEC        total time allowed per request, up to 86400 (default 30)
  --deadline SEC       time allowed for the whole crawl, up to 604800: then it is
                       cancelled and the report lists what was done (exit 124;
                       coroutines stage only). SIGINT and SIGTERM end it likewise
                       (exit 130, 143)
  --stage S            callbacks | generators | coroutines (default coroutines)
  --json               print one JSON object on stdout instead of the report
  --quiet              no live progress on stderr
  --inspect            track every coroutine frame (for the dumps below; coroutines stage)
                       and answer \`coroscope ps/pstree PID\` on a socket only you can open
  --dump-tasks-after MS  print the tree of tasks and their frames at that moment (at Ctrl-C
                       if it comes first: then the dump says who cancelled what)
  --record FILE        record the run to FILE (a .corotrace) for \`coroscope replay\`
  --help               this text

Run (a module that calls run(main()) itself, or exports its main coroutine function):
  --inspect            answer \`coroscope ps PID\` and \`pstree PID\` from another terminal
  --record FILE        record the program's first run() for \`coroscope replay FILE\`
  --export NAME        the exported main coroutine function (default main)
  Output and exit status are the program's; a failure of its run() is printed as a coroutine
  traceback (exit 1). \`import ... from "coroscope"\` gets this runtime.

Replay (offline: the recorded inputs are fed back, the network is never used):
  coroscope replay FILE [--json]         re-run a recording; prints the same report (a
                                         \`coroscope run\` recording: re-runs the program)
                                         (--json: the crawl's JSON object, as crawl --json)
  coroscope replay FILE --dump-tasks-at-tick N [--json]
                                         the tasks, their coroutine stacks and locals at tick N
  coroscope replay FILE --log FILE:LINE[:"message {expr}"] [--log ...] [--json]
                                         logpoints in the past: every execution of each line
                                         over the whole run, in order (tick, time, task, the
                                         message with {expr} evaluated there), by replay
  Ctrl-C or SIGTERM stops a replay where it is (exit 130 or 143): it says at which tick, and
  prints no report or dump (a replay cut short is not the recorded run).
`;

function intOption(name: string, value: string | undefined, min: number): number {
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} needs a whole number, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n < min) throw new UsageError(`${name} must be at least ${min}, got ${n}`);
  return n;
}

/** A number within the documented bounds of `bound` (see crawl-option-bounds.ts). */
function boundedOption(flag: string, value: string | undefined, bound: CrawlOptionName): number {
  if (value === undefined) throw new UsageError(`${flag} needs a value`);
  const n = value.trim() === '' ? NaN : Number(value);
  const problem = crawlOptionProblem(bound, n, flag);
  if (problem !== null)
    throw new UsageError(
      Number.isNaN(n)
        ? `${flag} needs ${CRAWL_OPTION_BOUNDS[bound].integer ? 'a whole number' : 'a number'}, got ${JSON.stringify(value)}`
        : problem,
    );
  return n;
}

/** Options only the coroutines stage has (the teaching stages start a fetch per URL, once). */
const COROUTINES_ONLY: Readonly<Record<string, string>> = {
  '--max-tasks': "they start one fetch per URL, with no worker pool (as the chapter's)",
  '--max-tries': 'they try each URL once',
  '--inspect': 'they do not run on the inspected runtime',
  '--dump-tasks-after': 'they do not run on the inspected runtime',
  '--deadline': 'they have no crawl task to cancel',
};

export function parseArgs(argv: readonly string[]): Command {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')
    return { kind: 'help', topic: argv[1] };
  if (argv[0] === '--version' || argv[0] === '-v') return { kind: 'version' };
  const [name, ...rest] = argv;
  if (name === 'crawl')
    return rest.includes('--help') || rest.includes('-h') ? { kind: 'help', topic: 'crawl' } : parseCrawl(rest);
  if (name === 'demo-site') return parseDemoSite(rest);
  if (name!.startsWith('-'))
    throw new UsageError(`unknown option ${name}; the command comes first (coroscope crawl ...)`);
  return { kind: 'other', name: name!, args: rest };
}

function parseCrawl(args: string[]): CrawlCommand {
  const cmd: CrawlCommand = {
    kind: 'crawl',
    roots: [],
    demo: false,
    instant: false,
    pages: 200,
    maxTasks: 100,
    maxRedirect: 10,
    maxTries: 4,
    exclude: null,
    strict: true,
    maxPages: 0,
    maxDepth: null,
    robots: true,
    stage: 'coroutines',
    json: false,
    quiet: false,
    timeout: 30,
    deadline: null,
    inspect: false,
    dumpTasksAfterMs: null,
    record: null,
  };
  const given = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    given.add(flag);
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string | undefined => (inline !== undefined ? inline : args[++i]);
    switch (flag) {
      case '--demo':
        cmd.demo = true;
        break;
      case '--pages':
        cmd.pages = boundedOption('--pages', value(), 'demoPages');
        break;
      case '--instant':
        cmd.instant = true;
        break;
      case '--max-tasks':
        cmd.maxTasks = boundedOption('--max-tasks', value(), 'maxTasks');
        break;
      case '--max-redirect':
        cmd.maxRedirect = boundedOption('--max-redirect', value(), 'maxRedirect');
        break;
      case '--max-tries':
        cmd.maxTries = boundedOption('--max-tries', value(), 'maxTries');
        break;
      case '--max-pages':
        cmd.maxPages = boundedOption('--max-pages', value(), 'maxPages');
        if (cmd.maxPages === 0) throw new UsageError('--max-pages must be at least 1 (leave it out for no limit)');
        break;
      case '--max-depth':
        cmd.maxDepth = boundedOption('--max-depth', value(), 'maxDepth');
        break;
      case '--exclude': {
        const v = value();
        if (v === undefined) throw new UsageError('--exclude needs a regular expression');
        try {
          new RegExp(v);
        } catch (e) {
          throw new UsageError(`--exclude: invalid regular expression: ${(e as Error).message}`);
        }
        cmd.exclude = v;
        break;
      }
      case '--lenient':
        cmd.strict = false;
        break;
      case '--strict':
        cmd.strict = true;
        break;
      case '--no-robots':
        cmd.robots = false;
        break;
      case '--timeout':
        cmd.timeout = boundedOption('--timeout', value(), 'timeout');
        break;
      case '--deadline':
        cmd.deadline = boundedOption('--deadline', value(), 'deadline');
        break;
      case '--stage': {
        const v = value();
        if (v !== 'callbacks' && v !== 'generators' && v !== 'coroutines')
          throw new UsageError(`--stage must be callbacks, generators or coroutines, got ${JSON.stringify(v ?? '')}`);
        cmd.stage = v;
        break;
      }
      case '--json':
        cmd.json = true;
        break;
      case '--quiet':
      case '-q':
        cmd.quiet = true;
        break;
      case '--inspect':
        cmd.inspect = true;
        break;
      case '--dump-tasks-after':
        cmd.dumpTasksAfterMs = intOption('--dump-tasks-after', value(), 0);
        cmd.inspect = true;
        break;
      case '--record': {
        const v = value();
        if (v === undefined || v === '' || v.startsWith('-'))
          throw new UsageError('--record needs the name of the .corotrace file to write');
        cmd.record = v;
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${flag} for crawl (see coroscope --help)`);
        cmd.roots.push(arg);
    }
  }
  if (cmd.demo && cmd.roots.length > 0) throw new UsageError('give either root URLs or --demo, not both');
  if (cmd.record !== null && cmd.stage !== 'coroutines')
    throw new UsageError("--record records the coroutines stage (the runtime's loop); drop --stage or --record");
  if (cmd.instant && !cmd.demo) throw new UsageError('--instant is for the embedded demo site: add --demo');
  if (!cmd.demo && cmd.roots.length === 0)
    throw new UsageError('crawl needs at least one root URL, or --demo for the embedded demo site');
  if (cmd.stage !== 'coroutines') {
    for (const flag of Object.keys(COROUTINES_ONLY)) {
      if (given.has(flag))
        throw new UsageError(
          `${flag} applies to --stage coroutines only: the ${cmd.stage} stage cannot honour it (${COROUTINES_ONLY[flag]})`,
        );
    }
  }
  return cmd;
}

function parseDemoSite(args: string[]): DemoSiteCommand {
  const cmd: DemoSiteCommand = { kind: 'demo-site', port: 8080, pages: 200, latencyMs: 0, faults: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    switch (arg) {
      case '--port':
        cmd.port = intOption('--port', args[++i], 0);
        if (cmd.port > 65535) throw new UsageError(`--port must be at most 65535, got ${cmd.port}`);
        break;
      case '--pages':
        cmd.pages = boundedOption('--pages', args[++i], 'demoPages');
        break;
      case '--latency':
        cmd.latencyMs = intOption('--latency', args[++i], 0);
        break;
      case '--faults':
        cmd.faults = true;
        break;
      default:
        throw new UsageError(`unknown option ${arg} for demo-site (see coroscope --help)`);
    }
  }
  return cmd;
}
