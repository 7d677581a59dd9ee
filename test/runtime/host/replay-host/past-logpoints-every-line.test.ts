// Logpoints in the past, every line at once: the oracle is the live run. A logpoint on every code line
// of the samples' files (of the crawler for a demo crawl, of a user's program), set as VS Code's adapter sets them
// (`yieldLines: 'before'`), prints live the tick and task it ran in and its place; once the run has
// finished, the same logpoints asked of the past list the same lines in the same order with the same
// ticks and tasks: the replay runs the program's code the way it ran, line for line; asked at live stops
// on the way, what it printed so far, up to the stop in its own tick. Code no task runs
// (before or after the loop's ticks) is not in the recording, and is left out of the live lines. An
// error's `stack` text is the same too (the loop's ticks start from Node's immediates, live and replayed).
// Runs against the bundle.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Breakpoint, HostEvents } from '../../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { distBundle } from '../../../dist-bundles';
import { lineOf } from '../../../source-line';

const BUNDLE = distBundle('runtime-host.js');
const SAMPLES = join(ROOT, 'runtime', 'samples');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
/** Users' programs, as the debug adapter's tests run them. */
const PROGRAMS = join(ROOT, 'test', 'extension', 'debug', 'fixtures');

/** The live loop's tick and task at the hit, then the place. */
const WHERE = '{globalThis.__coroscopeLine.where().tick}/{globalThis.__coroscopeLine.where().taskId}|';
const HIT = /^\d+\/(\d+|null)\|/;

/** The lines of `file` with code on them (not blank, a comment or an import). */
function codeLines(file: string): number[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, i) => (/^\s*($|\/\/|\/\*|\*|import )/.test(text) ? [] : [i + 1]));
}

const SAMPLE_FILES = readdirSync(SAMPLES)
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
  .map((f) => join(SAMPLES, f));

interface Case {
  name: string;
  launch: { target: Record<string, unknown>; options: Record<string, unknown> };
  files: readonly string[];
  /** At least this many hits in the loop's ticks. */
  atLeast: number;
}

/** What a run's logpoints printed live (its lines in tasks), and the past's list of the same logpoints. */
interface LiveAndPast {
  live: string[];
  hits: Array<{ tick: number; taskId: number | null; message: string }>;
}

/** A sample's case: every file of runtime/samples. */
const sample = (id: string, atLeast: number): Case => ({
  name: `sample ${id}`,
  launch: { target: { kind: 'sample', id }, options: {} },
  files: SAMPLE_FILES,
  atLeast,
});

const CASES: readonly Case[] = [
  sample('generators', 100),
  // Its frame names are read from an error's `stack` (stack-frames.ts).
  sample('exception-chain', 15),
  sample('gather-vs-ascompleted', 60),
  sample('json-fetch', 60),
  ...['account-transfers.ts', 'queue-workers.ts', 'steps-as-live.ts', 'value-changes.ts', 'dice-rolls.ts'].map(
    (name): Case => ({
      name: `a program, ${name}`,
      launch: { target: { kind: 'program', path: join(PROGRAMS, name) }, options: {} },
      files: [join(PROGRAMS, name)],
      atLeast: 20,
    }),
  ),
  {
    name: 'a demo crawl',
    launch: { target: { kind: 'demo', pages: 12, latency: 'instant' }, options: { maxTasks: 3 } },
    files: [CRAWLER],
    atLeast: 1000,
  },
];

