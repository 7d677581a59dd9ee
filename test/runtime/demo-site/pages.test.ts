// Tests of the demo site's bodies (runtime/demo-site/pages.ts) against its model: every HTML page's links are
// exactly the model's for its route, in order, each once, and nothing else looks like a link; the error
// bodies carry none but a redirect's target; a title of markup is escaped; robots.txt, the JSON API and the
// binary file as the model says; the same options give the same bytes, another seed other ones.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  escapeHtml,
  renderBinaryData,
  renderBrokenPage,
  renderContentPage,
  renderHomePage,
  renderMarkupTitlePage,
  renderNotFoundPage,
  renderPagesJson,
  renderPrivatePage,
  renderRedirectPage,
  renderRobotsTxt,
  renderSlowPage,
} from '../../../runtime/demo-site/pages';
import {
  BINARY_BYTES,
  BROKEN_CHARSET,
  MARKUP_TITLE_TEXT,
  SiteModel,
  type SiteRoute,
} from '../../../runtime/demo-site/site-model';

/** The hrefs of a body's anchors, in order. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)">/g)].map((m) => m[1]!);
}

/** What a link extractor could take for a link: tags that carry a URL, and href attributes anywhere. */
function linkLike(html: string): number {
  return (
    [...html.matchAll(/<(?:a|area|base|img|link|script|iframe|form)\b/gi)].length +
    [...html.matchAll(/\bhref\s*=/gi)].length
  );
}

describe('HTML pages', () => {
  const models = [new SiteModel({ pages: 30, seed: 7 }), new SiteModel({ pages: 12, linksPerPage: 3, faults: true })];

  test("each page's links are exactly its route's in the model, in order; nothing else looks like a link", () => {
    for (const model of models) {
      const pages: Array<[SiteRoute, string]> = [
        [{ kind: 'home' }, renderHomePage(model)],
        [{ kind: 'slow', n: 2 }, renderSlowPage(model, 2)],
        [{ kind: 'broken' }, renderBrokenPage(model)],
        [{ kind: 'markup-title' }, renderMarkupTitlePage(model)],
        [{ kind: 'private' }, renderPrivatePage(model)],
      ];
      for (let n = 1; n <= model.pages; n++) pages.push([{ kind: 'page', n }, renderContentPage(model, n)]);
      for (const [route, html] of pages) {
        const expected = model.linksAt(route).map((l) => l.href);
        assert.deepStrictEqual(hrefs(html), expected, JSON.stringify(route));
        assert.equal(linkLike(html), 2 * expected.length, JSON.stringify(route));
      }
    }
  });

  test('a content page is exactly pageBytes long, its text from the model (page and seed in its footer)', () => {
    const model = new SiteModel({ pages: 30, seed: 7, pageBytes: 3000 });
    for (const n of [1, 17, 30]) {
      const html = renderContentPage(model, n);
      assert.equal(Buffer.byteLength(html), 3000);
      assert.equal(html.startsWith('<!DOCTYPE html>\n'), true);
      assert.equal(html.endsWith(`<footer><p>Page ${n} of 30 · seed 7</p></footer>\n</body>\n</html>\n`), true);
    }
  });

  test('the home page names the site, its size and seed; the fault routes only when faults are on', () => {
    const plain = renderHomePage(new SiteModel({ pages: 30, seed: 7 }));
    const faulty = renderHomePage(new SiteModel({ pages: 30, seed: 7, faults: true }));
    assert.equal(plain.includes('It has 30 pages of 8 links each, generated from seed 7.'), true);
    assert.deepStrictEqual(
      [plain.includes('<h2>Fault routes</h2>'), faulty.includes('<h2>Fault routes</h2>')],
      [false, true],
    );
  });

  test('a title of markup is escaped, in <title> and <h1>; the broken page declares its unknown charset', () => {
    const model = new SiteModel();
    const html = renderMarkupTitlePage(model);
    const escaped = escapeHtml(MARKUP_TITLE_TEXT);
    assert.equal(html.includes(`<title>${escaped}</title>`), true);
    assert.equal(html.includes(`<h1>${escaped}</h1>`), true);
    assert.equal(html.includes('<img'), false);
    assert.equal(renderBrokenPage(model).includes(`<meta charset="${BROKEN_CHARSET}">`), true);
  });
});

describe('other bodies', () => {
  test('escapeHtml: the five characters HTML gives meaning, ampersands first', () => {
    assert.equal(escapeHtml(`<a href="x">'&amp;'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;amp;&#39;&lt;/a&gt;');
  });

  test('a 404 carries no link; a 301 one, to its target, escaped', () => {
    assert.deepStrictEqual(hrefs(renderNotFoundPage()), []);
    assert.equal(linkLike(renderNotFoundPage()), 0);
    const redirect = renderRedirectPage('/page/3/?a=1&b="2"');
    assert.deepStrictEqual(hrefs(redirect), ['/page/3/?a=1&amp;b=&quot;2&quot;']);
    assert.equal(linkLike(redirect), 2);
  });

  test('robots.txt disallows /private/ for every agent', () => {
    assert.equal(renderRobotsTxt(), '# Coroscope demo site\nUser-agent: *\nDisallow: /private/\n');
  });

  test("the JSON API lists every content page's path in order", () => {
    assert.deepStrictEqual(JSON.parse(renderPagesJson(new SiteModel({ pages: 3 }))), {
      pages: 3,
      links: ['/page/1/', '/page/2/', '/page/3/'],
    });
  });

  test('the binary file: BINARY_BYTES bytes, the same for a seed, others for another', () => {
    const a = renderBinaryData(new SiteModel({ seed: 7 }));
    assert.equal(a.length, BINARY_BYTES);
    assert.deepStrictEqual(renderBinaryData(new SiteModel({ seed: 7 })), a);
    assert.notDeepStrictEqual(renderBinaryData(new SiteModel({ seed: 8 })), a);
    // Not constant: many distinct byte values.
    assert.ok(new Set(a).size > 200, `${new Set(a).size} distinct bytes`);
  });

  test('pure and deterministic: the same options give the same pages, another seed other text', () => {
    const render = (seed: number): string[] => {
      const m = new SiteModel({ pages: 10, seed, faults: true });
      return [renderHomePage(m), renderContentPage(m, 4), renderSlowPage(m, 1), renderPrivatePage(m)];
    };
    assert.deepStrictEqual(render(3), render(3));
    assert.notDeepStrictEqual(render(3)[1], render(4)[1]);
  });
});
