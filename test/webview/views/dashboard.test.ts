// The Dashboard view (webview/views/dashboard.ts): the crawl's numbers at the moment shown, its
// errors by kind and the latest pages (titles from crawled pages shown as text), or why there are none.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { CrawledPage, CrawlProgress } from '../../../protocol/host-protocol';
import { closeDom } from '../dom-env';
import { openPanel, panelInit, runStatus, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

function progress(over: Partial<CrawlProgress> = {}): CrawlProgress {
  return {
    done: 3,
    queued: 4,
    inFlight: 2,
    errors: 1,
    seen: 9,
    excluded: 0,
    seconds: 2,
    rate: 1.5,
    errorsByKind: { ECONNRESET: 1 },
    ...over,
  };
}

const PAGES: CrawledPage[] = [
  { url: 'http://demo/a', status: 200, title: 'Alpha' },
  { url: 'http://demo/b', status: 200, title: '<script>window.pwned = 1</script>' },
  { url: 'http://demo/c', status: null, error: 'Error: connection reset' },
];

async function dashboard(over = {}): Promise<OpenPanel> {
  const panel = await openPanel(panelInit(over));
  panel.one('.tab[data-view="dashboard"]').click();
  await panel.settle();
  return panel;
}

function cards(panel: OpenPanel): Record<string, string> {
  return Object.fromEntries(
    panel
      .all('.cards .card')
      .map((c) => [c.querySelector('.card-label')?.textContent, c.querySelector('.card-value')?.textContent]),
  );
}

describe('the dashboard', () => {
  it("shows the crawl's numbers and its errors by kind", async () => {
    const panel = await dashboard({ lastProgress: progress(), pages: PAGES });
    const c = cards(panel);
    assert.equal(c['pages done'], '3');
    assert.equal(c.queued, '4');
    assert.equal(c['in flight'], '2');
    assert.equal(c.errors, '1');
    assert.equal(c.seen, '9');
    assert.deepEqual(
      panel
        .all('.bar-row')
        .map((r) => [r.querySelector('.bar-label')?.textContent, r.querySelector('.bar-count')?.textContent]),
      [['ECONNRESET', '1']],
    );
  });

  it('lists the latest pages first, a title from a crawled page as text, never as markup', async () => {
    const panel = await dashboard({ lastProgress: progress(), pages: PAGES });
    const rows = panel
      .all('.pages-table tbody tr')
      .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    assert.deepEqual(rows, [
      ['—', 'Error: connection reset', 'http://demo/c'],
      ['200', '<script>window.pwned = 1</script>', 'http://demo/b'],
      ['200', 'Alpha', 'http://demo/a'],
    ]);
    assert.equal(panel.all('.pages-table script').length, 0);
    assert.equal(panel.all('.pages-table tbody tr')[0]?.className, 'page-error');
  });

  it('says why there are no numbers: no run, or a run that is not a crawl', async () => {
    const none = await dashboard({ status: runStatus({ phase: 'idle', runId: null, title: 'No run' }) });
    assert.equal(none.one('#view-dashboard .placeholder p').textContent, 'Run a crawl to see its dashboard.');
    const notCrawl = await dashboard({ lastProgress: null });
    assert.equal(
      notCrawl.one('#view-dashboard .placeholder p').textContent,
      'This run is not a crawl: no crawl numbers.',
    );
    assert.equal(notCrawl.all('.cards').length, 0);
  });

  it('follows progress events: the count of pages done grows', async () => {
    const panel = await dashboard({ lastProgress: progress() });
    panel.event('progress', {
      point: { t: 3, done: 7, rate: 2, queued: 1, inFlight: 1 },
      progress: progress({ done: 7 }),
    });
    await panel.settle();
    assert.equal(cards(panel)['pages done'], '7');
  });
});
