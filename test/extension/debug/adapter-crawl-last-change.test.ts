// "Go to Last Change" on a local of the crawler's fetch in a finished demo crawl: at a past
// logpoint hit on fetch's parsed line, Last Change on `response` answers with the line that wrote
// it (`response = yield* ...get(...)`), its tick and the hit's task, and lands on the next line of
// the same fetch. Twice: launched by the standalone adapter, and as VS Code's "Debug This Run"
// does it (an inline adapter attached to the panel's finished crawl, the panel's settings). The
// line walk replays the recording in a worker, while the Coroutines view asks for the tasks at
// each tasksChanged, as VS Code's does (issue 29: a hang there in VS Code, not reproduced here).
//
// Invariants: every wait is bounded (a walk that never answers fails the test, it does not hang).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { RunSession } from '../../../extension/run-session';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { crawlSettings, snapshotRate } from '../../../extension/settings';
import { lineOf } from '../../source-line';
import { until } from '../wait-until';
import { HOST_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient } from './dap-client';
import { TASKS_CHANGED_EVENT } from '../../../extension/debug/custom-requests';
import {
  demoCrawl,
  initialize,
  tasksOf,
  launchToStop,
  scopeOf,
  stackOf,
  startAdapter,
  startDebugging,
  goToLogpointHit,
  listLogpointHits,
} from './adapter-harness';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');
const PARSED = lineOf(CRAWLER_TS, 'const { stat, links } = parsed;');
const GET_LINE = lineOf(CRAWLER_TS, 'response = yield* this.session.get(url, NO_REDIRECTS);');
/** The exception filters VS Code sets at the start: those the adapter marks default (Task failed, Deadlock). */
const VSCODE_FILTERS = ['taskFailed', 'deadlock'];
/** Far more than the few seconds the walk takes; a walk that diverges never answers. */
const CHANGE_TIMEOUT_MS = 60_000;

/** Lists the hits of a logpoint on fetch's parsed line, goes to one near the end, and asks Last Change of `response`. */
async function lastChangeOfResponse(dap: DapClient): Promise<void> {
  const hits = await listLogpointHits(dap, CRAWLER_TS, [{ line: PARSED, logMessage: 'fetched {url}' }]);
  assert.ok(hits.length >= 12, `${hits.length} hits`);
  // Late in the run, as the Debug Console shows its last rows (the crawl's end near).
  const pick = hits[Math.max(0, hits.length - 8)]!;
  const stopped = await goToLogpointHit(dap, pick.hit);
  const thread = Number(stopped.body.threadId);
  const frames = await stackOf(dap, thread);
  assert.equal(frames[0]!.line, PARSED);
  const locals = await scopeOf(dap, frames[0]!.id, 'Locals');
  const url = locals.variables.get('url')?.value;
  assert.equal(`fetched ${JSON.parse(url ?? 'null')}`, pick.message);
  assert.ok(locals.variables.has('response'), [...locals.variables.keys()].join(', '));

  const asked = dap.mark();
  // As VS Code's Coroutines view does: each tasksChanged is answered by a tasks request, while the walk goes on.
  let walking = true;
  const view = (async () => {
    let seen = asked;
    while (walking) {
      const changed = await dap.waitForEvent(TASKS_CHANGED_EVENT, { from: seen, timeoutMs: 1_000 }).catch(() => null);
      if (changed === null) continue;
      seen = changed.index + 1;
      await tasksOf(dap);
    }
  })();
  await dap
    .request('coroscope/lastChange', { variablesReference: locals.ref, name: 'response' }, CHANGE_TIMEOUT_MS)
    .finally(() => {
      walking = false;
    });
  await view;
  const told = await dap.waitForEvent('output', {
    from: asked,
    timeoutMs: CHANGE_TIMEOUT_MS,
    predicate: (b) => /response (was set by (?!the line just before)|changed while)/.test(String(b.output)),
  });
  const said = String(told.body.output);
  const m = /response was set by \S*crawler\.ts:(\d+) \(tick (\d+), ([^,;)]+)/.exec(said);
  assert.ok(m !== null, said);
  assert.equal(Number(m[1]), GET_LINE, 'the line that wrote response');
  assert.ok(Number(m[2]) <= pick.tick, `set at tick ${m[2]}, not after the hit's ${pick.tick}`);
  // Written by the task itself (fetch's own `response`): the worker of the hit's thread.
  assert.equal(m[3], (await tasksOf(dap)).tasks.find((t) => t.id === thread)?.name);
  const there = await stackOf(dap, thread);
  assert.deepEqual([there[0]!.name, there[0]!.line], ['fetch', GET_LINE + 1], 'first seen on the next line');
  const landed = await scopeOf(dap, there[0]!.id, 'Locals');
  assert.equal(landed.variables.get('url')?.value, url, 'the same fetch');
  assert.equal(landed.variables.get('response')?.value, 'ClientResponse');
}

describe('Go to Last Change in the crawler, launched (standalone adapter)', { timeout: 240_000 }, () => {
  let dap: DapClient;
  before(async () => {
    dap = await startAdapter();
    const end = await launchToStop(dap, demoCrawl(), { exceptionFilters: VSCODE_FILTERS });
    assert.equal(end.body.reason, 'end');
  });
  after(async () => {
    await dap?.close();
  });

  it("names fetch's get line, its tick and task, and lands on the next line of that fetch", async () => {
    await lastChangeOfResponse(dap);
  });
});

describe("Go to Last Change in the crawler, attached to the panel's finished run", { timeout: 300_000 }, () => {
  let runs: RunRegistry;
  let panel: RunSession;
  let dap: DapClient | undefined;
  before(async () => {
    await buildAdapterAndHost();
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
    panel = new RunSession(runs, { snapshotRate: () => snapshotRate(() => undefined) });
  });
  after(async () => {
    await dap?.close();
    panel?.dispose();
    await runs?.dispose();
  });

  it("names fetch's get line, its tick and task, and lands on the next line of that fetch", async () => {
    // As the palette's Run Crawl starts it with no settings file (commands.ts, settings.ts).
    const cfg = crawlSettings(() => undefined);
    await panel.launch({ kind: 'demo', latency: cfg.demoLatency }, cfg.options);
    await until('the crawl to finish', () => panel.status.phase === 'finished', 120_000);
    const run = panel.run;
    assert.ok(run !== null);
    dap = DapClient.inProcess(
      new CoroscopeSession({ hostScript: HOST_SCRIPT, runs, viewName: 'debug', cwd: PROJECT_ROOT }),
    );
    await initialize(dap, { supportsVariableType: true });
    const from = await startDebugging(
      dap,
      'attach',
      { type: 'coroscope', request: 'attach', name: 'attach', run: run.key },
      { exceptionFilters: VSCODE_FILTERS },
    );
    const end = await dap.waitForEvent('stopped', { from, timeoutMs: 60_000, failOn: ['terminated'] });
    assert.equal(end.body.reason, 'end');
    await lastChangeOfResponse(dap);
  });
});
