// skipUnlessInstalled: a real-server test skips only where the packages are optional.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REAL_SERVERS_REQUIRED, skipUnlessInstalled } from './real-servers';

test('skips, saying why, only when the package is missing and the servers are not required', () => {
  assert.equal(skipUnlessInstalled(true, 'nginx missing', {}), false);
  assert.equal(skipUnlessInstalled(false, 'nginx missing', {}), 'nginx missing');
  assert.equal(skipUnlessInstalled(false, 'nginx missing', { [REAL_SERVERS_REQUIRED]: 'required' }), false);
  assert.equal(skipUnlessInstalled(false, 'nginx missing', { [REAL_SERVERS_REQUIRED]: 'yes' }), 'nginx missing');
});
