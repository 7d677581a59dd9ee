// Tests of the demo site's pure model: options, routing, link generation (exact fractions,
// connectivity, determinism) and the expected outcomes of a crawl from `/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BINARY_BYTES,
  BROKEN_CONTENT_TYPE,
  EXTERNAL_URLS,
  FAULT_NAMES,
  HOME_PAGE_LINKS,
  SiteModel,
  renderContentPage,
  type ExpectedOutcome,
  type LinkKind,
} from '../../../runtime/demo-site';

const ORIGIN = 'http://127.0.0.1:8080';

function kindsOf(outcomes: ReadonlyMap<string, ExpectedOutcome>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const outcome of outcomes.values()) counts.set(outcome.kind, (counts.get(outcome.kind) ?? 0) + 1);
  return counts;
}

test('defaults are 200 pages of 8 links, 2048 bytes, seed 1, no faults', () => {
  const model = new SiteModel();
  assert.deepEqual(model.options, { pages: 200, linksPerPage: 8, pageBytes: 2048, seed: 1, faults: false });
  assert.equal(model.privateLinkPage, 100);
});

test('invalid options are rejected with a RangeError', () => {
  assert.throws(() => new SiteModel({ pages: 0 }), RangeError);
  assert.throws(() => new SiteModel({ pages: 2.5 }), RangeError);
  assert.throws(() => new SiteModel({ linksPerPage: 0 }), RangeError);
  assert.throws(() => new SiteModel({ pageBytes: -1 }), RangeError);
  assert.throws(() => new SiteModel({ seed: Number.NaN }), RangeError);
  assert.throws(() => new SiteModel().linksOf(201), RangeError);
});

test('route() maps every kind of path', () => {
  const model = new SiteModel({ pages: 20 });
  assert.deepEqual(model.route('/'), { kind: 'home' });
  assert.deepEqual(model.route('/page/1/'), { kind: 'page', n: 1 });
  assert.deepEqual(model.route('/page/20/'), { kind: 'page', n: 20 });
  assert.deepEqual(model.route('/page/20'), { kind: 'redirect', location: '/page/20/' });
  assert.deepEqual(model.route('/page/21/'), { kind: 'not-found' });
  assert.deepEqual(model.route('/page/21'), { kind: 'not-found' });
  assert.deepEqual(model.route('/page/0/'), { kind: 'not-found' });
  assert.deepEqual(model.route('/page/01/'), { kind: 'not-found' });
  assert.deepEqual(model.route('/page/1//'), { kind: 'not-found' });
  assert.deepEqual(model.route('/missing/7'), { kind: 'not-found' });
  assert.deepEqual(model.route('/files/data.bin'), { kind: 'binary' });
  assert.deepEqual(model.route('/slow/1/'), { kind: 'slow', n: 1 });
  assert.deepEqual(model.route('/slow/2/'), { kind: 'slow', n: 2 });
  assert.deepEqual(model.route('/slow/3/'), { kind: 'not-found' });
  assert.deepEqual(model.route('/broken/'), { kind: 'broken' });
  assert.deepEqual(model.route('/titles/markup/'), { kind: 'markup-title' });
  assert.deepEqual(model.route('/robots.txt'), { kind: 'robots' });
  assert.deepEqual(model.route('/private/secret/'), { kind: 'private' });
  assert.deepEqual(model.route('/api/pages.json'), { kind: 'api' });
  assert.deepEqual(model.route('/fault/reset'), { kind: 'not-found' }, 'faults are opt-in');

  const faulty = new SiteModel({ pages: 20, faults: true });
  assert.deepEqual(faulty.route('/fault/reset'), { kind: 'fault', fault: 'reset' });
  assert.deepEqual(faulty.route('/fault/stall'), { kind: 'fault', fault: 'stall' });
  assert.deepEqual(faulty.route('/fault/bad-chunk'), { kind: 'fault', fault: 'bad-chunk' });
  assert.deepEqual(faulty.route('/fault/endless'), { kind: 'fault', fault: 'endless' });
  assert.deepEqual(faulty.route('/fault/no-location'), { kind: 'fault', fault: 'no-location' });
  assert.deepEqual(faulty.route('/fault/wrong-length'), { kind: 'fault', fault: 'wrong-length' });
  assert.deepEqual(faulty.route('/fault/redirect-loop'), { kind: 'redirect', location: '/fault/redirect-loop/b' });
  assert.deepEqual(faulty.route('/fault/redirect-loop/b'), { kind: 'redirect', location: '/fault/redirect-loop' });
  assert.deepEqual(faulty.route('/fault/other'), { kind: 'not-found' });
});

