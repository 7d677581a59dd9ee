// Tests for runtime/crawler/links.ts: HTML detection, charset detection and decoding,
// link collection and resolution (base, fragments, entities, invalid hrefs), the title,
// the UnknownCharsetError trace, the URL shortcut against WHATWG URL, and speed on 1 MB.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  LinkResolver,
  UnknownCharsetError,
  charsetFromContentType,
  decodeBody,
  detectCharset,
  extractLinks,
  isHtmlContentType,
  mediaTypeOf,
  sniffMetaCharset,
} from '../../../runtime/crawler/links';

const PAGE = 'http://127.0.0.1:8080/dir/page.html';

function links(html: string, pageUrl = PAGE, contentType = 'text/html'): string[] {
  return extractLinks(Buffer.from(html, 'utf8'), contentType, pageUrl).links;
}

describe('content type', () => {
  test('media type and HTML detection', () => {
    assert.equal(mediaTypeOf('Text/HTML; charset=UTF-8'), 'text/html');
    assert.equal(mediaTypeOf(undefined), '');
    assert.equal(isHtmlContentType('text/html'), true);
    assert.equal(isHtmlContentType(' TEXT/HTML ;charset=utf-8'), true);
    assert.equal(isHtmlContentType('application/xhtml+xml'), true);
    assert.equal(isHtmlContentType('text/plain'), false);
    assert.equal(isHtmlContentType('application/xml'), false);
    assert.equal(isHtmlContentType(undefined), false);
    assert.equal(isHtmlContentType(''), false);
  });

  test('charset parameter', () => {
    assert.equal(charsetFromContentType('text/html; charset=ISO-8859-1'), 'iso-8859-1');
    assert.equal(charsetFromContentType('text/html;charset="utf-8"'), 'utf-8');
    assert.equal(charsetFromContentType('text/html; q=1; Charset = Shift_JIS ; x=y'), 'shift_jis');
    assert.equal(charsetFromContentType('text/html; charset='), undefined);
    assert.equal(charsetFromContentType('text/html'), undefined);
    assert.equal(charsetFromContentType(undefined), undefined);
  });
});

describe('non-HTML bodies', () => {
  for (const type of ['image/png', 'text/plain', 'application/json', 'text/css']) {
    test(`${type} gives no links`, () => {
      const result = extractLinks(Buffer.from('<a href="/x">x</a>'), type, PAGE);
      assert.deepEqual(result, { links: [], charset: 'utf-8', isHtml: false });
    });
  }

  test('a missing content type is not HTML', () => {
    assert.equal(extractLinks(Buffer.from('<a href="/x">'), undefined, PAGE).isHtml, false);
  });

  test('the charset of a non-HTML body comes from its header and is not checked', () => {
    const result = extractLinks(Buffer.from('x'), 'text/plain; charset=x-nonsense', PAGE);
    assert.equal(result.charset, 'x-nonsense');
    assert.equal(result.isHtml, false);
  });

  test('XHTML is HTML', () => {
    const result = extractLinks(
      Buffer.from('<html xmlns="http://www.w3.org/1999/xhtml"><a href="x"/></html>'),
      'application/xhtml+xml',
      PAGE,
    );
    assert.equal(result.isHtml, true);
    assert.deepEqual(result.links, ['http://127.0.0.1:8080/dir/x']);
  });
});

