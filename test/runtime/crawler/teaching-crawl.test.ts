// TeachingCrawl (runtime/crawler/teaching-crawl.ts), the bookkeeping of the two teaching stages, on its own:
// no sockets, responses made by hand, the loop's clock a fake one (ClockedCrawl). Which URLs are admitted
// (roots, links on the roots' hosts, `exclude`, maxDepth, maxPages, redirects and their limit), what each
// visit records (its statistic, its error), robots.txt holding an origin's URLs until it is recorded, the
// in-flight count and the stop, deadlines fired in order on the clock, the endpoint a URL is fetched from.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Http10Response } from '../../../runtime/crawler/http10-response';
import { MalformedResponseError } from '../../../runtime/crawler/http10-response';
import {
  RedirectLimitError,
  TeachingCrawl,
  UnsupportedUrlError,
  type TeachingCrawlOptions,
} from '../../../runtime/crawler/teaching-crawl';

/** The fake clock the crawls below read (seconds). */
const clock = { now: 100 };

class ClockedCrawl extends TeachingCrawl {
  override now(): number {
    return clock.now;
  }
}

const open: TeachingCrawl[] = [];
function crawlOf(roots: string[], options: TeachingCrawlOptions = {}): TeachingCrawl {
  const crawl = new ClockedCrawl(roots, options);
  open.push(crawl);
  return crawl;
}
afterEach(() => {
  for (const c of open.splice(0)) c.close();
  clock.now = 100;
});

function response(status: number, headers: Record<string, string> = {}, body = ''): Http10Response {
  return {
    version: 'HTTP/1.0',
    status,
    reason: '',
    headers: new Map(Object.entries(headers)),
    body: Buffer.from(body),
  };
}

function page(...hrefs: string[]): Http10Response {
  const links = hrefs.map((h) => `<a href="${h}">x</a>`).join('');
  return response(200, { 'content-type': 'text/html; charset=utf-8' }, `<html><body>${links}</body></html>`);
}

const urls = (targets: ReadonlyArray<{ url: string }>): string[] => targets.map((t) => t.url);

