// Tests of runtime/http/redirect-statuses.ts: the one set of redirect statuses the session
// and the crawlers share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isRedirectStatus } from '../../../runtime/http/redirect-statuses';

test('300, 301, 302, 303, 307 and 308 redirect; 304, 305, 306, 2xx and 4xx do not', () => {
  assert.deepEqual(
    [300, 301, 302, 303, 307, 308].filter((s) => !isRedirectStatus(s)),
    [],
  );
  assert.deepEqual(
    [200, 204, 299, 304, 305, 306, 309, 400, 404, 500].filter((s) => isRedirectStatus(s)),
    [],
  );
});
