// The "Coroscope" output channel (extension/output.ts) through the stub of the editor's API
// (debug/vscode-stub.ts): nothing made before something is written or shown (a note is held); the
// first write makes the channel and writes the held notes first, in order; the host's text as written, its
// log lines each prefixed; show shows it; dispose ends it.
import { stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { CoroscopeOutput } from '../../extension/output';

beforeEach(() => stubWindow.reset());

describe('the output channel', () => {
  it('notes are held until the channel is made, then written first, in order', () => {
    const out = new CoroscopeOutput();
    out.note('activated in 12 ms');
    out.note('host started');
    assert.equal(stubWindow.channels.length, 0, 'activation makes no channel');
    out.line('first line');
    out.note('a later note');
    assert.deepEqual(stubWindow.channels, [
      {
        name: 'Coroscope',
        text: 'activated in 12 ms\nhost started\nfirst line\na later note\n',
        shows: 0,
        disposed: false,
      },
    ]);
  });

  it("the host's text as written; its log lines each prefixed, a final newline not a line", () => {
    const out = new CoroscopeOutput();
    out.append('partial ');
    out.append('line\n');
    out.hostLog('listening on 1234\nready\n');
    out.hostLog('one');
    assert.equal(stubWindow.channels[0]?.text, 'partial line\n[host] listening on 1234\n[host] ready\n[host] one\n');
  });

  it('show makes the channel and shows it; dispose ends it; one channel throughout', () => {
    const out = new CoroscopeOutput();
    out.show();
    out.show();
    out.line('x');
    out.dispose();
    assert.deepEqual(
      stubWindow.channels.map((c) => ({ shows: c.shows, disposed: c.disposed })),
      [{ shows: 2, disposed: true }],
    );
    new CoroscopeOutput().dispose();
    assert.equal(stubWindow.channels.length, 1, 'disposing an unused output makes none');
  });
});
