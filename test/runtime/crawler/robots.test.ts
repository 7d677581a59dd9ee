// Tests for runtime/crawler/robots.ts: RFC 9309 groups, precedence, wildcards,
// percent-encoding, syntax tolerance, crawl-delay and sitemaps, and garbage input.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RobotsRules, parseRobots, productToken } from '../../../runtime/crawler/robots';

function allowed(robots: string, path: string, agent?: string): boolean {
  return parseRobots(robots).isAllowed(path, agent);
}

describe('groups', () => {
  const text = [
    'User-agent: coroscope',
    'Disallow: /private/',
    '',
    'User-agent: *',
    'Disallow: /',
    'Allow: /public/',
    '',
    'User-agent: otherbot',
    'User-agent: thirdbot',
    'Disallow: /other-only',
  ].join('\n');
  const rules = parseRobots(text);

  test('the group naming the agent applies, not the * group', () => {
    assert.equal(rules.isAllowed('/anything'), true);
    assert.equal(rules.isAllowed('/private/x'), false);
    assert.equal(rules.isAllowed('/private/x', 'coroscope'), false);
  });

  test('agents without a group of their own fall back to *', () => {
    assert.equal(rules.isAllowed('/anything', 'somebot'), false);
    assert.equal(rules.isAllowed('/public/page', 'somebot'), true);
  });

  test('several user-agent lines share one group', () => {
    assert.equal(rules.isAllowed('/other-only', 'otherbot'), false);
    assert.equal(rules.isAllowed('/other-only', 'thirdbot'), false);
    assert.equal(rules.isAllowed('/anything', 'thirdbot'), true);
  });

  test('agent matching is case-insensitive and uses the product token', () => {
    assert.equal(rules.isAllowed('/private/x', 'CoroScope'), false);
    assert.equal(rules.isAllowed('/private/x', 'Coroscope/0.1 (+https://example.com)'), false);
    assert.equal(allowed('User-agent: CoroScope/2.0\nDisallow: /x', '/x'), false);
    assert.equal(allowed('User-agent: coroscope-bot\nDisallow: /x', '/x'), true);
    assert.equal(productToken('Mozilla/5.0'), 'mozilla');
    assert.equal(productToken('  * '), '*');
    assert.equal(productToken('123'), '');
  });

  test('groups for the same agent are combined', () => {
    const text2 =
      'User-agent: coroscope\nDisallow: /a\n\nUser-agent: x\nDisallow: /\n\nUser-agent: Coroscope\nDisallow: /b\n';
    assert.equal(allowed(text2, '/a'), false);
    assert.equal(allowed(text2, '/b'), false);
    assert.equal(allowed(text2, '/c'), true);
  });

  test('several * groups are combined', () => {
    const text2 = 'User-agent: *\nDisallow: /a\nUser-agent: *\nDisallow: /b\n';
    assert.equal(allowed(text2, '/a'), false);
    assert.equal(allowed(text2, '/b'), false);
  });

  test('no matching group and no * group: everything is allowed', () => {
    assert.equal(allowed('User-agent: otherbot\nDisallow: /\n', '/x'), true);
    assert.equal(allowed('', '/x'), true);
  });

  test('rules before any user-agent line are ignored', () => {
    assert.equal(allowed('Disallow: /\nUser-agent: *\nDisallow: /x\n', '/y'), true);
  });

  test('a user-agent line after rules starts a new group', () => {
    const text2 = 'User-agent: a\nDisallow: /a\nUser-agent: coroscope\nDisallow: /c\n';
    assert.equal(allowed(text2, '/a'), true);
    assert.equal(allowed(text2, '/c'), false);
    assert.equal(allowed(text2, '/c', 'a'), true);
  });

  test('blank lines inside a group do not end it', () => {
    assert.equal(allowed('User-agent: *\n\nDisallow: /x\n\n\nDisallow: /y\n', '/y'), false);
  });
});

