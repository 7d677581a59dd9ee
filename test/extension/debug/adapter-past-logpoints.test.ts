// Logpoints in the past through the standalone debug adapter, as VS Code drives it: a recorded
// demo crawl finishes (the session stays at its end); a logpoint set in the crawler's fetch
// printing `{url}` lists every page's fetch over the whole run in the Debug Console, one output
// line per hit (its tick, task and message, its `source` and `line`), in the run's order, and
// the same hits to the panel (`coroscope/logpointHits`); `coroscope/goToLogpointHit` goes to one:
// a breakpoint stop in the past on fetch's line with that `url` in its locals. Setting the same
// file again lists only the logpoints new or changed.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import { demoCrawl, launchToStop, localsOf, stackOf, startAdapter } from './adapter-harness';
import { lineOf } from '../../source-line';
import type { LogpointHitsBody } from '../../../extension/debug/past-logpoints';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');
const PARSED = lineOf(CRAWLER_TS, 'const { stat, links } = parsed;');
const DECL = lineOf(CRAWLER_TS, 'let response: ClientResponse | null = null;');

describe('Logpoints in the past (standalone adapter)', { timeout: 240_000 }, () => {
  let dap: DapClient;

  before(async () => {
    dap = await startAdapter();
    const end = await launchToStop(dap, demoCrawl(), { exceptionFilters: [] });
    assert.equal(end.body.reason, 'end');
  });
  after(async () => {
    await dap?.close();
  });

  it('every hit in the Debug Console and to the panel, in order; one is gone to, with its url', async () => {
    const from = dap.mark();
    await dap.request('setBreakpoints', {
      source: { path: CRAWLER_TS },
      breakpoints: [{ line: PARSED, logMessage: 'fetched {url}' }],
    });
    const listed = await dap.waitForEvent('coroscope/logpointHits', { from, timeoutMs: 120_000 });
    const { hits } = listed.body as unknown as LogpointHitsBody;
    assert.ok(hits.length >= 12, `${hits.length} hits`);
    const lines = dap.events
      .slice(from)
      .filter((e) => e.event === 'output')
      .map((e) => e.body as DebugProtocol.OutputEvent['body'])
      .filter((b) => b.line !== undefined);
    assert.equal(lines.length, hits.length);
    for (const [i, b] of lines.entries()) {
      const h = hits[i]!;
      assert.equal(b.source?.path, CRAWLER_TS);
      assert.equal(b.line, PARSED);
      assert.match(b.output, new RegExp(`tick ${h.tick} .*#${h.taskId}: fetched http://127\\.0\\.0\\.1:\\d+/`));
      assert.equal(h.message, `fetched ${b.output.split('fetched ')[1]!.trim()}`);
      if (i > 0) assert.ok(h.tick >= hits[i - 1]!.tick);
    }
    assert.match(dap.outputText(), new RegExp(`logpoint at crawler\\.ts:${PARSED} ran ${hits.length} times`));

    // The third hit gone to: a stop in the past on fetch's line, its url the one printed.
    const pick = hits[2]!;
    const at = dap.mark();
    await dap.request('coroscope/goToLogpointHit', { hit: pick.hit });
    const stopped = await dap.waitForEvent('stopped', { from: at, timeoutMs: 60_000 });
    assert.equal(stopped.body.reason, 'breakpoint');
    const frames = await stackOf(dap, Number(stopped.body.threadId));
    assert.equal(frames[0]!.line, PARSED);
    const locals = await localsOf(dap, frames[0]!.id);
    assert.equal(`fetched ${JSON.parse(locals.get('url')!)}`, pick.message);

    // The same file set again with another logpoint: only the new one is listed (the first stays as set).
    const again = dap.mark();
    await dap.request('setBreakpoints', {
      source: { path: CRAWLER_TS },
      breakpoints: [
        { line: PARSED, logMessage: 'fetched {url}' },
        { line: DECL, logMessage: 'try {url}' },
      ],
    });
    // A hit is shown (its replay holds that line): the new one is listed all the same, by a replay of its own,
    // the first not listed again, and the hit stays shown.
    const second = await dap.waitForEvent('coroscope/logpointHits', { from: again, timeoutMs: 120_000 });
    const both = (second.body as unknown as LogpointHitsBody).hits;
    const declHits = both.filter((h) => h.line === DECL);
    assert.ok(declHits.length >= hits.length, `${declHits.length} hits of the second`);
    assert.equal(both.filter((h) => h.line === PARSED).length, hits.length);
    assert.equal(dap.outputText().split(`logpoint at crawler.ts:${PARSED} ran`).length, 2, 'the first listed once');
    assert.match(dap.outputText(), new RegExp(`logpoint at crawler\\.ts:${DECL} ran ${declHits.length} times`));
    assert.equal(dap.events.slice(again).filter((e) => e.event === 'stopped').length, 0, 'the hit stays shown');
    const still = await localsOf(dap, (await stackOf(dap, Number(stopped.body.threadId)))[0]!.id);
    assert.equal(`fetched ${JSON.parse(still.get('url')!)}`, pick.message);

    // The first logpoint removed (the second kept): the panel hears the hits of those still set (its marks go).
    const removed = dap.mark();
    await dap.request('setBreakpoints', {
      source: { path: CRAWLER_TS },
      breakpoints: [{ line: DECL, logMessage: 'try {url}' }],
    });
    const left = await dap.waitForEvent('coroscope/logpointHits', { from: removed, timeoutMs: 30_000 });
    assert.deepEqual(
      (left.body as unknown as LogpointHitsBody).hits.map((h) => h.hit),
      declHits.map((h) => h.hit),
    );
  });
});
