// Logpoints in the past (issue 28): every hit of a logpoint over a recorded run, on the bundled
// runtime host (dist/runtime-host.js) started as the extension starts it (client pipe: its line
// debugger's worker, a line replay host for the past).
// 1. A `pages`-page instant demo crawl (5 workers) recorded and saved; a host opens the
//    recording (as "Open Recording…" does) and a logpoint on fetch's line after the page is
//    parsed, printing `{url}`, is listed whole (pastLogpointHits): the first list (the replay
//    host forked and the recording opened there on the way) and the next ones (the same logpoint
//    listed again, then another message on the same line), to the full list (target ≤ 2 s;
//    medians of rounds). Each list's length is checked against the pages the crawl fetched.
//    Then a hit gone to (its line shown), and another message listed `idle` ms later (a scan of its own).
//    Then as in a debug session: a host opens the recording and the debugger's exception breaks are
//    set (as the adapter does at configurationDone: the hit replay host is started then, ahead of
//    need), and the logpoint is listed `idle` ms later (a user setting it).
//    Then as from a terminal: `coroscope replay FILE --log crawler.ts:LINE:{url}` (bin/coroscope.js, the
//    bundled CLI), from its start to its exit, the list written (target ≤ 2 s as well).
// 2. That a logpoint costs nothing when none is set is the crawl benchmark's on/off rate ratio
//    (npm run bench:crawl -- --record): the recorder's path has no logpoint code.
// Usage: npm run bench:logpoint [-- pages rounds idle] (default 2000 5 1000). COROSCOPE_HOST_BUNDLE: another
// host bundle to run.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forkHost, type HostClient, median, processCpuMs, ROOT } from '../test/runtime/host/host-client';
import { lineOf } from '../test/source-line';

const BUNDLE = process.env.COROSCOPE_HOST_BUNDLE ?? join(ROOT, 'dist', 'runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const PARSED = lineOf(CRAWLER, 'const { stat, links } = parsed;');
const CLI = join(ROOT, 'bin', 'coroscope.js');

const pages = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);
const idleMs = Number(process.argv[4] ?? 1000);

/** The processes `pid` started (its replay hosts), from /proc: their children lists, every thread's. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** Resolves once the processes `pids` have all exited (5 s at most). */
async function gone(pids: readonly number[]): Promise<void> {
  const until = performance.now() + 5000;
  while (pids.some((pid) => existsSync(`/proc/${pid}`)) && performance.now() < until)
    await new Promise((r) => setTimeout(r, 10));
}

/** CPU ms of the host and of its replay hosts so far (a loaded machine's wall time says little alone). */
function cpuOf(host: HostClient): { host: number; replay: number } {
  const pid = host.child.pid ?? 0;
  const replay = childrenOf(pid).reduce((sum, child) => sum + (processCpuMs(child) ?? 0), 0);
  return { host: processCpuMs(pid) ?? 0, replay };
}

