// runtime/http/errors.ts: every HTTP failure names its URL in its message (cut when very long,
// kept whole in `url`), keeps its cause, and is told apart by its class.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeError } from '../../../runtime/errors';
import {
  HttpConnectionError,
  HttpError,
  HttpProtocolError,
  HttpTimeoutError,
  HttpTooLargeError,
  InvalidUrlError,
  TooManyRedirectsError,
} from '../../../runtime/http/errors';

describe('HttpError', () => {
  it('says the URL after the message and keeps it in `url`', () => {
    const e = new HttpTimeoutError('http://a.test/x', 'timed out reading the response head');
    assert.equal(e.message, 'timed out reading the response head (http://a.test/x)');
    assert.equal(e.url, 'http://a.test/x');
    assert.equal(e.name, 'HttpTimeoutError');
  });

  it('cuts a URL over 2048 characters in the message only', () => {
    const url = `http://a.test/${'u'.repeat(3000)}`;
    const e = new InvalidUrlError(url, 'too long');
    assert.equal(e.message, `too long (${url.slice(0, 2048)}…)`);
    assert.equal(e.url, url);
    const exact = `http://a.test/${'u'.repeat(2048 - 'http://a.test/'.length)}`;
    assert.equal(new InvalidUrlError(exact, 'x').message, `x (${exact})`, 'a URL of 2048 characters is whole');
  });

  it('keeps the cause it was given', () => {
    const cause = new Error('ECONNREFUSED');
    assert.equal(new HttpConnectionError('http://a.test/', 'connect failed', { cause }).cause, cause);
  });

  it('has one class per kind of failure, each an HttpError and a CoroscopeError', () => {
    const kinds = [
      InvalidUrlError,
      HttpConnectionError,
      HttpTimeoutError,
      HttpProtocolError,
      HttpTooLargeError,
      TooManyRedirectsError,
    ];
    for (const Kind of kinds) {
      const e = new Kind('http://a.test/', 'm');
      assert.ok(e instanceof HttpError && e instanceof CoroscopeError, Kind.name);
      assert.equal(e.name, Kind.name);
      for (const Other of kinds)
        if (Other !== Kind) assert.ok(!(e instanceof Other), `${Kind.name} is not ${Other.name}`);
    }
  });
});