test('each page has linksPerPage links, the first to the next page; one page also links to /private/secret/', () => {
  const model = new SiteModel({ pages: 50, linksPerPage: 6 });
  for (let n = 1; n <= 50; n++) {
    const links = model.linksOf(n);
    const expected = n === model.privateLinkPage ? 7 : 6;
    assert.equal(links.length, expected, `page ${n}`);
    assert.deepEqual(links[0], { href: `/page/${n === 50 ? 1 : n + 1}/`, kind: 'next', target: n === 50 ? 1 : n + 1 });
    if (n === model.privateLinkPage) assert.deepEqual(links[6], { href: '/private/secret/', kind: 'private' });
  }
});

test('link kinds follow exact fractions and valid shapes', () => {
  const model = new SiteModel(); // 200 pages x 7 non-first links = 1400 = 70 periods of 20
  const counts = new Map<LinkKind, number>();
  for (let n = 1; n <= 200; n++) {
    for (const link of model.linksOf(n).slice(1)) {
      counts.set(link.kind, (counts.get(link.kind) ?? 0) + 1);
      switch (link.kind) {
        case 'page':
          assert.match(link.href, /^\/page\/[1-9]\d*\/$/);
          break;
        case 'slashless':
          assert.match(link.href, /^\/page\/[1-9]\d*$/);
          break;
        case 'relative':
          assert.match(link.href, /^\.\.\/[1-9]\d*\/$/);
          break;
        case 'fragment':
          assert.match(link.href, /^\/page\/[1-9]\d*\/#section-[123]$/);
          break;
        case 'missing':
          assert.match(link.href, /^\/missing\/[1-9]\d*$/);
          break;
        case 'external':
          assert.ok(EXTERNAL_URLS.includes(link.href));
          break;
        case 'private':
          break;
        default:
          assert.fail(`unexpected kind ${link.kind}`);
      }
      if (link.target !== undefined) assert.ok(link.target >= 1 && link.target <= 200);
    }
  }
  assert.deepEqual(Object.fromEntries(counts), {
    page: 770,
    slashless: 140,
    relative: 210,
    fragment: 140,
    missing: 70,
    external: 70,
    private: 1,
  });
});

test('the model is deterministic and depends on the seed', () => {
  const a = new SiteModel({ seed: 7 });
  const b = new SiteModel({ seed: 7 });
  const c = new SiteModel({ seed: 8 });
  for (const n of [1, 2, 99, 200]) assert.deepEqual(a.linksOf(n), b.linksOf(n));
  assert.deepEqual([...a.expectedOutcomes(ORIGIN)], [...b.expectedOutcomes(ORIGIN)]);
  assert.equal(renderContentPage(a, 42), renderContentPage(b, 42));
  const differs = [1, 2, 3, 4, 5].some((n) => JSON.stringify(a.linksOf(n)) !== JSON.stringify(c.linksOf(n)));
  assert.ok(differs, 'another seed gives other links');
});

test('content pages are exactly pageBytes bytes when their content fits', () => {
  for (const pageBytes of [2048, 4096, 3001]) {
    const model = new SiteModel({ pages: 30, pageBytes });
    for (let n = 1; n <= 30; n++) assert.equal(Buffer.byteLength(renderContentPage(model, n)), pageBytes);
  }
  const tiny = new SiteModel({ pages: 3, pageBytes: 10 });
  assert.ok(Buffer.byteLength(renderContentPage(tiny, 1)) > 10, 'content is never cut');
});

test('expectedOutcomes: every page reachable, with redirects, 404s, specials and robots exclusion', () => {
  const model = new SiteModel();
  const outcomes = model.expectedOutcomes(ORIGIN);
  for (let n = 1; n <= 200; n++) {
    assert.deepEqual(outcomes.get(`${ORIGIN}/page/${n}/`), {
      kind: 'page',
      status: 200,
      contentType: 'text/html; charset=utf-8',
    });
  }
  assert.equal(outcomes.keys().next().value, `${ORIGIN}/`);
  assert.deepEqual(outcomes.get(`${ORIGIN}/files/data.bin`), {
    kind: 'binary',
    status: 200,
    contentType: 'application/octet-stream',
    bytes: BINARY_BYTES,
  });
  assert.equal(outcomes.get(`${ORIGIN}/slow/1/`)?.kind, 'page');
  assert.equal(outcomes.get(`${ORIGIN}/slow/2/`)?.kind, 'page');
  assert.equal(outcomes.get(`${ORIGIN}/titles/markup/`)?.kind, 'page');
  assert.deepEqual(outcomes.get(`${ORIGIN}/broken/`), {
    kind: 'broken',
    status: 200,
    contentType: BROKEN_CONTENT_TYPE,
  });
  assert.deepEqual(outcomes.get(`${ORIGIN}/private/secret/`), {
    kind: 'excluded-by-robots',
    status: 200,
    contentType: 'text/html; charset=utf-8',
  });
  assert.equal(outcomes.has(`${ORIGIN}/robots.txt`), false);
  assert.equal(outcomes.has(`${ORIGIN}/api/pages.json`), false);

  // Every slash-less link is a 301 to its slashed page, every /missing/K is a 404.
  const slashless = new Set<string>();
  const missing = new Set<string>();
  for (let n = 1; n <= 200; n++) {
    for (const link of model.linksOf(n)) {
      if (link.kind === 'slashless') slashless.add(`${ORIGIN}${link.href}`);
      if (link.kind === 'missing') missing.add(`${ORIGIN}${link.href}`);
    }
  }
  assert.ok(slashless.size > 0 && missing.size > 0);
  for (const url of slashless)
    assert.deepEqual(outcomes.get(url), { kind: 'redirect', status: 301, location: `${url}/` });
  for (const url of missing) {
    assert.deepEqual(outcomes.get(url), { kind: 'missing', status: 404, contentType: 'text/html; charset=utf-8' });
  }
  const kinds = kindsOf(outcomes);
  assert.equal(kinds.get('page'), 200 + 4); // content pages, home, 2 slow pages, markup title
  assert.equal(kinds.get('redirect'), slashless.size);
  assert.equal(kinds.get('missing'), missing.size);
  assert.equal(kinds.get('fault'), undefined);
  assert.equal(outcomes.size, 204 + slashless.size + missing.size + 3); // + binary, broken, private

  for (const url of outcomes.keys()) {
    assert.ok(url.startsWith(`${ORIGIN}/`), `${url} is same-origin`);
    assert.ok(!url.includes('#'), `${url} has no fragment`);
  }
});

test('expectedOutcomes with faults: the fault routes and the redirect loop', () => {
  const model = new SiteModel({ pages: 10, faults: true });
  const outcomes = model.expectedOutcomes(`${ORIGIN}/`);
  assert.equal(model.homeLinks().filter((l) => l.kind === 'fault').length, FAULT_NAMES.length);
  for (const fault of ['reset', 'stall', 'bad-chunk', 'endless', 'wrong-length'] as const) {
    assert.deepEqual(outcomes.get(`${ORIGIN}/fault/${fault}`), { kind: 'fault', status: 200, fault });
  }
  assert.deepEqual(outcomes.get(`${ORIGIN}/fault/no-location`), { kind: 'fault', status: 301, fault: 'no-location' });
  assert.deepEqual(outcomes.get(`${ORIGIN}/fault/redirect-loop`), {
    kind: 'redirect',
    status: 301,
    location: `${ORIGIN}/fault/redirect-loop/b`,
  });
  assert.deepEqual(outcomes.get(`${ORIGIN}/fault/redirect-loop/b`), {
    kind: 'redirect',
    status: 301,
    location: `${ORIGIN}/fault/redirect-loop`,
  });
});

test('a tiny site (1 page, 1 link) is still connected and exact', () => {
  const model = new SiteModel({ pages: 1, linksPerPage: 1 });
  assert.deepEqual(model.linksOf(1), [
    { href: '/page/1/', kind: 'next', target: 1 },
    { href: '/private/secret/', kind: 'private' },
  ]);
  assert.equal(model.homeLinks().filter((l) => l.kind === 'page').length, 1);
  const outcomes = model.expectedOutcomes(ORIGIN);
  assert.deepEqual(
    [...outcomes.keys()].map((u) => u.slice(ORIGIN.length)),
    ['/', '/page/1/', '/files/data.bin', '/slow/1/', '/slow/2/', '/broken/', '/titles/markup/', '/private/secret/'],
  );
  assert.ok(HOME_PAGE_LINKS >= 1);
});