describe('link collection', () => {
  test('relative, absolute-path, query-only, protocol-relative and absolute links', () => {
    assert.deepEqual(
      links(`
        <a href="other.html">1</a>
        <a href="./same-dir/x">2</a>
        <a href="../up.html">3</a>
        <a href="../../../../too-far">4</a>
        <a href="/root?q=1">5</a>
        <a href="?page=2">6</a>
        <a href="//example.org/net">7</a>
        <a href="https://Example.COM:443/abs">8</a>
        <a href="sub/">9</a>
        <a href=".">10</a>
        <a href="..">11</a>`),
      [
        'http://127.0.0.1:8080/dir/other.html',
        'http://127.0.0.1:8080/dir/same-dir/x',
        'http://127.0.0.1:8080/up.html',
        'http://127.0.0.1:8080/too-far',
        'http://127.0.0.1:8080/root?q=1',
        'http://127.0.0.1:8080/dir/page.html?page=2',
        'http://example.org/net',
        'https://example.com/abs',
        'http://127.0.0.1:8080/dir/sub/',
        'http://127.0.0.1:8080/dir/',
        'http://127.0.0.1:8080/',
      ],
    );
  });

  test('a, area and link hrefs only; not img, script, iframe or anchors without href', () => {
    assert.deepEqual(
      links(`<head><link rel="stylesheet" href="/s.css"><script src="/s.js"></script></head>
        <body><img src="/i.png"><iframe src="/f.html"></iframe><a name="top">no href</a>
        <map><area shape="rect" href="/area"></map><a href="/a">a</a></body>`),
      ['http://127.0.0.1:8080/s.css', 'http://127.0.0.1:8080/area', 'http://127.0.0.1:8080/a'],
    );
  });

  test('unique, in document order, fragments dropped before deduplication', () => {
    assert.deepEqual(
      links('<a href="/b#1"></a><a href="/a"></a><a href="/b#2"></a><a href="/a"></a><a href="/b"></a>'),
      ['http://127.0.0.1:8080/b', 'http://127.0.0.1:8080/a'],
    );
  });

  test('fragment-only and empty hrefs refer to the page itself', () => {
    assert.deepEqual(links('<a href="#top">t</a><a href="">e</a>', `${PAGE}?x=1#here`), [`${PAGE}?x=1`]);
  });

  test('upper-case tags and attributes, unquoted and single-quoted values', () => {
    assert.deepEqual(links(`<A HREF=/one>1</A><a href='/two'>2</a><AREA Href="/three">`), [
      'http://127.0.0.1:8080/one',
      'http://127.0.0.1:8080/two',
      'http://127.0.0.1:8080/three',
    ]);
  });

  test('the first of duplicate href attributes wins', () => {
    assert.deepEqual(links('<a href="/first" href="/second">x</a>'), ['http://127.0.0.1:8080/first']);
  });

  test('markup inside scripts, styles and comments is not a link', () => {
    assert.deepEqual(
      links(`<script>document.write('<a href="/fake1">');</script>
        <style>a[href="/fake2"] { color: red }</style>
        <!-- <a href="/fake3">old</a> -->
        <textarea><a href="/fake4"></textarea>
        <a href="/real">real</a>`),
      ['http://127.0.0.1:8080/real'],
    );
  });

  test('javascript:, mailto: and other non-http schemes are ignored', () => {
    assert.deepEqual(
      links(`<a href="javascript:void(0)">j</a><a href="JavaScript:alert(1)">J</a><a href="mailto:me@example.com">m</a>
        <a href="tel:+123">t</a><a href="data:text/html,hi">d</a><a href="ftp://example.com/f">f</a>
        <a href="about:blank">a</a><a href="/ok">ok</a>`),
      ['http://127.0.0.1:8080/ok'],
    );
  });

  test('invalid hrefs are skipped silently', () => {
    assert.deepEqual(
      links(`<a href="http://[bad">1</a><a href="http://exa mple.com/">2</a><a href="https://:80/">3</a>
        <a href="http://">4</a><a href="http://a:b:c/">5</a><a href="http://999.999.999.999/">6</a>
        <a href="/after">ok</a>`),
      ['http://127.0.0.1:8080/after'],
    );
  });

  test('an invalid page URL still yields the absolute links', () => {
    assert.deepEqual(links('<a href="/rel">r</a><a href="http://example.com/abs">a</a>', 'not a url'), [
      'http://example.com/abs',
    ]);
  });

  test('whitespace around hrefs is stripped, tabs and newlines inside removed, spaces encoded', () => {
    assert.deepEqual(links('<a href="  /pad  ">p</a><a href="/a\n/b\t/c">n</a><a href="/with space">s</a>'), [
      'http://127.0.0.1:8080/pad',
      'http://127.0.0.1:8080/a/b/c',
      'http://127.0.0.1:8080/with%20space',
    ]);
  });

  test('non-ASCII hrefs are percent-encoded as UTF-8, hosts converted to punycode', () => {
    assert.deepEqual(links('<a href="/café?q=é">c</a><a href="http://bücher.example/">b</a>'), [
      'http://127.0.0.1:8080/caf%C3%A9?q=%C3%A9',
      'http://xn--bcher-kva.example/',
    ]);
  });
});

