// What the views share (webview/app-context.ts): errorText, the words a view shows for a failure
// of any kind (an Error's message, else the value as text).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorText } from '../../webview/app-context';

describe('errorText', () => {
  it("gives an Error's message, and any other thrown value as text", () => {
    assert.deepEqual(
      [errorText(new TypeError('bad tick')), errorText('lost'), errorText(42), errorText(null)],
      ['bad tick', 'lost', '42', 'null'],
    );
  });
});
