// Step Back and Reverse Continue at a line in each of the 13 tutorial samples (issue 25, item 1)
// and in users' programs launched with `program` (fixtures/: queue-workers.ts, a lock-order
// deadlock, a producer that fails while its consumers wait),
// through the standalone debug adapter over stdio, as VS Code drives it. For each sample: a
// breakpoint on an ordinary line of the sample's own code, reached early; at the stop, step over
// N times, keeping each position (source, line, top frame) and the top frame's locals; then Step
// Back N times: the same positions and locals in exact reverse; Continue comes back to the live
// stop, and Reverse Continue from there lands on the breakpoint's last hit the forward run made
// (the last forward position on the breakpoint's line before the live stop, its locals). A sample whose stop
// is not on the runtime's loop (a loop, thread
// or process of its own) cannot go back: there Step Back and Reverse Continue must be refused, a
// failed response naming the reason, and nothing moves.
//
// Invariant: a request that moves in time answers success only after it moved; a refusal is a
// failed response (which VS Code shows), never a success with a console line.

import assert from 'node:assert/strict';
import { isAbsolute, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import { launchToStop, localsOf, setBreakpoint, stackOf, startAdapter } from './adapter-harness';

const SAMPLES_DIR = join(PROJECT_ROOT, 'runtime', 'samples');

interface SampleCase {
  /** A tutorial sample's id, or the name of a program case (PROGRAM_CASES). */
  sample: string;
  /** The launch's target (default: the sample). */
  launch?: Record<string, unknown>;
  /** The breakpoint: a line of this file (under runtime/samples, or absolute) containing this text. */
  file: string;
  needle: string;
  /** Why this line: an ordinary line (no `yield`) of the sample's code, reached early, hit once before the steps. */
  why: string;
  /** Step overs from the stop. */
  steps: number;
  /** Going back works, or is refused with a message matching this. */
  expect: 'back' | RegExp;
  /** The steps come to the breakpoint's line again (a second hit, where Reverse Continue must land). */
  hitsAgain?: true;
}

/**
 * A stop that cannot go back: the code runs on a loop, thread or process of the sample's own, not a task of
 * the runtime's loop.
 */
const OWN_LOOP = /runs (?:a loop|its code) of its own|not (?:on|in) a task of the runtime's loop/;

const CASES: readonly SampleCase[] = [
  {
    sample: 'generators',
    file: 'generators.ts',
    needle: 'const totals = runningTotal();',
    why: "generatorTour's first lines, in the task's first step: plain calls of a generator",
    steps: 4,
    expect: 'back',
  },
  {
    sample: 'blocking',
    file: 'blocking.ts',
    needle: 'fetcher.fetch(copy.host, copy.port, paths[0]!);',
    why: 'the sample runs on the host thread with blocking fetches: no task',
    steps: 3,
    expect: OWN_LOOP,
  },
  {
    sample: 'busy-nonblocking',
    file: 'busy-nonblocking.ts',
    needle: 'let wasted = 0;',
    why: 'a busy retry loop of its own, no task',
    steps: 3,
    expect: OWN_LOOP,
  },
  {
    sample: 'callbacks',
    file: 'callbacks.ts',
    needle: 'const ok = crawl.stats.filter(',
    why: 'after the hand-made callback loop ran: no task',
    steps: 3,
    expect: OWN_LOOP,
  },
  {
    sample: 'future-task',
    file: 'future-task.ts',
    needle: 'sock.setBlocking(false);',
    why: "the chapter's own Future and Task on stage 2's loop, not the runtime's",
    steps: 3,
    expect: OWN_LOOP,
  },
  {
    sample: 'crawler',
    file: 'full-crawler.ts',
    needle: 'const crawler = new Crawler([siteUrl], { maxTasks: WORKERS });',
    why: "crawlAndReport's first step: the crawler built, its task created, then over its yield* sleep(0) into its second step (a tick later) and back across it",
    steps: 4,
    expect: 'back',
  },
  {
    sample: 'fib-threads',
    file: 'fib-threads.ts',
    needle: 'const loop = getRunningLoop();',
    why: "fibWhileTicking's first step, on the runtime's loop, before the thread answers",
    steps: 3,
    expect: 'back',
  },
  {
    sample: "fib-threads, a worker thread's answer",
    launch: { sample: 'fib-threads' },
    file: 'fib-threads.ts',
    needle: 'loop.callSoon(() => answers.get(answer.n)?.setResult(answer));',
    why: "onAnswer: Node runs it for the worker thread's message, outside the loop's tasks; the refusal names the thread and who runs the code",
    steps: 0,
    expect:
      /the stop \(onAnswer at fib-threads\.ts:\d+\) is on the main thread \(the debugger's "event loop" thread\), in a handler of a message from one of the program's worker threads.*not in a task of the runtime's loop/,
  },
  {
    sample: 'fib-loop',
    file: 'fib-loop.ts',
    needle: 'const previousDebug = loop.getDebug();',
    why: "fibBlockingTheLoop's first step, on the runtime's loop",
    steps: 3,
    expect: 'back',
  },
  {
    sample: 'timers-loop',
    file: 'timers-loop.ts',
    needle: 'const fired: string[] = [];',
    why: 'a hand-made callback loop with a timer heap: no task',
    steps: 3,
    expect: OWN_LOOP,
  },
  {
    sample: 'trampoline',
    file: 'trampoline.ts',
    needle: 'let fibDone = false;',
    why: 'a hand-made trampoline loop: no task',
    steps: 3,
    expect: OWN_LOOP,
  },
  {
    sample: 'exception-chain',
    file: 'exception-chain.ts',
    needle: 'const e = error as Error;',
    why: "C's catch, after A threw across B: a later tick of the task",
    steps: 3,
    expect: 'back',
  },
  {
    sample: 'gather-vs-ascompleted',
    file: 'gather-vs-ascompleted.ts',
    needle: 'const start = loop.time();',
    why: "compareWaits' first step: it reads the loop's clock",
    steps: 3,
    expect: 'back',
  },
  {
    sample: 'json-fetch',
    file: 'json-fetch.ts',
    needle: "t.log('headers:');",
    why: 'fetchJson after the headers were read off the socket: the loop over them',
    steps: 4,
    expect: 'back',
  },
];

const QUEUE_WORKERS_TS = join(__dirname, 'fixtures', 'queue-workers.ts');
const LOCK_ORDER_DEADLOCK_TS = join(__dirname, 'fixtures', 'posting-deadlock.ts');
const FAILING_PRODUCER_TS = join(__dirname, 'fixtures', 'failing-producer.ts');

/** A user's program launched with `program`, as the samples are. */
const PROGRAM_CASES: readonly SampleCase[] = [
  {
    sample: 'program queue-workers',
    launch: { program: QUEUE_WORKERS_TS },
    file: QUEUE_WORKERS_TS,
    needle: 'const q = new Queue<number>();',
    why: "main's first step, before it creates its five workers",
    steps: 3,
    expect: 'back',
  },
  {
    sample: 'program posting-deadlock',
    launch: { program: LOCK_ORDER_DEADLOCK_TS },
    file: LOCK_ORDER_DEADLOCK_TS,
    needle: 'const entry = `entry-${entries.length + 1}`;',
    why: "post-entry holding ledger, over its sleep (a later tick) to the acquire of auditLog that audit-entries holds: the deadlock's line",
    steps: 2,
    expect: 'back',
  },
  {
    sample: 'program failing-producer',
    launch: { program: FAILING_PRODUCER_TS },
    file: FAILING_PRODUCER_TS,
    needle: 'const reading = source[i];',
    why: "the producer's first reading, over its put and sleep (a later tick) to its next reading: the breakpoint's line hit again",
    steps: 5,
    expect: 'back',
    hitsAgain: true,
  },
];

interface Position {
  source: string;
  line: number;
  frame: string;
  locals: [string, string][];
  /** The Call Stack's threads (the loop's and its tasks'): the past names each task as the live run did. */
  threads: string[];
}

async function positionOf(dap: DapClient, threadId: number): Promise<Position> {
  const frames = await stackOf(dap, threadId);
  const top = frames[0];
  assert.ok(top !== undefined, `thread ${threadId} has frames`);
  const locals = await localsOf(dap, top.id);
  const { threads } = await dap.request<{ threads: Array<{ id: number; name: string }> }>('threads', {});
  return {
    source: top.source?.path ?? '',
    line: top.line,
    frame: top.name,
    locals: [...locals.entries()],
    threads: threads.map((t) => `${t.id} ${t.name}`),
  };
}

/** A move in time: success only with a `stopped` after it; a refusal (success false) moves nothing. */
async function move(
  dap: DapClient,
  command: string,
  threadId: number,
): Promise<{ ok: true; threadId: number } | { ok: false; message: string }> {
  const from = dap.mark();
  const r = await dap.requestRaw(command, { threadId }, 60_000);
  if (!r.success) {
    const error = (r.body as { error?: { format?: string; showUser?: boolean } } | undefined)?.error;
    // VS Code shows the refusal to the user.
    assert.equal(error?.showUser, true, `${command}'s refusal is shown to the user: ${JSON.stringify(r.body)}`);
    return { ok: false, message: error?.format ?? r.message ?? '' };
  }
  const stopped = await dap.waitForEvent('stopped', { from, timeoutMs: 60_000 });
  // A success never says in the console that it failed.
  const said = dap.events
    .slice(from)
    .filter((e) => e.event === 'output')
    .map((e) => String(e.body.output))
    .join('');
  assert.doesNotMatch(said, /failed/, `${command} answered success but the console says: ${said}`);
  return { ok: true, threadId: Number(stopped.body.threadId) };
}

describe('Step Back and Reverse Continue at a line in every tutorial sample', { timeout: 420_000 }, () => {
  before(async () => {});

  for (const c of [...CASES, ...PROGRAM_CASES]) {
    describe(c.sample, () => {
      let dap: DapClient;
      before(async () => {
        dap = await startAdapter({ supportsVariableType: true });
      });
      after(async () => {
        await dap?.close();
      });

      it(
        c.expect === 'back'
          ? `steps back ${c.steps} lines in exact reverse, Reverse Continue lands on the hit (${c.why})`
          : `refuses Step Back and Reverse Continue with the reason (${c.why})`,
        async () => {
          const file = isAbsolute(c.file) ? c.file : join(SAMPLES_DIR, c.file);
          const line = lineOf(file, c.needle);
          const stopped = await launchToStop(
            dap,
            { type: 'coroscope', request: 'launch', name: c.sample, ...(c.launch ?? { sample: c.sample }) },
            {
              configure: async (d) => {
                const set = await setBreakpoint(d, file, { line });
                assert.equal(set.verified, true, set.message);
              },
              exceptionFilters: [],
            },
          );
          assert.equal(stopped.body.reason, 'breakpoint');
          const threadId = Number(stopped.body.threadId);
          const hit = await positionOf(dap, threadId);
          assert.deepEqual([hit.source, hit.line], [file, line]);

          // Forward, keeping each position and its locals.
          const forward: Position[] = [hit];
          let thread = threadId;
          for (let i = 0; i < c.steps; i++) {
            const m = dap.mark();
            await dap.request('next', { threadId: thread });
            const s = await dap.waitForEvent('stopped', { from: m, timeoutMs: 60_000 });
            thread = Number(s.body.threadId);
            const at = await positionOf(dap, thread);
            // A step that comes to the breakpoint's line again stops there as its hit.
            assert.equal(s.body.reason, at.source === hit.source && at.line === hit.line ? 'breakpoint' : 'step');
            forward.push(at);
          }
          const live = forward.at(-1)!;
          const hits = forward.slice(1).filter((p) => p.source === hit.source && p.line === hit.line).length;
          assert.equal(
            hits > 0,
            c.hitsAgain === true,
            `the steps come to the breakpoint's line again: ${JSON.stringify(forward.map((p) => p.line))}`,
          );

          if (c.expect !== 'back') {
            const back = await move(dap, 'stepBack', thread);
            assert.equal(back.ok, false, 'Step Back is refused');
            if (!back.ok) assert.match(back.message, c.expect);
            assert.deepEqual(await positionOf(dap, thread), live, 'a refused Step Back moves nothing');
            const rc = await move(dap, 'reverseContinue', thread);
            assert.equal(rc.ok, false, 'Reverse Continue is refused');
            if (!rc.ok) assert.match(rc.message, c.expect);
            assert.deepEqual(await positionOf(dap, thread), live, 'a refused Reverse Continue moves nothing');
            return;
          }

          // Back: the same positions and locals in exact reverse.
          for (let i = forward.length - 2; i >= 0; i--) {
            const back = await move(dap, 'stepBack', thread);
            assert.ok(
              back.ok,
              `Step Back to position ${i} (${JSON.stringify(forward[i])}): ${back.ok ? '' : back.message}`,
            );
            thread = back.threadId;
            assert.deepEqual(
              await positionOf(dap, thread),
              forward[i],
              `Step Back ${forward.length - 1 - i} lands where the forward run was`,
            );
          }
          // Continue: back to the live stop, still held there.
          const again = await move(dap, 'continue', thread);
          assert.ok(again.ok);
          thread = again.threadId;
          assert.deepEqual(await positionOf(dap, thread), live, 'Continue from the past comes back to the live stop');
          // Reverse Continue: the breakpoint's last hit before the live stop, as the forward run saw it
          // (a step may have come to the breakpoint's line again: that is its last hit).
          const lastHit =
            forward
              .slice(0, -1)
              .filter((p) => p.source === hit.source && p.line === hit.line)
              .at(-1) ?? hit;
          const rc = await move(dap, 'reverseContinue', thread);
          assert.ok(rc.ok, rc.ok ? '' : rc.message);
          assert.deepEqual(
            await positionOf(dap, rc.threadId),
            lastHit,
            'Reverse Continue lands on the last hit the forward run made',
          );
        },
      );
    });
  }
});