describe('Logpoints on every line: the past lists what the live run printed, line for line (bundle)', {
  timeout: 600_000,
}, () => {
  let host: HostClient;
  before(async () => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
    // No stop on the samples' failures: the run goes to its end as it prints.
    await host.rpc.request('setExceptionBreaks', {
      taskFailed: false,
      taskCancelled: false,
      urlFailed: false,
      deadlock: false,
    });
  });
  after(async () => {
    await host.close();
  });

  /** The logpoints' lines the live run printed from event `from` on, in tasks (code no task runs left out). */
  function printedInTasks(from: number): string[] {
    return host.events
      .slice(from)
      .filter((e) => e.event === 'output' && (e.body as HostEvents['output']).category === 'stdout')
      .map((e) => (e.body as HostEvents['output']).text)
      .join('')
      .split('\n')
      .filter((l) => HIT.test(l) && !/^\d+\/null\|/.test(l));
  }

  /** Runs `c` with `logpoints` set as the adapter sets them; the live lines printed, then the past's list. */
  async function liveAndPast(c: Case, logpoints: ReadonlyMap<string, Breakpoint[]>): Promise<LiveAndPast> {
    // As VS Code's adapter does: launched held at entry, the breakpoints set, then let go.
    const from = host.events.length;
    const { runId, heldAtEntry } = await host.rpc.request('launch', {
      target: c.launch.target,
      options: { ...c.launch.options, record: true, stopOnEntry: true },
    } as never);
    assert.equal(heldAtEntry, true);
    for (const [file, breakpoints] of logpoints)
      await host.rpc.request('setBreakpoints', { file, breakpoints, yieldLines: 'before' });
    await host.rpc.request('continue', {});
    const finished = await host.waitFor('finished', (f) => f.runId === runId, 120_000, from);
    assert.equal(finished.ok, true, finished.summary);
    const live = printedInTasks(from);
    assert.ok(live.length >= c.atLeast, `${live.length} live hits in tasks`);
    // The live logpoints go: the past ones are asked alone.
    for (const file of logpoints.keys()) await host.rpc.request('setBreakpoints', { file, breakpoints: [] });
    const past = await host.rpc.request('pastLogpointHits', { logpoints: [...logpoints.values()].flat() });
    return { live, hits: past.hits };
  }

  for (const c of CASES) {
    test(`${c.name}: every line's hits, in order, with their ticks and tasks`, async () => {
      const logpoints = new Map<string, Breakpoint[]>(
        c.files.map((file) => [
          file,
          codeLines(file).map((line) => ({ file, line, logMessage: `${WHERE}${file.split('/').pop()}:${line}` })),
        ]),
      );
      const { live, hits } = await liveAndPast(c, logpoints);
      const listed = hits.map((h) => h.message);
      const at = listed.findIndex((m, i) => m !== live[i]);
      assert.deepEqual(
        { count: listed.length, firstDifference: at === -1 && listed.length === live.length ? null : at },
        { count: live.length, firstDifference: null },
        at === -1
          ? ''
          : `live ${JSON.stringify(live.slice(at, at + 4))}, past ${JSON.stringify(listed.slice(at, at + 4))}`,
      );
      for (const h of hits) assert.ok(h.message.startsWith(`${h.tick}/${h.taskId}|`), JSON.stringify(h));
    });
  }

  /** A case stopped live at `stops` hits of a breakpoint on `stopAt`, a line of `stopFile`. */
  const atStops: ReadonlyArray<Case & { stopFile: string; stopAt: string; stops: number }> = [
    // The downloads' tasks end in ticks of their own, or two in one under load.
    {
      ...sample('gather-vs-ascompleted', 10),
      stopFile: join(SAMPLES, 'gather-vs-ascompleted.ts'),
      stopAt: 'return [url, seconds];',
      stops: 4,
    },
    {
      // The first round of jobs wakes five workers in one tick: each stop but the first comes after others' lines.
      name: 'a program, queue-workers.ts',
      launch: { target: { kind: 'program', path: join(PROGRAMS, 'queue-workers.ts') }, options: {} },
      files: [join(PROGRAMS, 'queue-workers.ts')],
      atLeast: 5,
      stopFile: join(PROGRAMS, 'queue-workers.ts'),
      stopAt: 'const label = `worker-${n}: job ${first}`;',
      stops: 5,
    },
    {
      name: 'a demo crawl',
      launch: { target: { kind: 'demo', pages: 12, latency: 'instant' }, options: { maxTasks: 3 } },
      files: [CRAWLER],
      atLeast: 100,
      stopFile: CRAWLER,
      stopAt: 'const { stat, links } = parsed;',
      stops: 3,
    },
  ];
  for (const c of atStops) {
    test(`${c.name}: at each live stop, every line's hits so far, its own tick's up to the stop`, async () => {
      const { stopFile } = c;
      const stopLine = lineOf(stopFile, c.stopAt);
      const logpoints = new Map<string, Breakpoint[]>(
        c.files.map((file) => [
          file,
          codeLines(file)
            .filter((line) => file !== stopFile || line !== stopLine)
            .map((line) => ({ file, line, logMessage: `${WHERE}${file.split('/').pop()}:${line}` })),
        ]),
      );
      const from = host.events.length;
      const { runId } = await host.rpc.request('launch', {
        target: c.launch.target,
        options: { ...c.launch.options, record: true, stopOnEntry: true },
      } as never);
      for (const [file, breakpoints] of logpoints)
        await host.rpc.request('setBreakpoints', {
          file,
          breakpoints: file === stopFile ? [...breakpoints, { file, line: stopLine }] : breakpoints,
          yieldLines: 'before',
        });
      const printed = (): string[] => printedInTasks(from);
      let sameTick = 0;
      for (let stop = 1; stop <= c.stops; stop++) {
        const paused = await host.continueToLineStop(60_000);
        assert.equal(paused.line?.line, stopLine);
        const past = await host.rpc.request('pastLogpointHits', { logpoints: [...logpoints.values()].flat() });
        const listed = past.hits.map((h) => h.message);
        // The live lines' output may still be on its way to this client: waited for, never past the list's.
        for (let i = 0; i < 100 && printed().length < listed.length; i++) await new Promise((r) => setTimeout(r, 20));
        const live = printed();
        assert.ok(live.length >= c.atLeast || stop > 1, `${live.length} live hits`);
        const at = listed.findIndex((m, i) => m !== live[i]);
        assert.deepEqual(
          { count: listed.length, firstDifference: at === -1 && listed.length === live.length ? null : at },
          { count: live.length, firstDifference: null },
          `stop ${stop} (tick ${paused.tick}): live ${JSON.stringify(live.slice(at, at + 3))}, past ${JSON.stringify(listed.slice(at, at + 3))}`,
        );
        assert.equal(past.ticks, paused.tick);
        if (live.at(-1)?.startsWith(`${paused.tick}/`) === true) sameTick++;
      }
      // Lines ran before a stop in its own tick: the case shows what a list of the ticks before it would miss.
      if (c.name.includes('queue-workers')) assert.ok(sameTick >= 3, `${sameTick} stops after lines of their tick`);
      for (const file of logpoints.keys()) await host.rpc.request('setBreakpoints', { file, breakpoints: [] });
      await host.rpc.request('continue', {});
      const finished = await host.waitFor('finished', (f) => f.runId === runId, 120_000, from);
      assert.equal(finished.ok, true, finished.summary);
    });
  }

  test('random numbers and clocks the program read are the ones the live run read; a message reading its own is no matter', async () => {
    const file = join(PROGRAMS, 'dice-rolls.ts');
    const line = lineOf(file, 'score += roll;');
    // The message reads a random number and the clock too (the debugger's reads: neither recorded nor replayed).
    const logMessage = `${WHERE}{roll} {stamp} {score} {Math.random() < 1} {Date.now() > 0}`;
    const logpoints = new Map([[file, [{ file, line, logMessage }]]]);
    const dice: Case = {
      name: 'dice',
      launch: { target: { kind: 'program', path: file }, options: {} },
      files: [file],
      atLeast: 12,
    };
    const { live, hits } = await liveAndPast(dice, logpoints);
    assert.equal(live.length, 12);
    assert.deepEqual(
      hits.map((h) => h.message),
      live,
    );
  });

  test("an error's stack text, read by the program, is the one the live run read", async () => {
    // frameNames(stack) reads the trace of the error the exception-chain sample catches: a logpoint prints it whole.
    const file = join(SAMPLES, 'stack-frames.ts');
    const line = lineOf(file, 'if (stack === undefined) return [];');
    const logpoints = new Map([[file, [{ file, line, logMessage: `${WHERE}{JSON.stringify(stack)}` }]]]);
    const { live, hits } = await liveAndPast(sample('exception-chain', 1), logpoints);
    assert.ok(
      live.every((l) => l.includes('Something went wrong')),
      JSON.stringify(live),
    );
    assert.deepEqual(
      hits.map((h) => h.message),
      live,
    );
  });
});
