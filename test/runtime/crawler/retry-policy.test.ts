// Tests of runtime/crawler/retry-policy.ts: which failures are tried again, and how often.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncompleteReadError, TimeoutError } from '../../../runtime/errors';
import {
  HttpConnectionError,
  HttpProtocolError,
  HttpTimeoutError,
  HttpTooLargeError,
  InvalidUrlError,
} from '../../../runtime/http/errors';
import { MAX_STALLED_TRIES, failureKind, retryVerdict } from '../../../runtime/crawler/retry-policy';

const URL_ = 'http://127.0.0.1:9/x';

test('a malformed answer, an oversized one or a bad URL is never retried', () => {
  for (const e of [
    new HttpProtocolError(URL_, 'invalid status line "NOPE"'),
    new HttpProtocolError(URL_, 'invalid header name'),
    new HttpTooLargeError(URL_, 'body too large'),
    new InvalidUrlError(URL_, 'invalid URL'),
    new Error('surprise'),
  ]) {
    const v = retryVerdict(e, 1, 4);
    assert.deepEqual([v.retry, v.kind], [false, 'deterministic'], e.message);
    assert.match(v.why, /not retried: the server would send the same answer again/);
  }
});

test('connection failures and answers cut short are retried up to maxTries', () => {
  const cut = new HttpProtocolError(URL_, 'connection closed reading the response head', {
    cause: new IncompleteReadError(Buffer.alloc(0), null),
  });
  for (const e of [new HttpConnectionError(URL_, 'cannot connect: ECONNREFUSED'), cut]) {
    assert.equal(failureKind(e), 'transient');
    assert.equal(retryVerdict(e, 1, 4).retry, true);
    assert.equal(retryVerdict(e, 3, 4).retry, true);
    const last = retryVerdict(e, 4, 4);
    assert.deepEqual([last.retry, last.why], [false, 'gave up after 4 tries']);
  }
});

test('a stalled server is tried twice at most, whatever maxTries says', () => {
  const e = new HttpTimeoutError(URL_, 'timed out reading the response head', { cause: new TimeoutError() });
  assert.equal(MAX_STALLED_TRIES, 2);
  assert.equal(retryVerdict(e, 1, 4).retry, true);
  const second = retryVerdict(e, 2, 4);
  assert.deepEqual([second.retry, second.kind], [false, 'stalled']);
  assert.match(second.why, /stalled 2 times: a stalling server is tried 2 times at most/);
  assert.equal(retryVerdict(e, 1, 1).retry, false, 'maxTries 1 still wins');
});
