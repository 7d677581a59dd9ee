// Tests for runtime/crawler/hosts.ts: the host key, strict and lenient matching, loopback
// ports, IP addresses, invalid and non-http URLs.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { HostMatcher, hostKey, isIpAddress, isLoopbackHost } from '../../../runtime/crawler/hosts';

describe('hostKey', () => {
  test('lowercased, without www. and a trailing dot', () => {
    assert.equal(hostKey('example.com'), 'example.com');
    assert.equal(hostKey('www.example.com'), 'example.com');
    assert.equal(hostKey('WWW.Example.COM'), 'example.com');
    assert.equal(hostKey('www.example.com.'), 'example.com');
    assert.equal(hostKey('blog.example.com'), 'blog.example.com');
    assert.equal(hostKey('www2.example.com'), 'www2.example.com');
    assert.equal(hostKey('wwwexample.com'), 'wwwexample.com');
    assert.equal(hostKey('www.'), 'www');
  });

  test('IP addresses and loopback hosts', () => {
    assert.equal(isIpAddress('127.0.0.1'), true);
    assert.equal(isIpAddress('[::1]'), true);
    assert.equal(isIpAddress('example.com'), false);
    assert.equal(isLoopbackHost('127.0.0.1'), true);
    assert.equal(isLoopbackHost('127.1.2.3'), true);
    assert.equal(isLoopbackHost('localhost'), true);
    assert.equal(isLoopbackHost('[::1]'), true);
    assert.equal(isLoopbackHost('128.0.0.1'), false);
    assert.equal(isLoopbackHost('127.example.com'), false);
  });
});

describe('strict HostMatcher', () => {
  const matcher = new HostMatcher(['http://example.com/start'], true);

  test('the root host, with or without www., any case, any scheme, path, query or port', () => {
    assert.equal(matcher.matches('http://example.com/'), true);
    assert.equal(matcher.matches('https://example.com/a/b?c#d'), true);
    assert.equal(matcher.matches('http://www.example.com/x'), true);
    assert.equal(matcher.matches('http://WWW.EXAMPLE.COM/x'), true);
    assert.equal(matcher.matches('http://example.com./x'), true);
    assert.equal(matcher.matches('http://example.com:8080/x'), true);
  });

  test('a www. root matches the bare host', () => {
    const www = new HostMatcher(['https://www.python.org/'], true);
    assert.equal(www.matches('https://python.org/about'), true);
    assert.equal(www.matches('https://www.python.org/about'), true);
    assert.equal(www.matches('https://docs.python.org/'), false);
  });

  test('subdomains, parents and look-alikes do not match', () => {
    assert.equal(matcher.matches('http://blog.example.com/'), false);
    assert.equal(matcher.matches('http://www2.example.com/'), false);
    assert.equal(matcher.matches('http://notexample.com/'), false);
    assert.equal(matcher.matches('http://example.com.evil.org/'), false);
    assert.equal(matcher.matches('http://example.org/'), false);
    const sub = new HostMatcher(['http://blog.example.com/'], true);
    assert.equal(sub.matches('http://example.com/'), false);
  });

  test('several roots', () => {
    const two = new HostMatcher(['http://a.test/', 'https://b.test/x'], true);
    assert.equal(two.matches('http://a.test/1'), true);
    assert.equal(two.matches('http://www.b.test/2'), true);
    assert.equal(two.matches('http://c.test/'), false);
  });

  test('loopback hosts compare their port', () => {
    const loop = new HostMatcher(['http://127.0.0.1:8080/'], true);
    assert.equal(loop.matches('http://127.0.0.1:8080/page'), true);
    assert.equal(loop.matches('http://127.0.0.1:9090/page'), false);
    assert.equal(loop.matches('http://127.0.0.1/page'), false);
    assert.equal(loop.matches('http://localhost:8080/page'), false);
    const local = new HostMatcher(['http://localhost:3000/', 'http://[::1]:4000/'], true);
    assert.equal(local.matches('http://LOCALHOST:3000/x'), true);
    assert.equal(local.matches('http://localhost:3001/x'), false);
    assert.equal(local.matches('http://[::1]:4000/x'), true);
    assert.equal(local.matches('http://[0:0:0:0:0:0:0:1]:4000/x'), true);
    assert.equal(local.matches('http://[::1]:4001/x'), false);
  });

  test('a loopback default port equals the explicit one', () => {
    const loop = new HostMatcher(['http://127.0.0.1/'], true);
    assert.equal(loop.matches('http://127.0.0.1:80/x'), true);
    assert.equal(loop.matches('https://127.0.0.1/x'), false);
    assert.equal(loop.matches('https://127.0.0.1:80/x'), true);
  });

  test('other IP addresses match only themselves, port ignored', () => {
    const ip = new HostMatcher(['http://10.0.0.1:8000/'], true);
    assert.equal(ip.matches('http://10.0.0.1/'), true);
    assert.equal(ip.matches('http://10.0.0.2:8000/'), false);
    assert.equal(ip.matches('http://www.10.0.0.1/'), false);
  });

  test('invalid and non-http URLs do not match', () => {
    assert.equal(matcher.matches('not a url'), false);
    assert.equal(matcher.matches(''), false);
    assert.equal(matcher.matches('http://[bad/'), false);
    assert.equal(matcher.matches('/relative/path'), false);
    assert.equal(matcher.matches('ftp://example.com/file'), false);
    assert.equal(matcher.matches('mailto:someone@example.com'), false);
    assert.equal(matcher.matches('javascript:alert(1)'), false);
  });

  test('roots may be bare hosts; unusable roots are ignored', () => {
    const bare = new HostMatcher(
      ['example.net/start', '127.0.0.1:5000', 'localhost:3000', 'mailto:x@y.z', 'nonsense://', ''],
      true,
    );
    assert.equal(bare.matches('http://www.example.net/'), true);
    assert.equal(bare.matches('http://127.0.0.1:5000/'), true);
    assert.equal(bare.matches('http://localhost:3000/'), true);
    assert.equal(bare.matches('http://y.z/'), false);
    assert.equal(new HostMatcher([], true).matches('http://example.com/'), false);
  });
});

