// "Go to Last Change" (issue 28) on a recorded demo crawl, through the standalone debug adapter
// with real DAP messages: a crawl of `pages` pages on the instant demo site with `tasks`
// workers, stopped on the crawler fetch's `this.record(stat)` line at its `hit`th run (a
// breakpoint with a hit condition), then Go to Last Change on fetch's local `response`: the
// adapter walks the worker's lines back through the line replay (extension/debug/session-changes.ts)
// to the line after `response = yield* this.session.get(...)`. Timed from the request to its
// `stopped` and the console's words on the landing; the ticks between the stop and the landing
// are printed beside it (how far back the write was). Median of rounds, each a fresh adapter and run.
// Pressed `idle` ms after the stop (default 1000: a user reading it; 0: at once).
// `case` far: the crawl task's local `loop`, set at its first step, asked from its stop after the queue's join
// at the crawl's end (hundreds of ticks later; `hit` unused): the walk back over a task suspended meanwhile.
// `case` hit: the crawl run to its end, a breakpoint on `this.record(stat)` with hit condition `== hit` set then,
// Reverse Continue to that hit (far back from the end), Go to Last Change of `response` there: from a past hit, on
// the hit replay host (COROSCOPE_CHANGES_LINE_BY_LINE=1 in the environment: the line-by-line walk, for before).
// Usage: npm run bench:last-change [-- pages tasks hit rounds idle case] (default 2000 100 300 5 1000 near).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from '../test/extension/debug/build-adapter';
import { DapClient } from '../test/extension/debug/dap-client';
import { stackOf } from '../test/extension/debug/adapter-harness';

const [pages, tasks, hit, rounds, idleMs] = [2000, 100, 300, 5, 1000].map((d, i) => Number(process.argv[2 + i] ?? d));
const far = process.argv[7] === 'far';
/** From a past hit found by Reverse Continue at the crawl's end, not from the live stop. */
const fromHit = process.argv[7] === 'hit';
const CRAWLER = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');
const LINE =
  readFileSync(CRAWLER, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(far ? 'this.t1 = loop.time();' : 'this.record(stat);')) + 1;
/** The local asked about, and what the console says on the landing. */
const NAME = far ? 'loop' : 'response';
const WHAT = far ? "crawl's loop" : "fetch's response";

/** CPU ms (user + system) of this bench's line replay hosts (its descendants run with --line-replay); Linux only. */
function replayHostCpuMs(): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const parentOf = new Map<string, string>();
  const stats = new Map<string, string[]>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parentOf.set(pid, fields[1]!);
      stats.set(pid, fields);
    } catch {
      // Gone meanwhile.
    }
  }
  const ours = (pid: string): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p !== '0'; p = parentOf.get(p))
      if (p === String(process.pid)) return true;
    return false;
  };
  const tick = 1000 / 100; // USER_HZ: 100 on Linux
  let ms = 0;
  for (const [pid, fields] of stats) {
    if (!ours(pid)) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    // utime, stime: fields 14 and 15 of stat (11 and 12 after the pid, name and state).
    if (cmd.includes('--line-replay')) ms += (Number(fields[11]) + Number(fields[12])) * tick;
  }
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Round {
  ms: number;
  stopTick: number;
  setTick: number;
  /** The replay host's CPU (ms) from the stop to the request (the idle time), and during the request. */
  cpuIdle: number | null;
  cpuAsked: number | null;
  /** The hit case: the crawl's last tick, where Reverse Continue started. */
  endTick: number | null;
}

