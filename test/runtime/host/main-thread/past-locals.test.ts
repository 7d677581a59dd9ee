// The past shows what the live run held (issue 25, item 2). A demo crawl recorded in the
// runtime host (the bundle the extension forks, as a user runs it: 10 workers, enough pages
// that they wait on their sockets for most of the run) is held tick by tick over its first
// ticks, and at sampled ticks the live dump is taken: every live task, its frames (function,
// file, line) and the locals of each frame, as the panel and the debugger read them then
// (`taskDetail` with locals; the debugger's Variables are these). The crawl then runs to its
// end, so its code is hot, and each sampled tick is viewed again in the past three ways:
// - the host's replayed moment (`seekTick {replayed: true}`, then `snapshot` and `taskDetail`:
//   what the panel's past snapshot and the debugger's frames and Variables after Step Back show);
// - `coroscope replay --dump-tasks-at-tick N --json` on the saved recording (another process);
// and each must equal the live dump, task by task, frame by frame, local by local. No local
// may read `undefined` where the live run held a value (`fut` and `kind` of waitReadable read
// undefined in the past before the fix: the optimizing compiler kept only the locals used
// after the suspension in the generator's saved registers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type TaskSummary } from '../../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { distBundle } from '../../../dist-bundles';

const HOST_BUNDLE = distBundle('runtime-host.js');
const CLI = join(ROOT, 'bin', 'coroscope.js');

/** Ticks the live run is dumped at (held there by stepTick), spread over its first part. */
const SAMPLED = [12, 40, 75, 110, 150];

/** One frame as every view shows it: where, and each local's preview by name. */
interface FrameDump {
  readonly fn: string;
  readonly file: string | null;
  readonly line: number | null;
  readonly locals: ReadonlyArray<readonly [string, string]>;
}

/** One live task at a moment. */
interface TaskDump {
  readonly id: number;
  readonly name: string;
  readonly state: string;
  readonly steps: number;
  readonly awaiting: string | null;
  readonly frames: readonly FrameDump[];
}

/**
 * A preview as the same moment shows it in any process. What differs between the live run
 * and a replay of it by construction, and only that, is rewritten:
 * - a socket's connection object: the live run's socket talks to the kernel, a replay's is
 *   fed from the recording (`_conn: ReplayConnection`); its fd and peer address are the
 *   recorded ones and stay;
 * - what a socket received from the kernel (its receive queue, `_chunks: Array(n)`,
 *   `_chunkHead`, and its connect's completion, `_state: "connecting"` or `"connected"`): while
 *   the test holds the live loop after a tick, the demo site's answers go on arriving (no
 *   task runs meanwhile); the recording gives them to the next tick, so a replay paused after
 *   this tick has not received them yet. What the tasks took from it (their StreamReaders'
 *   buffers) stays compared;
 * - the loop's clock: the live run's records its readings (`RecordingClock`), a replay's
 *   gives them back (`ReplayClock`); the readings themselves (deadlines, idleSince) stay.
 * Nothing else is rewritten: a value that differs is a difference.
 */
function sameMomentText(text: string): string {
  return text
    .replace(/_conn: [A-Za-z]+/g, '_conn: <connection>')
    .replace(/_state: "connect(ing|ed)"/g, '_state: <connecting or connected>')
    .replace(/_chunks: Array\(\d+\), _chunkHead: \d+/g, '_chunks: <received>, _chunkHead: <received>')
    .replace(/clock: [A-Za-z]+Clock/g, 'clock: <clock>');
}

function awaitText(t: Pick<TaskSummary, 'awaiting'>): string | null {
  return t.awaiting === null ? null : `${t.awaiting.kind} ${t.awaiting.detail}`;
}

/** Every live task of the moment the host shows (the present, or the viewed past), with frames and locals. */
async function hostDump(host: HostClient): Promise<TaskDump[]> {
  const snap = await host.rpc.request('snapshot', {});
  const live = snap.tasks.filter((t) => t.state === 'suspended' || t.state === 'scheduled' || t.state === 'running');
  const out: TaskDump[] = [];
  for (const t of live) {
    const detail = await host.rpc.request('taskDetail', { taskId: t.id, locals: true });
    out.push({
      id: t.id,
      name: t.name,
      state: t.state,
      steps: t.steps,
      awaiting: awaitText(t),
      frames: detail.frames.map((f) => ({
        fn: f.name,
        file: f.position?.file ?? null,
        line: f.position?.line ?? null,
        locals: f.locals.map((l) => [l.name, sameMomentText(l.value)] as const),
      })),
    });
  }
  return out;
}

interface CliTask {
  id: number;
  name: string;
  state: string;
  steps: number;
  awaiting: TaskSummary['awaiting'];
  frames: Array<{
    function: string;
    file: string | null;
    line: number | null;
    locals: Array<{ name: string; value: string }>;
  }>;
}

