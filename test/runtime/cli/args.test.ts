import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs, UsageError, type CrawlCommand } from '../../../runtime/cli/args';

test('crawl defaults follow the chapter: 100 tasks, 10 redirects, 4 tries, strict, robots on', () => {
  const cmd = parseArgs(['crawl', '--demo']) as CrawlCommand;
  assert.equal(cmd.kind, 'crawl');
  assert.equal(cmd.demo, true);
  assert.equal(cmd.maxTasks, 100);
  assert.equal(cmd.maxRedirect, 10);
  assert.equal(cmd.maxTries, 4);
  assert.equal(cmd.strict, true);
  assert.equal(cmd.robots, true);
  assert.equal(cmd.stage, 'coroutines');
});

test('every crawl option is parsed, with --flag=value too', () => {
  const cmd = parseArgs(['crawl', 'http://a.test/', 'b.test', '--max-tasks=7', '--max-redirect', '2', '--max-tries', '1', '--exclude', '\\.pdf$', '--lenient', '--max-pages', '50', '--max-depth', '3', '--no-robots', '--stage', 'callbacks', '--json', '--timeout', '2.5', '--dump-tasks-after', '100']) as CrawlCommand;
  assert.deepEqual(cmd.roots, ['http://a.test/', 'b.test']);
  assert.equal(cmd.maxTasks, 7);
  assert.equal(cmd.maxRedirect, 2);
  assert.equal(cmd.maxTries, 1);
  assert.equal(cmd.exclude, '\\.pdf$');
  assert.equal(cmd.strict, false);
  assert.equal(cmd.maxPages, 50);
  assert.equal(cmd.maxDepth, 3);
  assert.equal(cmd.robots, false);
  assert.equal(cmd.stage, 'callbacks');
  assert.equal(cmd.json, true);
  assert.equal(cmd.timeout, 2.5);
  assert.equal(cmd.dumpTasksAfterMs, 100);
  assert.equal(cmd.inspect, true, '--dump-tasks-after turns inspection on');
});

test('bad arguments are UsageErrors that name the problem', () => {
  const cases: Array<[string[], RegExp]> = [
    [['crawl'], /at least one root URL/],
    [['crawl', '--demo', 'http://x/'], /not both/],
    [['crawl', '--demo', '--max-tasks', 'x'], /--max-tasks needs a whole number/],
    [['crawl', '--demo', '--max-tasks', '0'], /at least 1/],
    [['crawl', '--demo', '--stage', 'threads'], /--stage must be/],
    [['crawl', '--demo', '--exclude', '('], /invalid regular expression/],
    [['crawl', '--demo', '--bogus'], /unknown option --bogus/],
    [['crawl', '--demo', '--timeout', '-1'], /positive number/],
    [['demo-site', '--port', '70000'], /at most 65535/],
    [['--bogus'], /unknown option/],
  ];
  for (const [argv, message] of cases) assert.throws(() => parseArgs(argv), (e: unknown) => e instanceof UsageError && message.test(e.message), argv.join(' '));
});

test('help, version and other commands', () => {
  assert.equal(parseArgs([]).kind, 'help');
  assert.equal(parseArgs(['--help']).kind, 'help');
  assert.equal(parseArgs(['--version']).kind, 'version');
  assert.deepEqual(parseArgs(['sample', 'generators']), { kind: 'other', name: 'sample', args: ['generators'] });
});