describe('precedence', () => {
  test('the longest matching rule wins', () => {
    const text = 'User-agent: *\nDisallow: /\nAllow: /p\nDisallow: /p/secret\nAllow: /p/secret/open\n';
    assert.equal(allowed(text, '/'), false);
    assert.equal(allowed(text, '/x'), false);
    assert.equal(allowed(text, '/page'), true);
    assert.equal(allowed(text, '/p/secret/x'), false);
    assert.equal(allowed(text, '/p/secret/open/y'), true);
  });

  test('the order of the rules does not matter', () => {
    assert.equal(allowed('User-agent: *\nAllow: /folder/page\nDisallow: /folder/\n', '/folder/page'), true);
    assert.equal(allowed('User-agent: *\nDisallow: /folder/\nAllow: /folder/page\n', '/folder/page'), true);
    assert.equal(allowed('User-agent: *\nDisallow: /folder/\nAllow: /folder/page\n', '/folder/other'), false);
  });

  test('on equal length, allow wins', () => {
    assert.equal(allowed('User-agent: *\nDisallow: /page\nAllow: /page\n', '/page'), true);
    assert.equal(allowed('User-agent: *\nAllow: /page\nDisallow: /page\n', '/page'), true);
    // `/*.html` and `/page.h` are both 7 octets long: a tie.
    assert.equal(allowed('User-agent: *\nDisallow: /*.html\nAllow: /page.h\n', '/page.html'), true);
    // `/*.html` is longer than `/page`: it wins.
    assert.equal(allowed('User-agent: *\nDisallow: /*.html\nAllow: /page\n', '/page.html'), false);
  });

  test('the length is measured in octets of the decoded pattern', () => {
    // `/%61b` is the same pattern as `/ab`, so the two tie and allow wins.
    assert.equal(allowed('User-agent: *\nDisallow: /%61b\nAllow: /ab\n', '/abc'), true);
    // `/a*` is longer than `/a` and wins over it.
    assert.equal(allowed('User-agent: *\nAllow: /a\nDisallow: /a*\n', '/abc'), false);
  });

  test('an empty disallow allows everything; an empty allow does nothing', () => {
    assert.equal(allowed('User-agent: *\nDisallow:\n', '/x'), true);
    assert.equal(allowed('User-agent: *\nAllow:\nDisallow: /\n', '/x'), false);
  });

  test('disallow / blocks everything except /robots.txt', () => {
    const rules = parseRobots('User-agent: *\nDisallow: /\n');
    assert.equal(rules.isAllowed('/'), false);
    assert.equal(rules.isAllowed('/index.html'), false);
    assert.equal(rules.isAllowed('/robots.txt'), true);
  });

  test('matching is case-sensitive in paths and anchored at the start', () => {
    assert.equal(allowed('User-agent: *\nDisallow: /Fish\n', '/fish'), true);
    assert.equal(allowed('User-agent: *\nDisallow: /fish\n', '/Fish'), true);
    assert.equal(allowed('User-agent: *\nDisallow: /fish\n', '/a/fish'), true);
    assert.equal(allowed('User-agent: *\nDisallow: fish\n', '/fish'), true);
  });

  test('a prefix rule covers files, folders and queries', () => {
    const text = 'User-agent: *\nDisallow: /fish\n';
    for (const path of [
      '/fish',
      '/fish.html',
      '/fish/salmon.html',
      '/fishheads',
      '/fishheads/yummy.html',
      '/fish.php?id=anything',
    ]) {
      assert.equal(allowed(text, path), false, path);
    }
    for (const path of ['/Fish.asp', '/catfish', '/?id=fish', '/desert/fish'])
      assert.equal(allowed(text, path), true, path);
  });

  test('the query is part of the path', () => {
    const text = 'User-agent: *\nDisallow: /search?q=\nDisallow: /*?sessionid\n';
    assert.equal(allowed(text, '/search?q=cats'), false);
    assert.equal(allowed(text, '/search'), true);
    assert.equal(allowed(text, '/page?sessionid=3'), false);
    assert.equal(allowed(text, '/page?other=1'), true);
  });
});