describe('lenient HostMatcher', () => {
  const matcher = new HostMatcher(['http://www.example.com/'], false);

  test('the root host and its subdomains', () => {
    assert.equal(matcher.matches('http://example.com/'), true);
    assert.equal(matcher.matches('http://www.example.com/'), true);
    assert.equal(matcher.matches('http://blog.example.com/'), true);
    assert.equal(matcher.matches('https://a.b.c.example.com/x'), true);
    assert.equal(matcher.matches('http://www.blog.example.com/'), true);
  });

  test('not look-alikes or other domains', () => {
    assert.equal(matcher.matches('http://notexample.com/'), false);
    assert.equal(matcher.matches('http://example.com.evil.org/'), false);
    assert.equal(matcher.matches('http://example.org/'), false);
    assert.equal(matcher.matches('http://com/'), false);
  });

  test('a subdomain root covers its own subdomains, not its parent', () => {
    const blog = new HostMatcher(['http://blog.example.com/'], false);
    assert.equal(blog.matches('http://x.blog.example.com/'), true);
    assert.equal(blog.matches('http://example.com/'), false);
    assert.equal(blog.matches('http://shop.example.com/'), false);
  });

  test('IP addresses stay exact and loopback ports still count', () => {
    const loop = new HostMatcher(['http://127.0.0.1:8080/'], false);
    assert.equal(loop.matches('http://127.0.0.1:8080/'), true);
    assert.equal(loop.matches('http://127.0.0.1:9090/'), false);
    assert.equal(loop.matches('http://x.127.0.0.1:8080/'), false);
  });

  test('invalid URLs do not match', () => {
    assert.equal(matcher.matches('http://'), false);
    assert.equal(matcher.matches('::::'), false);
  });
});