async function round(): Promise<Round> {
  const dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT });
  try {
    await dap.request('initialize', {
      clientID: 'bench',
      adapterID: 'coroscope',
      linesStartAt1: true,
      pathFormat: 'path',
    });
    const from = dap.mark();
    const launch = dap.request('launch', {
      type: 'coroscope',
      request: 'launch',
      name: 'bench',
      crawl: 'demo',
      pages,
      demoLatency: 'instant',
      maxTasks: tasks,
    });
    await dap.waitForEvent('initialized', { from });
    const breakpoints = [{ line: LINE, ...(far ? {} : { hitCondition: fromHit ? `== ${hit}` : String(hit) }) }];
    if (!fromHit) await dap.request('setBreakpoints', { source: { path: CRAWLER }, breakpoints });
    await dap.request('setExceptionBreakpoints', { filters: [] });
    await dap.request('configurationDone');
    await launch;
    let stopped = await dap.waitForEvent('stopped', { from, timeoutMs: 120_000 });
    let endTick: number | null = null;
    if (fromHit) {
      endTick = (await dap.request<{ tick: number }>('coroscope/tasks')).tick;
      // At the crawl's end: the breakpoint set now counts from the run's start; Reverse Continue to its hit.
      if (stopped.body.reason !== 'end') throw new Error(`stopped for ${String(stopped.body.reason)}, not at the end`);
      await dap.request('setBreakpoints', { source: { path: CRAWLER }, breakpoints });
      const back = dap.mark();
      await dap.request('reverseContinue', { threadId: Number(stopped.body.threadId) }, 120_000);
      stopped = await dap.waitForEvent('stopped', { from: back, timeoutMs: 120_000 });
    }
    const thread = Number(stopped.body.threadId);
    const cpuAtStop = replayHostCpuMs();
    await dap.request('setBreakpoints', { source: { path: CRAWLER }, breakpoints: [] });
    const stopTick = (await dap.request<{ tick: number }>('coroscope/tasks')).tick;
    const frames = await stackOf(dap, thread);
    const { scopes } = await dap.request<DebugProtocol.ScopesResponse['body']>('scopes', { frameId: frames[0]!.id });
    const locals = scopes.find((s) => s.name === 'Locals')!;
    await dap.request('variables', { variablesReference: locals.variablesReference });
    // A user reading the stop before asking (the line replay host gets the stop's recording meanwhile).
    if (idleMs > 0) await new Promise((r) => setTimeout(r, idleMs));
    const mark = dap.mark();
    const cpuAtAsk = replayHostCpuMs();
    const t0 = performance.now();
    await dap.request('coroscope/lastChange', { variablesReference: locals.variablesReference, name: NAME }, 60_000);
    await dap.waitForEvent('stopped', { from: mark, timeoutMs: 60_000 });
    // The console's words on the landing may follow its `stopped`: the time is to both.
    await dap.waitForEvent('output', {
      from: mark,
      predicate: (b) => new RegExp(`${NAME} was set by `).test(String(b.output)),
      timeoutMs: 60_000,
    });
    const ms = performance.now() - t0;
    const cpuAtEnd = replayHostCpuMs();
    const said = dap.events
      .slice(mark)
      .filter((e) => e.event === 'output')
      .map((e) => String(e.body.output))
      .join('');
    const m = new RegExp(`${NAME} was set by \\S+ \\(tick (\\d+),`).exec(said);
    if (m === null) throw new Error(`no landing said: ${said}`);
    if (process.env.BENCH_VERBOSE === '1') console.log(said);
    const cpuIdle = cpuAtStop === null || cpuAtAsk === null ? null : cpuAtAsk - cpuAtStop;
    const cpuAsked = cpuAtAsk === null || cpuAtEnd === null ? null : cpuAtEnd - cpuAtAsk;
    return { ms, stopTick, setTick: Number(m[1]), cpuIdle, cpuAsked, endTick };
  } finally {
    await dap.close();
  }
}

async function main(): Promise<void> {
  await buildAdapterAndHost();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const r = await round();
    times.push(r.ms);
    console.log(
      `round ${i + 1}: Go to Last Change of ${WHAT} ${r.ms.toFixed(0)} ms, ${r.endTick === null ? 'stop' : `hit (${r.endTick - r.stopTick} ticks before the end)`} at tick ${r.stopTick}, set at tick ${r.setTick} (${r.stopTick - r.setTick} ticks back); replay host CPU ${r.cpuIdle ?? '?'} ms while idle at the stop, ${r.cpuAsked ?? '?'} ms for the request`,
    );
  }
  console.log(
    `Go to Last Change of ${WHAT} (${pages} pages, ${tasks} workers${far ? ", at the crawl's end" : `, ${hit}th record${fromHit ? ', a past hit' : ''}`}): median ${median(times).toFixed(0)} ms over ${rounds} rounds (target ≤ 1000 ms)`,
  );
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