describe('entities in hrefs', () => {
  test('named and numeric references are decoded', () => {
    assert.deepEqual(
      links(`<a href="/q?a=1&amp;b=2">1</a><a href="&#x2F;hex&#47;dec">2</a><a href='/say?w=&quot;hi&quot;'>3</a>
        <a href="/lt?x=&lt;y&gt;">4</a><a href="/apos?x=&apos;">5</a><a href="/dash&mdash;x">6</a>`),
      [
        'http://127.0.0.1:8080/q?a=1&b=2',
        'http://127.0.0.1:8080/hex/dec',
        'http://127.0.0.1:8080/say?w=%22hi%22',
        'http://127.0.0.1:8080/lt?x=%3Cy%3E',
        'http://127.0.0.1:8080/apos?x=%27',
        'http://127.0.0.1:8080/dash%E2%80%94x',
      ],
    );
  });

  test('attribute rules: a legacy reference followed by = stays as written', () => {
    // HTML: in an attribute, `&copy=` is not decoded (it would break query strings).
    assert.deepEqual(links('<a href="/x?a=1&copy=2">1</a><a href="/y?a=1&copy;">2</a>'), [
      'http://127.0.0.1:8080/x?a=1&copy=2',
      'http://127.0.0.1:8080/y?a=1%C2%A9',
    ]);
  });

  test('a bare ampersand and an unknown reference stay as written', () => {
    assert.deepEqual(links('<a href="/a?x=1&y=2&zzzz;">1</a><a href=/b?p&amp;q>2</a>'), [
      'http://127.0.0.1:8080/a?x=1&y=2&zzzz;',
      'http://127.0.0.1:8080/b?p&q',
    ]);
  });

  test('the same href written differently is one link', () => {
    assert.deepEqual(
      links('<a href="/a?x=1&amp;y=2">1</a><a href="/a?x=1&y=2">2</a><a href=\'/a?x=1&#38;y=2\'>3</a>'),
      ['http://127.0.0.1:8080/a?x=1&y=2'],
    );
  });
});

describe('base href', () => {
  test('a relative base is resolved against the page and used for every link', () => {
    assert.deepEqual(
      links('<a href="before">b</a><base href="/other/dir/"><a href="after">a</a><a href="/abs">c</a>'),
      ['http://127.0.0.1:8080/other/dir/before', 'http://127.0.0.1:8080/other/dir/after', 'http://127.0.0.1:8080/abs'],
    );
  });

  test('the first base wins', () => {
    assert.deepEqual(
      links('<base href="http://example.com/one/"><base href="http://example.org/two/"><a href="x">x</a>'),
      ['http://example.com/one/x'],
    );
  });

  test('a base without href is skipped; the next one with href counts', () => {
    assert.deepEqual(links('<base target="_blank"><base href="/b/"><a href="x">x</a>'), ['http://127.0.0.1:8080/b/x']);
  });

  test('an invalid or javascript: base falls back to the page URL', () => {
    assert.deepEqual(links('<base href="http://[bad/"><a href="x">x</a>'), ['http://127.0.0.1:8080/dir/x']);
    assert.deepEqual(links('<base href="javascript:void(0)"><a href="y">y</a>'), ['http://127.0.0.1:8080/dir/y']);
  });

  test('an entity-encoded base is decoded', () => {
    assert.deepEqual(links('<base href="/b?x=1&amp;y=2"><a href="?z">z</a><a href="c">c</a>'), [
      'http://127.0.0.1:8080/b?z',
      'http://127.0.0.1:8080/c',
    ]);
  });

  test('the base is not kept from one page to the next', () => {
    links('<base href="http://example.com/">');
    assert.deepEqual(links('<a href="x">x</a>'), ['http://127.0.0.1:8080/dir/x']);
  });
});

