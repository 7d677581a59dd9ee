// A program's file writes and its past (outside-effects.ts): the file-writer program appends, writes
// through an fd, makes temporary directories and catches a failed write, in its task and at its top
// level. Looking at its past (a Step Back at a live stop, a logpoint's list there and after the end, a
// seek) replays it: its files stay as the live run left them, and the past's values (the bytes written,
// the directories' names, the error's text) are those the live logpoint printed. Runs against the bundle.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Breakpoint } from '../../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const PROGRAM = join(ROOT, 'test', 'extension', 'debug', 'fixtures', 'file-writer.ts');
const OUT = join(tmpdir(), 'coroscope-file-writer');
const ROUND_END = lineOf(PROGRAM, "made.push(`${wrote} ${dir} ${failed}`); // the round's outcomes");
const ROUND_START = lineOf(PROGRAM, 'appendFileSync(LOG, `round ${round}\\n`);');

/** What the program's files are now: the log's text and the temporary directories. */
function files(): string {
  const dirs = readdirSync(OUT).filter((f) => f.startsWith('tmp-'));
  return `${readFileSync(join(OUT, 'log.txt'), 'utf8')}| ${dirs.sort().join(' ')}`;
}

describe("a program's file writes, live and in its past (bundle)", { timeout: 120_000 }, () => {
  let host: HostClient;
  before(() => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
    rmSync(OUT, { recursive: true, force: true });
  });

  test('looking at the past writes no file again; its values are the live ones', async () => {
    const logpoint: Breakpoint = { file: PROGRAM, line: ROUND_END, logMessage: 'past|{wrote} {dir} {failed}' };
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    await host.rpc.request('setBreakpoints', {
      file: PROGRAM,
      breakpoints: [logpoint, { file: PROGRAM, line: ROUND_START }],
    });
    // Round 3's start: rounds 1 and 2 written, their lines printed by the live logpoint.
    for (let i = 0; i < 3; i++) assert.equal((await host.continueToLineStop(30_000)).line?.line, ROUND_START);
    const printed = (): string[] =>
      host
        .output('stdout')
        .split('\n')
        .filter((l) => l.startsWith('past|'));
    const live = printed();
    assert.equal(live.length, 2);
    assert.match(live[0]!, /^past\|5 \S+tmp-\w{6} ENOENT: no such file or directory, open '\S+missing\/x1'$/);
    const atStop = files();
    assert.equal(atStop.split('\n').filter((l) => l.startsWith('round')).length, 2);

    // A Step Back replays the stop's tick; a list replays the run so far; a seek replays in the live host.
    const back = host.events.length;
    await host.rpc.request('lineStepBack', {});
    assert.equal((await host.waitFor('paused', () => true, 30_000, back)).pastLine, true);
    const listed = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    assert.deepEqual(
      listed.hits.map((h) => h.message),
      live,
    );
    await host.rpc.request('seekTick', { tick: 2 });
    await host.rpc.request('seekTick', { tick: null });
    assert.equal(files(), atStop, 'the files as the live run left them at the stop');

    // On to the end: the run's own writes go on; a list of the finished run writes nothing.
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [logpoint] });
    const from = host.events.length;
    await host.rpc.request('continue', {});
    const finished = await host.waitFor('finished', () => true, 30_000, from);
    assert.equal(finished.ok, true, finished.summary);
    const ended = files();
    assert.equal(ended.split('\n').filter((l) => l.startsWith('round')).length, 3);
    assert.equal(ended.split('\n').filter((l) => l === 'loaded').length, 1, 'the top level wrote once');
    const whole = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    assert.deepEqual(
      whole.hits.map((h) => h.message),
      printed(),
    );
    assert.equal(printed().length, 3);
    assert.equal(files(), ended);
  });
});
