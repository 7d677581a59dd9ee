// LoadedScripts: which parsed scripts a user reads, and how a plain JavaScript file (no source
// map) is its own source: its breakable positions (as V8 lists them) say where a line's code is.

import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { LoadedScripts } from '../../../../runtime/host/worker/loaded-scripts';

const FILE = '/home/user/kitchen/main.cjs';
const URL_OF = pathToFileURL(FILE).href;

describe('LoadedScripts: plain JavaScript files', () => {
  it("keeps a program's .js and .cjs files, not Node's, node_modules' or those without a URL", () => {
    const scripts = new LoadedScripts();
    assert.equal(scripts.add({ scriptId: '1', url: URL_OF }), 'plain');
    assert.equal(scripts.add({ scriptId: '2', url: pathToFileURL('/home/user/kitchen/util.js').href }), 'plain');
    assert.equal(scripts.add({ scriptId: '3', url: 'node:internal/timers' }), false);
    assert.equal(scripts.add({ scriptId: '4', url: pathToFileURL('/home/user/node_modules/x/index.js').href }), false);
    assert.equal(scripts.add({ scriptId: '5', url: '' }), false);
    assert.equal(scripts.add({ scriptId: '6', url: pathToFileURL('/home/user/kitchen/data.json').href }), false);
    assert.equal(
      scripts.add({ scriptId: '7', url: pathToFileURL('/a/b.js').href, sourceMapURL: 'data:application/json,{}' }),
      'mapped',
    );
  });

  it('places no breakpoint in a plain file before its lines are indexed', () => {
    const scripts = new LoadedScripts();
    scripts.add({ scriptId: '1', url: URL_OF });
    assert.equal(scripts.covers('1', FILE), false);
    assert.deepEqual(scripts.generatedLocations(FILE, 3, 10), []);
  });

  it("places a line's breakpoint at its first breakable column, a line without code slid to the next", () => {
    const scripts = new LoadedScripts();
    scripts.add({ scriptId: '1', url: URL_OF });
    scripts.indexPlain('1', [
      { scriptId: '1', lineNumber: 2, columnNumber: 8 },
      { scriptId: '1', lineNumber: 2, columnNumber: 4 },
      { scriptId: '1', lineNumber: 5, columnNumber: 2 },
    ]);
    assert.equal(scripts.covers('1', FILE), true);
    assert.equal(scripts.covers('1', '/home/user/kitchen/other.cjs'), false);
    assert.deepEqual(scripts.generatedLocations(FILE, 3, 10), [{ url: URL_OF, line0: 2, column0: 4, line: 3 }]);
    assert.deepEqual(scripts.generatedLocations(FILE, 4, 10), [{ url: URL_OF, line0: 5, column0: 2, line: 6 }]);
    assert.deepEqual(scripts.generatedLocations(FILE, 7, 10), []);
  });

  it('reads a plain frame at its own position, as the program, not the machinery', () => {
    const scripts = new LoadedScripts();
    scripts.add({ scriptId: '1', url: URL_OF });
    const at = scripts.positionOf({ scriptId: '1', lineNumber: 4, columnNumber: 6 });
    assert.deepEqual(at.position, { file: FILE, line: 5, column: 7 });
    assert.deepEqual(at.generated, at.position);
    const frame = {
      callFrameId: 'f',
      functionName: 'cook',
      location: { scriptId: '1', lineNumber: 4, columnNumber: 6 },
      url: URL_OF,
      scopeChain: [],
      this: { type: 'undefined' },
    };
    assert.equal(scripts.isMachinery(frame), false);
    assert.equal(scripts.lineOf(frame), `${FILE}:5`);
  });
});