describe('title', () => {
  function title(html: string): string | undefined {
    return extractLinks(Buffer.from(html), 'text/html', PAGE).title;
  }

  test('entities decoded, whitespace collapsed', () => {
    assert.equal(
      title('<title>\n  Tom &amp; Jerry &mdash;\t the   &lt;show&gt;  \n</title>'),
      'Tom & Jerry \u2014 the <show>',
    );
  });

  test('no-break spaces are kept (only ASCII whitespace is collapsed)', () => {
    assert.equal(title('<title>&nbsp;a&nbsp; b</title>'), '\u00a0a\u00a0 b');
  });

  test('markup inside the title is text', () => {
    assert.equal(title('<title>a <b>bold</b> move</title><a href="/x">'), 'a <b>bold</b> move');
  });

  test('the first title counts; an SVG title does not', () => {
    assert.equal(title('<svg><title>icon</title></svg><title>Real</title><title>Second</title>'), 'Real');
  });

  test('absent when there is none, empty when it is empty', () => {
    const result = extractLinks(Buffer.from('<p>no title</p>'), 'text/html', PAGE);
    assert.equal('title' in result, false);
    assert.equal(title('<title></title>'), '');
    assert.equal(title('<title>   </title>'), '');
  });

  test('an unclosed title runs to the end of the document', () => {
    assert.equal(title('<title>Unclosed <a href="/x">'), 'Unclosed <a href="/x">');
  });

  test('the title is not kept from one page to the next', () => {
    title('<title>One</title>');
    assert.equal(title('<p>none</p>'), undefined);
  });
});