/** `coroscope replay FILE --log` of the logpoint, start to exit (ms); its list must hold `hits` lines. */
function listFromTheCli(file: string, hits: number): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'replay', file, '--log', `${CRAWLER}:${PARSED}:{url}`], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  const lines = r.stdout.split('\n').filter((l) => l !== '').length;
  if (r.status !== 0 || lines !== hits) throw new Error(`the CLI listed ${lines} hits (exit ${r.status}): ${r.stderr}`);
  return ms;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-logpoint-bench-'));
  const file = join(dir, 'crawl.corotrace');
  try {
    const recorder = forkHost({ bundle: BUNDLE, pipe: true });
    await recorder.rpc.request('launch', {
      target: { kind: 'demo', pages, latency: 'instant' },
      options: { maxTasks: 5, record: true },
    });
    await recorder.waitFor('finished', () => true, 600_000);
    const ticks = (await recorder.rpc.request('timeline', {})).ticks;
    await recorder.rpc.request('saveRecording', { path: file });
    await recorder.close();
    console.log(`a ${pages}-page instant demo crawl (5 workers) recorded: ${ticks} ticks`);
    const first: number[] = [];
    const next: number[] = [];
    const other: number[] = [];
    const debugged: number[] = [];
    const shown: number[] = [];
    const cli: number[] = [];
    const firstCpu: number[] = [];
    const nextCpu: number[] = [];
    let hits = 0;
    for (let round = 0; round < rounds; round++) {
      const host = forkHost({ bundle: BUNDLE, pipe: true });
      let session: HostClient | null = null;
      let firstReplayCpu = 0;
      try {
        await host.rpc.request('openRecording', { path: file });
        let cpu = 0;
        let replayCpu = 0;
        const list = async (logMessage: string, on = host): Promise<number> => {
          const c0 = cpuOf(on);
          const t0 = performance.now();
          const r = await on.rpc.request('pastLogpointHits', {
            logpoints: [{ file: CRAWLER, line: PARSED, logMessage }],
          });
          const ms = performance.now() - t0;
          const c1 = cpuOf(on);
          cpu = c1.host - c0.host + c1.replay - c0.replay;
          replayCpu = c1.replay - c0.replay;
          if (r.hits.length < pages) throw new Error(`${r.hits.length} hits for ${pages} pages`);
          hits = r.hits.length;
          return ms;
        };
        first.push(await list('{url}'));
        firstCpu.push(cpu);
        firstReplayCpu = replayCpu;
        next.push(await list('{url}'));
        nextCpu.push(cpu);
        other.push(await list('{url} at depth {depth}'));
        // A hit gone to (its line shown by the hit replay host), then another message listed `idle` ms later.
        const listed = await host.rpc.request('pastLogpointHits', {
          logpoints: [{ file: CRAWLER, line: PARSED, logMessage: '{url}' }],
        });
        const h = listed.hits[Math.floor(listed.hits.length / 2)]!;
        await host.rpc.request('pastBreakpointHit', {
          direction: 'back',
          tick: listed.ticks,
          logpointHit: {
            logpoint: { file: CRAWLER, line: PARSED, logMessage: '{url}' },
            tick: h.tick,
            ordinal: h.ordinal,
          },
        });
        await new Promise((r) => setTimeout(r, idleMs));
        shown.push(await list('{depth} {url}'));
        const replayHosts = childrenOf(host.child.pid ?? 0);
        await host.close();
        session = forkHost({ bundle: BUNDLE, pipe: true });
        await session.rpc.request('openRecording', { path: file });
        await session.rpc.request('setExceptionBreaks', { taskFailed: false, taskCancelled: false });
        await new Promise((r) => setTimeout(r, idleMs));
        debugged.push(await list('{url}', session));
        // The CLI measured on a machine as quiet as before the round: the hosts' replay hosts gone too.
        replayHosts.push(...childrenOf(session.child.pid ?? 0));
        await session.close();
        session = null;
        await gone(replayHosts);
        cli.push(listFromTheCli(file, hits));
      } finally {
        await host.close();
        await session?.close();
      }
      console.log(
        `round ${round + 1}: CPU of the host and its replay host: first ${firstCpu[round]!.toFixed(0)} ms (the replay host's ${firstReplayCpu.toFixed(0)} ms), again ${nextCpu[round]!.toFixed(0)} ms`,
      );
      console.log(
        `round ${round + 1}: first ${first[round]!.toFixed(0)} ms, again ${next[round]!.toFixed(0)} ms, another message ${other[round]!.toFixed(0)} ms, another while a hit is shown ${shown[round]!.toFixed(0)} ms; in a debug session ${debugged[round]!.toFixed(0)} ms; the CLI ${cli[round]!.toFixed(0)} ms`,
      );
    }
    console.log(
      `every hit of a logpoint in fetch (${hits} hits, ${ticks} ticks), to the full list: first ${median(first).toFixed(0)} ms, next ${median(next).toFixed(0)} ms, another message ${median(other).toFixed(0)} ms, another while a hit is shown (${idleMs} ms after it) ${median(shown).toFixed(0)} ms; first in a debug session (set ${idleMs} ms after its breaks) ${median(debugged).toFixed(0)} ms; coroscope replay --log, start to exit, ${median(cli).toFixed(0)} ms (medians of ${rounds}; target ≤ 2000 ms)`,
    );
    console.log(
      `CPU of the host and its replay hosts during the list (medians; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}): first ${median(firstCpu).toFixed(0)} ms, next ${median(nextCpu).toFixed(0)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