describe('wildcards', () => {
  test('* matches any sequence, including none', () => {
    const text = 'User-agent: *\nDisallow: /*.php\n';
    for (const path of [
      '/index.php',
      '/filename.php',
      '/folder/filename.php',
      '/folder/filename.php?parameters',
      '/folder/any.php.file.html',
      '/filename.php/',
    ]) {
      assert.equal(allowed(text, path), false, path);
    }
    for (const path of ['/', '/windows.PHP', '/php']) assert.equal(allowed(text, path), true, path);
  });

  test('a trailing * changes nothing', () => {
    const a = parseRobots('User-agent: *\nDisallow: /fish*\n');
    for (const path of ['/fish', '/fish.html', '/fishheads/x', '/catfish']) {
      assert.equal(a.isAllowed(path), allowed('User-agent: *\nDisallow: /fish\n', path), path);
    }
  });

  test('$ anchors at the end of the path and query', () => {
    const text = 'User-agent: *\nDisallow: /*.php$\n';
    assert.equal(allowed(text, '/filename.php'), false);
    assert.equal(allowed(text, '/folder/filename.php'), false);
    assert.equal(allowed(text, '/filename.php?parameters'), true);
    assert.equal(allowed(text, '/filename.php/'), true);
    assert.equal(allowed(text, '/filename.php5'), true);
    assert.equal(allowed(text, '/windows.PHP'), true);
  });

  test('allow /$ opens only the home page', () => {
    const text = 'User-agent: *\nAllow: /$\nDisallow: /\n';
    assert.equal(allowed(text, '/'), true);
    assert.equal(allowed(text, '/page'), false);
    assert.equal(allowed(text, '/?q=1'), false);
  });

  test('several wildcards, and $ after a wildcard', () => {
    const text = 'User-agent: *\nDisallow: /*/private/*.json$\nDisallow: /a*b*c\n';
    assert.equal(allowed(text, '/u/private/data.json'), false);
    assert.equal(allowed(text, '/u/v/private/w/data.json'), false);
    assert.equal(allowed(text, '/u/private/data.json.bak'), true);
    assert.equal(allowed(text, '/u/public/data.json'), true);
    assert.equal(allowed(text, '/axxbyyc'), false);
    assert.equal(allowed(text, '/abc'), false);
    assert.equal(allowed(text, '/acb'), true);
    assert.equal(allowed(text, '/a-b-b-c-c'), false);
  });

  test('anchored patterns pick the last occurrence when needed', () => {
    const text = 'User-agent: *\nDisallow: /*ab$\n';
    assert.equal(allowed(text, '/xabyab'), false);
    assert.equal(allowed(text, '/xabyaba'), true);
    assert.equal(allowed('User-agent: *\nDisallow: /a*a$\n', '/a'), true);
    assert.equal(allowed('User-agent: *\nDisallow: /a*a$\n', '/aa'), false);
  });

  test('a $ that is not last is a literal character; * and $ alone', () => {
    assert.equal(allowed('User-agent: *\nDisallow: /price$list\n', '/price$list'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /price$list\n', '/price'), true);
    assert.equal(allowed('User-agent: *\nDisallow: *\n', '/anything'), false);
    assert.equal(allowed('User-agent: *\nDisallow: $\n', '/anything'), true);
  });

  test('percent-encoded * and $ are literal characters', () => {
    assert.equal(allowed('User-agent: *\nDisallow: /a%2Ab\n', '/a*b'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /a%2Ab\n', '/axxb'), true);
    assert.equal(allowed('User-agent: *\nDisallow: /a%24\n', '/a$x'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /a%24\n', '/a'), true);
  });
});

describe('percent-encoding', () => {
  test('unreserved characters match whether encoded or not', () => {
    assert.equal(allowed('User-agent: *\nDisallow: /foo/bar/%62%61%7A\n', '/foo/bar/baz'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /foo/bar/baz\n', '/foo/bar/%62%61%7a'), false);
  });

  test('non-ASCII characters match their UTF-8 escapes', () => {
    assert.equal(allowed('User-agent: *\nDisallow: /foo/bar/\u30c4\n', '/foo/bar/%E3%83%84'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /foo/bar/%E3%83%84\n', '/foo/bar/\u30c4'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /foo/bar/%e3%83%84\n', '/foo/bar/%E3%83%84'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /caf\u00e9\n', '/cafe'), true);
  });

  test('escaped reserved characters in a query match the literal ones', () => {
    const text = 'User-agent: *\nDisallow: /foo/bar?baz=https://foo.bar\n';
    assert.equal(allowed(text, '/foo/bar?baz=https%3A%2F%2Ffoo.bar'), false);
    assert.equal(allowed(text, '/foo/bar?baz=https://foo.bar'), false);
  });

  test('a stray % is an ordinary character', () => {
    assert.equal(allowed('User-agent: *\nDisallow: /100%\n', '/100%'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /100%\n', '/100%25'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /a%zz\n', '/a%zz/b'), false);
    assert.equal(allowed('User-agent: *\nDisallow: /a%4\n', '/a%4'), false);
  });
});

describe('paths given to isAllowed', () => {
  const rules = parseRobots('User-agent: *\nDisallow: /private\nDisallow: /*?q=\n');

  test('a full URL is reduced to its path and query', () => {
    assert.equal(rules.isAllowed('http://example.com/private/x'), false);
    assert.equal(rules.isAllowed('https://example.com/public?q=1'), false);
    assert.equal(rules.isAllowed('https://example.com/public#private'), true);
  });

  test('fragments are ignored, a missing leading slash is added', () => {
    assert.equal(rules.isAllowed('/public#/private'), true);
    assert.equal(rules.isAllowed('private'), false);
    assert.equal(rules.isAllowed(''), true);
  });
});

describe('syntax', () => {
  test('comments, BOM, CRLF and CR line ends, spacing, field-name case', () => {
    const text =
      '\ufeffUSER-AGENT : coroscope # our crawler\r\n  disallow:/a   # no a\r\nALLOW:   /a/b\rDisAllow: /c\n# Disallow: /d\n';
    const rules = parseRobots(text);
    assert.equal(rules.isAllowed('/a/x'), false);
    assert.equal(rules.isAllowed('/a/b'), true);
    assert.equal(rules.isAllowed('/c'), false);
    assert.equal(rules.isAllowed('/d'), true);
  });

  test('common misspellings and a missing colon are accepted', () => {
    assert.equal(allowed('useragent: *\ndissallow: /a\n', '/a'), false);
    assert.equal(allowed('User agent: *\ndisalow: /a\n', '/a'), false);
    assert.equal(allowed('User-agent *\nDisallow /a\n', '/a'), false);
  });

  test('unknown fields and lines without a field are ignored', () => {
    assert.equal(allowed('User-agent: *\nNoindex: /a\nHost: example.com\njust some words\nDisallow: /b\n', '/a'), true);
    assert.equal(
      allowed('User-agent: *\nNoindex: /a\nHost: example.com\njust some words\nDisallow: /b\n', '/b'),
      false,
    );
  });

  test('an HTML error page served as robots.txt allows everything', () => {
    assert.equal(allowed('<!doctype html><html><body><h1>Not found</h1></body></html>', '/x'), true);
  });
});

describe('crawl-delay and sitemaps', () => {
  const text = [
    'Sitemap: https://example.com/sitemap.xml',
    'User-agent: coroscope',
    'Crawl-delay: 2.5',
    'Disallow: /x',
    'User-agent: *',
    'Crawl-delay: 10',
    'User-agent: slowbot',
    'Crawl-delay: soon',
    'Disallow:',
    'sitemap: https://example.com/news.xml # news',
  ].join('\n');
  const rules = parseRobots(text);

  test('crawl-delay of the group that applies', () => {
    assert.equal(rules.crawlDelay(), 2.5);
    assert.equal(rules.crawlDelay('coroscope'), 2.5);
    assert.equal(rules.crawlDelay('anybot'), 10);
  });

  test('an invalid crawl-delay is ignored; none gives undefined', () => {
    assert.equal(rules.crawlDelay('slowbot'), undefined);
    assert.equal(parseRobots('User-agent: *\nDisallow: /\n').crawlDelay(), undefined);
    assert.equal(parseRobots('User-agent: *\nCrawl-delay: -1\n').crawlDelay(), undefined);
  });

  test('a crawl-delay line ends the list of user agents of its group', () => {
    assert.equal(rules.isAllowed('/x', 'slowbot'), true);
    assert.equal(rules.crawlDelay('anybot'), 10);
  });

  test('sitemaps, wherever they are', () => {
    assert.deepEqual(rules.sitemaps, ['https://example.com/sitemap.xml', 'https://example.com/news.xml']);
  });
});

describe('fallbacks and robustness', () => {
  test('allowAll and disallowAll', () => {
    assert.equal(RobotsRules.allowAll().isAllowed('/anything'), true);
    assert.equal(RobotsRules.disallowAll().isAllowed('/anything'), false);
    assert.equal(RobotsRules.disallowAll().isAllowed('/anything', 'otherbot'), false);
    assert.equal(RobotsRules.disallowAll().isAllowed('/robots.txt'), true);
  });

  test('garbage never throws', () => {
    let state = 42;
    const random = (n: number): number => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state % n;
    };
    const alphabet = [
      'User-agent:',
      'Disallow:',
      'Allow:',
      'Crawl-delay:',
      '*',
      '$',
      '%',
      '%4',
      '%zz',
      '#',
      '\n',
      '\r',
      ' ',
      ':',
      '/',
      '\ud800',
      '\u0000',
      '\ufeff',
      'a',
      '\u30c4',
      '?',
      '*$',
    ];
    for (let i = 0; i < 500; i++) {
      let text = '';
      const n = random(60);
      for (let k = 0; k < n; k++) text += alphabet[random(alphabet.length)];
      const rules = parseRobots(text);
      let path = '';
      const m = random(10);
      for (let k = 0; k < m; k++) path += alphabet[random(alphabet.length)];
      assert.equal(typeof rules.isAllowed(path), 'boolean');
      assert.equal(typeof rules.isAllowed(path, text), 'boolean');
      rules.crawlDelay(path);
    }
    const bytes = Buffer.alloc(4096);
    for (let i = 0; i < bytes.length; i++) bytes[i] = random(256);
    assert.equal(typeof parseRobots(bytes.toString('latin1')).isAllowed('/x'), 'boolean');
  });

  test('a large file with a long wildcard pattern stays fast', () => {
    const lines = ['User-agent: *'];
    for (let i = 0; i < 20000; i++) lines.push(`Disallow: /dir${i}/*.tmp$`);
    lines.push(`Disallow: /${'*a'.repeat(200)}$`);
    const start = process.hrtime.bigint();
    const rules = parseRobots(lines.join('\n'));
    const path = `/${'a'.repeat(5000)}b`;
    assert.equal(rules.isAllowed(path), true);
    assert.equal(rules.isAllowed('/dir19999/x.tmp'), false);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.ok(ms < 2000, `took ${ms.toFixed(1)} ms`);
  });
});