describe('charsets', () => {
  const cafeLatin1 = Buffer.from('<title>Caf\u00e9</title><a href="/caf\u00e9">x</a>', 'latin1');

  test('no declaration: utf-8', () => {
    const result = extractLinks(Buffer.from('<title>Caf\u00e9 \u2615</title>'), 'text/html', PAGE);
    assert.equal(result.charset, 'utf-8');
    assert.equal(result.title, 'Caf\u00e9 \u2615');
  });

  test('a latin1 page declared in the header', () => {
    const result = extractLinks(cafeLatin1, 'text/html; charset=ISO-8859-1', PAGE);
    assert.equal(result.charset, 'iso-8859-1');
    assert.equal(result.title, 'Caf\u00e9');
    assert.deepEqual(result.links, ['http://127.0.0.1:8080/caf%C3%A9']);
  });

  test('a latin1 page declared by <meta charset>', () => {
    const body = Buffer.concat([Buffer.from('<head><meta charset="iso-8859-1">'), cafeLatin1]);
    const result = extractLinks(body, 'text/html', PAGE);
    assert.equal(result.charset, 'iso-8859-1');
    assert.equal(result.title, 'Caf\u00e9');
  });

  test('a windows-1252 page declared by <meta http-equiv="Content-Type">', () => {
    const body = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'),
      Buffer.from([
        0x3c, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x3e, 0x93, 0x71, 0x94, 0x3c, 0x2f, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x3e,
      ]),
    ]);
    const result = extractLinks(body, 'text/html', PAGE);
    assert.equal(result.charset, 'windows-1252');
    assert.equal(result.title, '\u201cq\u201d');
  });

  test('the header wins over the meta declaration', () => {
    const body = Buffer.concat([Buffer.from('<meta charset="utf-8">'), cafeLatin1]);
    const result = extractLinks(body, 'text/html; charset=latin1', PAGE);
    assert.equal(result.charset, 'latin1');
    assert.equal(result.title, 'Caf\u00e9');
  });

  test('a byte order mark wins over both', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('<meta charset="latin1"><title>\u00e9</title>'),
    ]);
    const result = extractLinks(body, 'text/html; charset=latin1', PAGE);
    assert.equal(result.charset, 'utf-8');
    assert.equal(result.title, '\u00e9');
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<title>\u00e9</title><a href="/u">', 'utf16le'),
    ]);
    const result16 = extractLinks(utf16, 'text/html', PAGE);
    assert.equal(result16.charset, 'utf-16le');
    assert.equal(result16.title, '\u00e9');
    assert.deepEqual(result16.links, ['http://127.0.0.1:8080/u']);
  });

  test('meta prescan: the first 1024 bytes only, comments skipped, utf-16 means utf-8', () => {
    assert.equal(sniffMetaCharset(Buffer.from(`${' '.repeat(1100)}<meta charset="latin1">`)), undefined);
    assert.equal(sniffMetaCharset(Buffer.from(`${' '.repeat(900)}<meta charset="latin1">`)), 'latin1');
    assert.equal(
      sniffMetaCharset(Buffer.from('<!-- <meta charset="koi8-r"> --><meta charset=\'Shift_JIS\'>')),
      'shift_jis',
    );
    assert.equal(sniffMetaCharset(Buffer.from('<META CHARSET=KOI8-R>')), 'koi8-r');
    assert.equal(sniffMetaCharset(Buffer.from('<meta charset="utf-16le">')), 'utf-8');
    assert.equal(sniffMetaCharset(Buffer.from('<meta name="x" content="y"><p>charset=latin1</p>')), undefined);
    assert.equal(detectCharset(Buffer.from('<p>x</p>'), 'text/html'), 'utf-8');
  });

  test('malformed bytes are replaced, not fatal', () => {
    const result = extractLinks(
      Buffer.from([0x3c, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x3e, 0xff, 0xfe, 0x41]),
      'text/html',
      PAGE,
    );
    assert.equal(result.title, '\ufffd\ufffdA');
  });

  test('an unknown meta charset throws UnknownCharsetError from decodeBody', () => {
    const body = Buffer.from(
      '<html><head><meta charset="x-coroscope-unknown"><title>t</title></head><a href="/x">x</a>',
    );
    const url = 'http://127.0.0.1:8080/bad-charset.html';
    assert.throws(
      () => extractLinks(body, 'text/html', url),
      (error: unknown) => {
        assert.ok(error instanceof UnknownCharsetError);
        assert.ok(error instanceof Error);
        assert.equal(error.name, 'UnknownCharsetError');
        assert.equal(error.charset, 'x-coroscope-unknown');
        assert.equal(error.url, url);
        assert.match(error.message, /x-coroscope-unknown/);
        assert.ok(error.message.includes(url));
        assert.match(error.stack ?? '', /^UnknownCharsetError: /);
        assert.match(error.stack ?? '', /at decodeBody \(/);
        assert.match(error.stack ?? '', /at extractLinks \(/);
        return true;
      },
    );
  });

  test('an unknown header charset throws too; decodeBody alone does the same', () => {
    assert.throws(() => extractLinks(Buffer.from('<p>'), 'text/html; charset=bogus-9', PAGE), UnknownCharsetError);
    assert.throws(() => decodeBody(Buffer.from('x'), 'nope', PAGE), /unknown charset "nope"/);
    assert.equal(decodeBody(Buffer.from('\u00e9'), 'utf-8', PAGE), '\u00e9');
  });

  test('the parser is usable again after an UnknownCharsetError', () => {
    assert.throws(() => extractLinks(Buffer.from('<meta charset="x-coroscope-unknown">'), 'text/html', PAGE));
    assert.deepEqual(links('<a href="/fine">'), ['http://127.0.0.1:8080/fine']);
  });
});

