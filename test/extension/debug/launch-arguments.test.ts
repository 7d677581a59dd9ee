// Unit tests of extension/debug/launch-arguments.ts: launch.json attributes → the host's
// LaunchTarget and LaunchOptions, and the messages for what is wrong.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLaunchArguments, type ParsedLaunch } from '../../../extension/debug/launch-arguments';

function ok(raw: unknown, cwd = '/work/ws'): ParsedLaunch {
  const r = parseLaunchArguments(raw, cwd);
  if ('error' in r) assert.fail(r.error);
  return r;
}

function error(raw: unknown): string {
  const r = parseLaunchArguments(raw, '/work/ws');
  assert.ok('error' in r, `expected an error for ${JSON.stringify(raw)}`);
  return r.error;
}

describe('launch arguments', () => {
  it('crawl "demo" is the demo site, always held at entry for the adapter', () => {
    const r = ok({ type: 'coroscope', request: 'launch', name: 'x', crawl: 'demo', maxTasks: 10 });
    assert.deepEqual(r.target, { kind: 'demo' });
    // Recorded by default (Step Back replays the recording).
    assert.deepEqual(r.options, { stopOnEntry: true, maxTasks: 10, record: true });
    assert.equal(r.stopOnEntry, false);
    assert.deepEqual(ok({ crawl: 'DEMO', pages: 50 }).target, { kind: 'demo', pages: 50 });
  });

  it('crawl a URL or several', () => {
    assert.deepEqual(ok({ crawl: 'http://example.com/' }).target, { kind: 'crawl', urls: ['http://example.com/'] });
    assert.deepEqual(ok({ crawl: ['a.example', ' b.example '] }).target, {
      kind: 'crawl',
      urls: ['a.example', 'b.example'],
    });
  });

  it('sample and program (a relative program is made absolute against cwd)', () => {
    assert.deepEqual(ok({ sample: 'future-task', stopOnEntry: true }).target, { kind: 'sample', id: 'future-task' });
    assert.equal(ok({ sample: 'x', stopOnEntry: true }).stopOnEntry, true);
    assert.deepEqual(ok({ program: 'src/main.ts' }).target, { kind: 'program', path: '/work/ws/src/main.ts' });
    assert.deepEqual(ok({ program: 'main.ts', cwd: 'sub', exportName: 'go' }).target, {
      kind: 'program',
      path: '/work/ws/sub/main.ts',
      exportName: 'go',
    });
    assert.equal(ok({ program: '/abs/m.js' }).cwd, undefined);
    assert.equal(ok({ program: 'm.js', cwd: '/elsewhere' }).cwd, '/elsewhere');
  });

  it('passes the crawler and inspection options through', () => {
    const r = ok({
      crawl: 'demo',
      maxRedirect: 0,
      maxTries: 2,
      exclude: '\\.png$',
      strict: false,
      robots: false,
      inspect: false,
      record: false,
    });
    assert.deepEqual(r.options, {
      stopOnEntry: true,
      maxRedirect: 0,
      maxTries: 2,
      exclude: '\\.png$',
      strict: false,
      robots: false,
      inspect: false,
      record: false,
    });
  });

  it('says what is wrong', () => {
    assert.equal(
      error({ maxTasks: 3 }),
      'say what to run: "crawl" (a URL or "demo"), "sample" (a tutorial sample id) or "program" (a module exporting a main coroutine)',
    );
    assert.equal(
      error({ crawl: 'demo', sample: 'x' }),
      'give only one of "crawl", "sample", "program" (this configuration has "crawl" and "sample")',
    );
    assert.equal(error({ crawl: 42 }), '"crawl" must be a URL, a list of URLs or "demo", got number');
    assert.equal(error({ crawl: [] }), '"crawl" must name at least one URL (or "demo")');
    assert.equal(error({ crawl: ['demo', 'http://x/'] }), '"demo" cannot be mixed with URLs in "crawl"');
    assert.equal(error({ crawl: 'demo', maxTasks: 0 }), '"maxTasks" must be a whole number from 1 to 10000, got 0');
    assert.equal(
      error({ crawl: 'demo', maxTasks: 1e30 }),
      '"maxTasks" must be a whole number from 1 to 10000, got 1e+30',
    );
    assert.equal(
      error({ crawl: 'demo', pages: 1e9 }),
      '"pages" must be a whole number from 1 to 100000, got 1000000000',
    );
    assert.equal(error({ crawl: 'demo', maxTasks: 2.5 }), '"maxTasks" must be an integer, got number');
    assert.equal(error({ crawl: 'demo', stopOnEntry: 'yes' }), '"stopOnEntry" must be true or false, got "yes"');
    assert.match(error({ crawl: 'demo', exclude: '(' }), /not a regular expression/);
    assert.equal(error({ program: '  ' }), '"program" must be the path of a module exporting a main coroutine');
    assert.equal(error(null), 'the launch arguments must be an object');
  });
});
