// Tests of runtime/crawler/roots.ts: what a typed root becomes, and what is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoot } from '../../../runtime/crawler/roots';
import { InvalidUrlError } from '../../../runtime/http/errors';

test('http(s) URLs and bare hosts become the URL a crawl starts from', () => {
  assert.equal(parseRoot('example.com'), 'http://example.com/');
  assert.equal(parseRoot('localhost:8080'), 'http://localhost:8080/');
  assert.equal(parseRoot('localhost:8080/docs?x=1'), 'http://localhost:8080/docs?x=1');
  assert.equal(parseRoot('https://Example.com/a#frag'), 'https://example.com/a');
  assert.equal(parseRoot(' http://127.0.0.1:9/ '), 'http://127.0.0.1:9/');
});

test('other schemes and malformed URLs are refused with a clear error, not turned into http URLs', () => {
  const cases: Array<[string, RegExp]> = [
    ['mailto:a@b.invalid', /unsupported scheme "mailto" for a root: only http and https can be crawled/],
    ['ht!tp://::::', /invalid root URL: the part before :\/\/ is not a scheme/],
    ['javascript:alert(1)', /unsupported scheme "javascript"/],
    ['ftp://example.com/', /unsupported scheme "ftp"/],
    ['http://', /invalid root URL/],
    ['http://[', /invalid root URL/],
    ['', /an empty root URL/],
  ];
  for (const [root, message] of cases) {
    assert.throws(
      () => parseRoot(root),
      (e: unknown) => e instanceof InvalidUrlError && e.url === root && message.test(e.message),
      root,
    );
  }
});
