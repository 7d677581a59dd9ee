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
  const cmd = parseArgs([
    'crawl',
    'http://a.test/',
    'b.test',
    '--max-tasks=7',
    '--max-redirect',
    '2',
    '--max-tries',
    '1',
    '--exclude',
    '\\.pdf$',
    '--lenient',
    '--max-pages',
    '50',
    '--max-depth',
    '3',
    '--no-robots',
    '--stage',
    'coroutines',
    '--json',
    '--timeout',
    '2.5',
    '--dump-tasks-after',
    '100',
  ]) as CrawlCommand;
  assert.deepEqual(cmd.roots, ['http://a.test/', 'b.test']);
  assert.equal(cmd.maxTasks, 7);
  assert.equal(cmd.maxRedirect, 2);
  assert.equal(cmd.maxTries, 1);
  assert.equal(cmd.exclude, '\\.pdf$');
  assert.equal(cmd.strict, false);
  assert.equal(cmd.maxPages, 50);
  assert.equal(cmd.maxDepth, 3);
  assert.equal(cmd.robots, false);
  assert.equal(cmd.stage, 'coroutines');
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
    [['crawl', '--demo', '--max-tasks', '0'], /--max-tasks must be a whole number from 1 to 10000, got 0/],
    [['crawl', '--demo', '--stage', 'threads'], /--stage must be/],
    [['crawl', '--demo', '--exclude', '('], /invalid regular expression/],
    [['crawl', '--demo', '--bogus'], /unknown option --bogus/],
    [['crawl', '--demo', '--timeout', '-1'], /--timeout must be a number from 0.001 to 86400, got -1/],
    [['demo-site', '--port', '70000'], /at most 65535/],
    [['--bogus'], /unknown option/],
  ];
  for (const [argv, message] of cases)
    assert.throws(
      () => parseArgs(argv),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      argv.join(' '),
    );
});

test('help, version and other commands', () => {
  assert.equal(parseArgs([]).kind, 'help');
  assert.equal(parseArgs(['--help']).kind, 'help');
  assert.equal(parseArgs(['--version']).kind, 'version');
  assert.deepEqual(parseArgs(['sample', 'generators']), { kind: 'other', name: 'sample', args: ['generators'] });
});

test('absurd numbers are refused with the documented bounds (1e30 workers once exhausted the heap)', () => {
  const cases: Array<[string[], RegExp]> = [
    [
      ['crawl', '--demo', '--max-tasks', '1e30'],
      /--max-tasks needs a whole number, got "1e30"|--max-tasks must be a whole number from 1 to 10000/,
    ],
    [['crawl', '--demo', '--max-tasks', '1000000'], /--max-tasks must be a whole number from 1 to 10000, got 1000000/],
    [['crawl', '--demo', '--max-tries', '101'], /--max-tries must be a whole number from 1 to 100, got 101/],
    [['crawl', '--demo', '--max-redirect', '1000'], /--max-redirect must be a whole number from 0 to 100/],
    [['crawl', '--demo', '--max-depth', '99999999'], /--max-depth must be a whole number from 0 to 10000/],
    [['crawl', '--demo', '--max-pages', '0'], /--max-pages must be at least 1/],
    [['crawl', '--demo', '--timeout', '1e30'], /--timeout must be a number from 0.001 to 86400/],
    [['crawl', '--demo', '--timeout', 'soon'], /--timeout needs a number, got "soon"/],
    [['crawl', '--demo', '--pages', '1000000000'], /--pages must be a whole number from 1 to 100000/],
  ];
  for (const [argv, message] of cases)
    assert.throws(
      () => parseArgs(argv),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      argv.join(' '),
    );
  assert.equal(
    (parseArgs(['crawl', '--demo', '--max-tasks', '10000']) as CrawlCommand).maxTasks,
    10000,
    'the bound itself is accepted',
  );
});

test('crawl --help is help, not an unknown option', () => {
  assert.deepEqual(parseArgs(['crawl', '--help']), { kind: 'help', topic: 'crawl' });
  assert.deepEqual(parseArgs(['crawl', 'http://x/', '-h']), { kind: 'help', topic: 'crawl' });
});

test('the teaching stages refuse options they cannot honour, and take the ones they can', () => {
  for (const stage of ['callbacks', 'generators']) {
    for (const [flag, value] of [
      ['--max-tasks', '5'],
      ['--max-tries', '2'],
      ['--dump-tasks-after', '10'],
    ] as const) {
      assert.throws(
        () => parseArgs(['crawl', '--demo', '--stage', stage, flag, value]),
        (e: unknown) =>
          e instanceof UsageError &&
          e.message.startsWith(`${flag} applies to --stage coroutines only: the ${stage} stage cannot honour it`),
        `${stage} ${flag}`,
      );
    }
    assert.throws(
      () => parseArgs(['crawl', '--demo', '--stage', stage, '--inspect']),
      /--inspect applies to --stage coroutines only/,
    );
    const cmd = parseArgs([
      'crawl',
      '--demo',
      '--stage',
      stage,
      '--max-depth',
      '1',
      '--timeout',
      '3',
      '--max-pages',
      '9',
    ]) as CrawlCommand;
    assert.deepEqual([cmd.maxDepth, cmd.timeout, cmd.maxPages, cmd.robots], [1, 3, 9, true]);
  }
});
