// A recording's await details as its metadata keeps them: packed (each text once), read back
// the same, and anything malformed read as no details.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packAwaitDetails, unpackAwaitDetails } from '../../../runtime/record/await-details';

test('packed once per distinct text, read back the same', () => {
  const details = [
    '',
    '<Socket fd=3 connected raddr=127.0.0.1:8080>',
    '<Socket fd=3 connected raddr=127.0.0.1:8080>',
    '0.5s',
    '',
    'Task #4 "worker-1"',
  ];
  const packed = packAwaitDetails(details);
  assert.equal(packed.texts.length, 4);
  assert.equal(packed.sites.length, details.length);
  assert.deepEqual(unpackAwaitDetails(JSON.parse(JSON.stringify(packed))), details);
  assert.deepEqual(unpackAwaitDetails(packAwaitDetails([])), []);
});

test('malformed details read as none', () => {
  for (const raw of [
    undefined,
    null,
    3,
    'x',
    { texts: ['a'] },
    { texts: ['a'], sites: [1] },
    { texts: ['a'], sites: [-1] },
    { texts: ['a'], sites: [0.5] },
    { texts: [1], sites: [0] },
    { texts: ['a'], sites: ['0'] },
  ]) {
    assert.equal(unpackAwaitDetails(raw), null, JSON.stringify(raw));
  }
});
