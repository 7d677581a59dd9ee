// runtime/demo-site/description.ts: the line the CLI prints before a demo crawl, counted from
// the site's model (what a crawl from / meets, by kind; robots.txt's part apart) and saying how
// fast the site answers. Real sites on loopback, closed by each test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDemoSite, startDemoSite } from '../../../runtime/demo-site/index';

test('the default site: its URLs by kind, the one robots.txt disallows apart, instant or late', async (t) => {
  const site = await startDemoSite({ pages: 40 });
  t.after(() => site.close());
  const meets =
    '40 content pages; a crawl from / meets 80 URLs (44 HTML pages, 1 binary file, 1 page in an unknown charset, 20 redirects, 14 missing pages (404)), and 1 more disallowed by robots.txt';
  assert.equal(describeDemoSite(site, 'instant'), `${meets}; answering at once (--instant)`);
  assert.equal(
    describeDemoSite(site, 'realistic'),
    `${meets}; each response 100-800 ms late, as over a network (--instant: at once)`,
  );
  // The count is the model's: every URL a crawl meets, less the one robots.txt keeps out.
  assert.equal(site.model.expectedOutcomes(site.url).size, 81);
});

test('a site with faults counts its broken responses; one of a kind is said in the singular', async (t) => {
  const site = await startDemoSite({ pages: 12, faults: true });
  t.after(() => site.close());
  assert.equal(
    describeDemoSite(site, 'instant'),
    '12 content pages; a crawl from / meets 38 URLs (16 HTML pages, 1 binary file, 1 page in an unknown charset, 6 broken responses, 10 redirects, 4 missing pages (404)), and 1 more disallowed by robots.txt; answering at once (--instant)',
  );
});

test('a site of one content page says so in the singular', async (t) => {
  const site = await startDemoSite({ pages: 1 });
  t.after(() => site.close());
  assert.ok(describeDemoSite(site, 'instant').startsWith('1 content page; a crawl from / meets '));
});