describe('TeachingCrawl', () => {
  it('admits each root once; a root that is no http(s) URL is a failure at once; none left: stopped', () => {
    const crawl = crawlOf(['http://a.test/', 'http://a.test/', 'ftp://a.test/x']);
    assert.deepEqual(crawl.admitRoots(), [{ url: 'http://a.test/', maxRedirect: 10 }]);
    assert.equal(crawl.inFlight, 1);
    assert.equal(crawl.stopped, false);
    assert.deepEqual(
      crawl.errors.map((e) => [e.url, e.error instanceof UnsupportedUrlError, e.error.message]),
      [['ftp://a.test/x', true, 'not an http or https URL: "ftp://a.test/x"']],
    );
    assert.equal(crawl.stats[0]!.exception, 'UnsupportedUrlError: not an http or https URL: "ftp://a.test/x"');
    const none = crawlOf(['mailto:x@a.test']);
    assert.deepEqual(none.admitRoots(), []);
    assert.equal(none.stopped, true);
  });

  it("a page's links: on the roots' hosts, not excluded, each admitted once, one deeper; its statistic counts them", () => {
    const crawl = crawlOf(['http://a.test/'], { exclude: /private/, maxDepth: 1 });
    crawl.admitRoots();
    const root = page('/one', '/two#frag', '/one', 'http://elsewhere.test/', '/private/x');
    const found = crawl.recordResponse('http://a.test/', 10, root);
    assert.deepEqual(urls(found), ['http://a.test/one', 'http://a.test/two']);
    assert.deepEqual(crawl.stats, [
      {
        url: 'http://a.test/',
        nextUrl: null,
        status: 200,
        exception: null,
        size: root.body.length,
        contentType: 'text/html; charset=utf-8',
        encoding: 'utf-8',
        // The page's links are listed once each: /one, /two (the other host's and the excluded not counted).
        numUrls: 2,
        numNewUrls: 2,
      },
    ]);
    // One deeper than maxDepth: excluded, said why.
    assert.deepEqual(urls(crawl.recordResponse('http://a.test/one', 10, page('/deep'))), []);
    assert.deepEqual(
      [...crawl.result().exclusions],
      [
        ['http://a.test/private/x', 'exclude'],
        ['http://a.test/deep', 'maxDepth'],
      ],
    );
    assert.deepEqual(crawl.result().excluded, ['http://a.test/private/x']);
  });

  it('maxPages: links beyond the budget are not admitted', () => {
    const crawl = crawlOf(['http://a.test/'], { maxPages: 2 });
    crawl.admitRoots();
    assert.deepEqual(urls(crawl.recordResponse('http://a.test/', 10, page('/1', '/2', '/3'))), ['http://a.test/1']);
    assert.equal(crawl.seenUrls.size, 2);
  });

  it('a redirect records where it goes and admits it as deep, one redirect fewer; at the limit it fails', () => {
    // maxDepth 0: a redirect's target is as deep as the redirect (a root's: 0), so it is admitted.
    const crawl = crawlOf(['http://a.test/'], { maxRedirect: 1, maxDepth: 0 });
    crawl.admitRoots();
    const next = crawl.recordResponse('http://a.test/', 1, response(301, { location: '/moved#top' }, 'gone'));
    assert.deepEqual(next, [{ url: 'http://a.test/moved', maxRedirect: 0 }]);
    assert.deepEqual(
      [crawl.stats[0]!.nextUrl, crawl.stats[0]!.size, crawl.stats[0]!.contentType],
      ['http://a.test/moved', 0, null],
    );
    assert.deepEqual(crawl.recordResponse('http://a.test/moved', 0, response(302, { location: '/again' })), []);
    const [limit] = crawl.errors;
    assert.ok(limit?.error instanceof RedirectLimitError);
    assert.equal(
      crawl.stats[1]!.exception,
      'RedirectLimitError: redirect limit (1) reached: http://a.test/moved redirects to http://a.test/again',
    );
    // No Location: thrown for the fetch to record, nothing recorded here.
    assert.throws(() => crawl.recordResponse('http://a.test/x', 1, response(302)), MalformedResponseError);
    assert.equal(crawl.stats.length, 2);
  });

  it('in flight until each admitted fetch finished: then stopped', () => {
    const crawl = crawlOf(['http://a.test/']);
    crawl.admitRoots();
    crawl.recordResponse('http://a.test/', 10, page('/a'));
    assert.equal(crawl.inFlight, 2);
    crawl.fetchFinished();
    assert.equal(crawl.stopped, false);
    crawl.recordFailure('http://a.test/a', 'reset', null);
    crawl.fetchFinished();
    assert.equal(crawl.inFlight, 0);
    assert.equal(crawl.stopped, true);
    assert.equal(crawl.stats[1]!.exception, 'Error: non-Error thrown: reset');
  });

  it("robots.txt: an origin's URLs wait for it; it decides each; it is no statistic", () => {
    const crawl = crawlOf(['http://a.test/', 'http://a.test/private/', 'http://b.test/'], { robots: true });
    assert.deepEqual(crawl.admitRoots(), [
      { url: 'http://a.test/robots.txt', maxRedirect: 0 },
      { url: 'http://b.test/robots.txt', maxRedirect: 0 },
    ]);
    assert.equal(crawl.inFlight, 5);
    const rules = response(200, { 'content-type': 'text/plain' }, 'User-agent: *\nDisallow: /private/\n');
    assert.deepEqual(crawl.recordResponse('http://a.test/robots.txt', 0, rules), [
      { url: 'http://a.test/', maxRedirect: 10 },
    ]);
    // A 5xx disallows the whole origin.
    assert.deepEqual(crawl.recordResponse('http://b.test/robots.txt', 0, response(503)), []);
    assert.deepEqual(
      [...crawl.result().exclusions],
      [
        ['http://a.test/private/', 'robots'],
        ['http://b.test/', 'robots'],
      ],
    );
    assert.deepEqual(crawl.stats, []);
    // A link found later on a known origin is decided at once.
    assert.deepEqual(urls(crawl.recordResponse('http://a.test/', 10, page('/private/2', '/ok'))), ['http://a.test/ok']);
  });

  it('a robots.txt that cannot be fetched allows all', () => {
    const crawl = crawlOf(['http://a.test/x'], { robots: true });
    crawl.admitRoots();
    assert.deepEqual(crawl.recordFailure('http://a.test/robots.txt', new Error('refused'), null), [
      { url: 'http://a.test/x', maxRedirect: 10 },
    ]);
    assert.deepEqual(crawl.errors, []);
  });

  it('deadlines on the clock: select waits until the next, they fire in order, a cancelled one never', () => {
    const crawl = crawlOf(['http://a.test/'], { timeout: 5 });
    const fired: string[] = [];
    crawl.armDeadline(() => fired.push('first'));
    clock.now = 101;
    const second = crawl.armDeadline(() => fired.push('second'));
    clock.now = 102;
    crawl.armDeadline(() => fired.push('third'));
    assert.equal(crawl.selectTimeout(), 3);
    second.cancel();
    clock.now = 106;
    crawl.expireDeadlines();
    assert.deepEqual(fired, ['first']);
    assert.equal(crawl.selectTimeout(), 1);
    // Due at 107: fired at 107 exactly.
    clock.now = 107;
    crawl.expireDeadlines();
    assert.deepEqual(fired, ['first', 'third']);
    clock.now = 110;
    assert.equal(crawl.selectTimeout(), null);
    // In flight with nothing to wake the loop: wedged.
    crawl.admitRoots();
    assert.equal(crawl.isWedged(), true);
    assert.equal(crawl.result().seconds, 10);
    // No timeout: no deadline at all.
    const unbounded = crawlOf(['http://a.test/'], { timeout: Infinity });
    unbounded.armDeadline(() => fired.push('never'));
    assert.equal(unbounded.selectTimeout(), null);
  });

  it('the endpoint of a URL: host, port, TLS and the HTTP/1.0 request; only http(s) fetched', () => {
    const crawl = crawlOf(['http://a.test/']);
    const plain = crawl.endpointOf('http://a.test/p?q=1');
    assert.deepEqual([plain.host, plain.port, plain.tls], ['a.test', 80, false]);
    assert.equal(plain.request.toString('latin1').split('\r\n')[0], 'GET /p?q=1 HTTP/1.0');
    const secure = crawl.endpointOf('https://[::1]:8443/');
    assert.deepEqual([secure.host, secure.port, secure.tls], ['::1', 8443, true]);
    assert.deepEqual(crawl.socketOptionsFor(secure), { tls: true });
    assert.deepEqual(crawl.socketOptionsFor(plain), {});
    assert.throws(() => crawl.endpointOf('ftp://a.test/'), UnsupportedUrlError);
    assert.throws(() => crawl.endpointOf('not a url'), UnsupportedUrlError);
  });

  it('options out of range are refused before anything is announced', () => {
    assert.throws(() => new ClockedCrawl([], { maxRedirect: -1 }), {
      name: 'RangeError',
      message: 'maxRedirect must be an integer >= 0, got -1',
    });
    assert.throws(() => new ClockedCrawl([], { timeout: 0 }), {
      message: 'timeout must be a number of seconds > 0, got 0',
    });
  });
});
