// HttpHeaders: every field kept in arrival order with its case as received; lookup by any case;
// repeats joined with ", " by get() and kept apart by getAll().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpHeaders } from '../../../runtime/http/headers';

test('lookup ignores case; repeats are joined by get() and listed apart by getAll()', () => {
  const h = new HttpHeaders();
  h.append('Content-Type', 'text/html');
  h.append('Set-Cookie', 'a=1');
  h.append('set-cookie', 'b=2');
  assert.equal(h.get('content-type'), 'text/html');
  assert.equal(h.get('CONTENT-TYPE'), 'text/html');
  assert.equal(h.get('Set-Cookie'), 'a=1, b=2');
  assert.deepEqual(h.getAll('SET-COOKIE'), ['a=1', 'b=2']);
  assert.equal(h.has('Set-cookie'), true);
  assert.equal(h.has('Location'), false);
  assert.equal(h.get('Location'), undefined);
  assert.deepEqual(h.getAll('Location'), []);
});

test('iteration gives every field as received, in order; size counts repeats; toJSON is keyed lower-case', () => {
  const h = new HttpHeaders();
  h.append('Vary', 'Accept');
  h.append('X-Empty', '');
  h.append('vary', 'Origin');
  assert.equal(h.size, 3);
  assert.deepEqual(
    [...h],
    [
      ['Vary', 'Accept'],
      ['X-Empty', ''],
      ['vary', 'Origin'],
    ],
  );
  assert.equal(h.get('x-empty'), '', 'an empty value is a value, not a missing field');
  assert.deepEqual(h.toJSON(), { vary: 'Accept, Origin', 'x-empty': '' });
});
