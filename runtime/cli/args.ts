// Command-line parsing for `coroscope`: turns argv into a typed command or a UsageError
// with a message that says what was wrong and how to get help. No side effects.

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Stage = 'callbacks' | 'generators' | 'coroutines';

export interface CrawlCommand {
  kind: 'crawl';
  roots: string[];
  demo: boolean;
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

export type Command = CrawlCommand | DemoSiteCommand | { kind: 'help'; topic?: string } | { kind: 'version' } | { kind: 'other'; name: string; args: string[] };

export const USAGE = `coroscope: a web crawler on generator coroutines, and an inspector for them

Usage:
  coroscope crawl <url>... [options]     crawl from the given root URLs
  coroscope crawl --demo [--pages N]     crawl the embedded demo site (works offline)
  coroscope demo-site [--port P] [--pages N]
                                         serve the demo site until interrupted
  coroscope trace --demo                 a failure's coroutine traceback beside its callback trace
  coroscope replay <file.corotrace>      re-run a recorded crawl offline (see Replay below)
  coroscope samples | sample <id> | compare [--pages N]
                                         the tutorial samples and the comparison of approaches
  coroscope --help | --version

Crawl options:
  --max-tasks N        worker tasks (default 100)
  --max-redirect N     redirects followed from one URL (default 10)
  --max-tries N        tries per URL (default 4)
  --exclude REGEX      do not crawl URLs matching REGEX
  --lenient            also crawl subdomains of the roots' hosts (default: strict)
  --max-pages N        stop queuing new URLs after N (default: no limit)
  --max-depth N        do not follow links deeper than N from a root
  --no-robots          ignore robots.txt
  --timeout SEC        total time allowed per request (default 30)
  --stage S            callbacks | generators | coroutines (default coroutines)
  --json               print one JSON object on stdout instead of the report
  --quiet              no live progress on stderr
  --inspect            track every coroutine frame (for the dumps below)
  --dump-tasks-after MS  print the tree of tasks and their frames at that moment
  --record FILE        record the run to FILE (a .corotrace) for \`coroscope replay\`

Replay (offline: the recorded inputs are fed back, the network is never used):
  coroscope replay FILE                  re-run a recording; prints the same report
  coroscope replay FILE --dump-tasks-at-tick N [--json]
                                         the tasks, their coroutine stacks and locals at tick N
`;

function intOption(name: string, value: string | undefined, min: number): number {
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} needs a whole number, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n < min) throw new UsageError(`${name} must be at least ${min}, got ${n}`);
  return n;
}

function numberOption(name: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} needs a positive number of seconds, got ${JSON.stringify(value)}`);
  return n;
}

export function parseArgs(argv: readonly string[]): Command {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') return { kind: 'help', topic: argv[1] };
  if (argv[0] === '--version' || argv[0] === '-v') return { kind: 'version' };
  const [name, ...rest] = argv;
  if (name === 'crawl') return parseCrawl(rest);
  if (name === 'demo-site') return parseDemoSite(rest);
  if (name!.startsWith('-')) throw new UsageError(`unknown option ${name}; the command comes first (coroscope crawl ...)`);
  return { kind: 'other', name: name!, args: rest };
}

function parseCrawl(args: string[]): CrawlCommand {
  const cmd: CrawlCommand = {
    kind: 'crawl',
    roots: [],
    demo: false,
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
    inspect: false,
    dumpTasksAfterMs: null,
    record: null,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string | undefined => (inline !== undefined ? inline : args[++i]);
    switch (flag) {
      case '--demo':
        cmd.demo = true;
        break;
      case '--pages':
        cmd.pages = intOption('--pages', value(), 1);
        break;
      case '--max-tasks':
        cmd.maxTasks = intOption('--max-tasks', value(), 1);
        break;
      case '--max-redirect':
        cmd.maxRedirect = intOption('--max-redirect', value(), 0);
        break;
      case '--max-tries':
        cmd.maxTries = intOption('--max-tries', value(), 1);
        break;
      case '--max-pages':
        cmd.maxPages = intOption('--max-pages', value(), 1);
        break;
      case '--max-depth':
        cmd.maxDepth = intOption('--max-depth', value(), 0);
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
        cmd.timeout = numberOption('--timeout', value());
        break;
      case '--stage': {
        const v = value();
        if (v !== 'callbacks' && v !== 'generators' && v !== 'coroutines') throw new UsageError(`--stage must be callbacks, generators or coroutines, got ${JSON.stringify(v ?? '')}`);
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
        if (v === undefined || v === '' || v.startsWith('-')) throw new UsageError('--record needs the name of the .corotrace file to write');
        cmd.record = v;
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${flag} for crawl (see coroscope --help)`);
        cmd.roots.push(arg);
    }
  }
  if (cmd.demo && cmd.roots.length > 0) throw new UsageError('give either root URLs or --demo, not both');
  if (cmd.record !== null && cmd.stage !== 'coroutines') throw new UsageError('--record records the coroutines stage (the runtime\'s loop); drop --stage or --record');
  if (!cmd.demo && cmd.roots.length === 0) throw new UsageError('crawl needs at least one root URL, or --demo for the embedded demo site');
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
        cmd.pages = intOption('--pages', args[++i], 1);
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