/** `coroscope replay FILE --dump-tasks-at-tick N --json`, as TaskDumps. */
function cliDump(file: string, tick: number): TaskDump[] {
  const r = spawnSync(process.execPath, [CLI, 'replay', file, '--dump-tasks-at-tick', String(tick), '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `replay --dump-tasks-at-tick ${tick}: ${r.stderr}`);
  const dump = JSON.parse(r.stdout) as { tick: number; tasks: CliTask[] };
  assert.equal(dump.tick, tick);
  return dump.tasks
    .filter((t) => t.state === 'suspended' || t.state === 'scheduled' || t.state === 'running')
    .map((t) => ({
      id: t.id,
      name: t.name,
      state: t.state,
      steps: t.steps,
      awaiting: awaitText(t),
      frames: t.frames.map((f) => ({
        fn: f.function,
        file: f.file,
        line: f.line,
        locals: f.locals.map((l) => [l.name, sameMomentText(l.value)] as const),
      })),
    }));
}

/** Asserts `past` shows what `live` held, naming the first task, frame and local that differ. */
function assertSameMoment(past: readonly TaskDump[], live: readonly TaskDump[], what: string): void {
  assert.deepEqual(
    past.map((t) => `#${t.id} ${t.name}`),
    live.map((t) => `#${t.id} ${t.name}`),
    `${what}: the live tasks`,
  );
  for (let i = 0; i < live.length; i++) {
    const l = live[i]!;
    const p = past[i]!;
    assert.deepEqual(
      [p.state, p.steps, p.awaiting],
      [l.state, l.steps, l.awaiting],
      `${what}: task #${l.id}'s state, steps and await`,
    );
    assert.deepEqual(
      p.frames.map((f) => `${f.fn} ${f.file}:${f.line}`),
      l.frames.map((f) => `${f.fn} ${f.file}:${f.line}`),
      `${what}: task #${l.id}'s frames`,
    );
    for (let k = 0; k < l.frames.length; k++) {
      assert.deepEqual(p.frames[k]!.locals, l.frames[k]!.locals, `${what}: task #${l.id} ${l.frames[k]!.fn}'s locals`);
    }
  }
}

test('a recorded demo crawl: at sampled ticks the past (host replay, CLI replay) shows the tasks, frames and locals the live run held', {
  timeout: 240_000,
}, async (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-past-locals-'));
  const host = forkHost({ bundle: HOST_BUNDLE });
  try {
    await host.rpc.request('hello', { client: 'test', protocolVersion: PROTOCOL_VERSION });
    const run = await host.rpc.request('launch', {
      target: { kind: 'demo', latency: 'instant', pages: 600 },
      options: { stopOnEntry: true, maxTasks: 10, record: true },
    });
    await host.waitFor('paused', (p) => p.reason === 'entry');
    const live = new Map<number, TaskDump[]>();
    let tick = 0;
    for (const sampled of SAMPLED) {
      while (tick < sampled) tick = (await host.rpc.request('stepTick', {})).tick;
      live.set(tick, await hostDump(host));
    }
    // The moments are worth comparing: workers waiting on their sockets, with waitReadable's locals.
    const waiting = [...live.values()].flat().filter((t) => t.frames.some((f) => f.fn === 'waitReadable'));
    assert.ok(waiting.length >= 20, `${waiting.length} task dumps inside waitReadable`);
    for (const t of waiting) {
      const frame = t.frames.find((f) => f.fn === 'waitReadable')!;
      const locals = new Map(frame.locals);
      assert.match(
        locals.get('fut') ?? '',
        /^<Future (pending socket\.read|finished)/,
        `live: task #${t.id}'s waitReadable fut`,
      );
      assert.equal(locals.get('kind'), '"socket.read"', `live: task #${t.id}'s waitReadable kind`);
    }

    const from = host.events.length;
    await host.rpc.request('continue', {});
    const finished = await host.waitFor('finished', (f) => f.runId === run.runId, 120_000, from);
    assert.equal(finished.ok, true, finished.summary);

    // The panel's past and the debugger's (its frames and Variables are taskDetail's).
    for (const [at, dump] of live) {
      const moment = await host.rpc.request('seekTick', { tick: at, replayed: true });
      assert.equal(moment.tick, at);
      assertSameMoment(await hostDump(host), dump, `host replay of tick ${at}`);
    }

    // The CLI's, in a process of its own, from the saved recording.
    const file = join(dir, 'crawl.corotrace');
    await host.rpc.request('saveRecording', { path: file });
    for (const [at, dump] of live)
      assertSameMoment(cliDump(file, at), dump, `coroscope replay --dump-tasks-at-tick ${at}`);
    const frames = [...live.values()].flat().flatMap((task) => task.frames);
    ctx.diagnostic(
      `ticks ${[...live.keys()].join(', ')}: ${[...live.values()].flat().length} tasks, ${frames.length} frames, ${frames.reduce((n, f) => n + f.locals.length, 0)} locals, each the same live, in the host's past and in the CLI's`,
    );
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