describe('LinkResolver', () => {
  /** What the URL standard says: `new URL`, http(s) only, fragment dropped. */
  function reference(href: string, base: string): string | undefined {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href.endsWith('#') ? url.href.slice(0, -1) : url.href;
  }

  const bases = [
    'http://127.0.0.1:8080/dir/page.html',
    'https://example.com/',
    'http://example.com',
    'http://example.com/a/b/c/',
    'http://example.com/a/b/c?q=1#f',
    'http://user:pw@example.com/x/y',
    'http://[::1]:9000/p/q',
    'https://example.com/a%2e/b/',
    'ftp://example.com/dir/',
  ];

  test('agrees with WHATWG URL on generated references', () => {
    const pieces = [
      'a',
      'b.html',
      '.',
      '..',
      '/',
      '//',
      '?',
      '?x=1',
      '&y=2',
      '#',
      '#frag',
      '%2e',
      '%2E',
      '%41',
      '%',
      ':',
      'c:d',
      '~',
      '-',
      '_',
      ' ',
      '\\',
      "'",
      '"',
      '\u00e9',
      '@',
      ';',
      '=',
      '+',
      '|',
      '{',
      '\t',
      'http:',
      'HTTP://h/',
      '..%2f',
      '.hidden',
      'x..',
      '...',
    ];
    let state = 12345;
    const random = (n: number): number => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state % n;
    };
    let checked = 0;
    for (const base of bases) {
      const resolver = new LinkResolver(base);
      for (let i = 0; i < 3000; i++) {
        let href = '';
        const count = random(7);
        for (let k = 0; k < count; k++) href += pieces[random(pieces.length)];
        assert.equal(resolver.resolve(href), reference(href, base), `href ${JSON.stringify(href)} against ${base}`);
        checked++;
      }
    }
    assert.equal(checked, bases.length * 3000);
  });

  test('common reference shapes', () => {
    const hrefs = [
      '',
      '#x',
      '?',
      '?a',
      'a',
      'a/',
      'a/..',
      'a/.',
      './',
      '../',
      '../../..',
      '/',
      '/..',
      '/./a/../b',
      '/a//b',
      'a?b/../c',
      '/a?b#c',
      'x:y',
      '/x:y',
      'a/b:c',
      'mailto:x',
      '//h/p',
    ];
    for (const base of bases) {
      const resolver = new LinkResolver(base);
      for (const href of hrefs)
        assert.equal(resolver.resolve(href), reference(href, base), `href ${JSON.stringify(href)} against ${base}`);
    }
  });

  test('without a base only absolute URLs resolve', () => {
    const resolver = new LinkResolver(undefined);
    assert.equal(resolver.base, undefined);
    assert.equal(resolver.resolve('/x'), undefined);
    assert.equal(resolver.resolve('HTTP://Example.com/x#y'), 'http://example.com/x');
  });
});

describe('speed', () => {
  test('a 1 MB page with 10,000 links is parsed quickly', () => {
    const parts: string[] = ['<!doctype html><html><head><title>Big</title></head><body>'];
    let size = 0;
    let i = 0;
    while (size < 1024 * 1024) {
      const chunk = `<p>Paragraph ${i} with some text &amp; an <a href="/item/${i}?a=1&amp;b=2#s">item</a> and <a href="../rel/${i % 500}">rel</a>.</p>\n`;
      parts.push(chunk);
      size += chunk.length;
      i++;
    }
    parts.push('</body></html>');
    const body = Buffer.from(parts.join(''));
    assert.ok(body.length >= 1024 * 1024);
    extractLinks(body, 'text/html', PAGE); // warm up
    const start = process.hrtime.bigint();
    const result = extractLinks(body, 'text/html', PAGE);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.equal(result.links.length, i + 500);
    assert.equal(result.links[0], 'http://127.0.0.1:8080/item/0?a=1&b=2');
    assert.equal(result.links[1], 'http://127.0.0.1:8080/rel/0');
    // About 20 ms on the reference machine; the bound leaves room for a loaded CI runner.
    assert.ok(ms < 1000, `1 MB page took ${ms.toFixed(1)} ms`);
  });
});
