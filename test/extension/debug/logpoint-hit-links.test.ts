// The links of past logpoint hits (extension/debug/logpoint-hit-links.ts) through the stub of the editor's
// API (vscode-stub.ts): a link names the extension, its path, the session (encoded) and the hit; opened,
// the session it names is asked to go to that hit (coroscope/goToLogpointHit), never another; a link of a
// session gone, or with no whole hit number (none or an empty one is not hit 0), says so and asks nothing;
// a session's refusal is said; a URI of another path is left alone.
import { StubUri, stubWindow } from './vscode-stub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { logpointHitLink, registerLogpointHitLinks } from '../../../extension/debug/logpoint-hit-links';
import { LOGPOINT_HIT_REQUEST } from '../../../extension/debug/past-logpoints';

/** The sessions by id, each logging the custom requests it is asked; `refuse` makes one fail. */
function sessions(refuse: string | null = null): {
  sessionOf: (id: string) => vscode.DebugSession | null;
  asked: Array<[string, string, unknown]>;
} {
  const asked: Array<[string, string, unknown]> = [];
  const make = (id: string) =>
    ({
      id,
      customRequest: async (command: string, args: unknown) => {
        asked.push([id, command, args]);
        if (refuse !== null) throw new Error(refuse);
      },
    }) as unknown as vscode.DebugSession;
  const known = new Map([
    ['s 1', make('s 1')],
    ['s2', make('s2')],
  ]);
  return { sessionOf: (id) => known.get(id) ?? null, asked };
}

async function open(link: string): Promise<void> {
  assert.ok(stubWindow.uriHandler !== undefined, 'a handler is registered');
  await stubWindow.uriHandler.handleUri(StubUri.parse(link));
}

beforeEach(() => stubWindow.reset());

describe('logpoint hit links', () => {
  it('a link names the extension, the session (encoded) and the hit', () => {
    assert.equal(logpointHitLink('s 1&x', 4), 'vscode-stub://coroscope.coroscope/logpoint-hit?session=s%201%26x&hit=4');
  });

  it('opened: the session it names goes to that hit, not another', async () => {
    const s = sessions();
    registerLogpointHitLinks(s.sessionOf);
    await open(logpointHitLink('s 1', 3));
    await open(logpointHitLink('s2', 0));
    assert.deepEqual(s.asked, [
      ['s 1', LOGPOINT_HIT_REQUEST, { hit: 3 }],
      ['s2', LOGPOINT_HIT_REQUEST, { hit: 0 }],
    ]);
    assert.deepEqual(stubWindow.shown, []);
  });

  it('a session gone, or no whole hit number: said, nothing asked; another path: left alone', async () => {
    const s = sessions();
    registerLogpointHitLinks(s.sessionOf);
    await open(logpointHitLink('gone', 1));
    await open('vscode-stub://coroscope.coroscope/logpoint-hit?session=s2&hit=1.5');
    await open('vscode-stub://coroscope.coroscope/logpoint-hit?session=s2&hit=x');
    // No hit, or an empty one, is no hit 0.
    await open('vscode-stub://coroscope.coroscope/logpoint-hit?session=s2');
    await open('vscode-stub://coroscope.coroscope/logpoint-hit?session=s2&hit=');
    await open('vscode-stub://coroscope.coroscope/other?session=s2&hit=1');
    const ended = {
      kind: 'warning',
      text: 'Coroscope: that logpoint hit belongs to a debug session that has ended',
    };
    assert.deepEqual(stubWindow.shown, [ended, ended, ended, ended, ended]);
    assert.deepEqual(s.asked, []);
  });

  it("the session's refusal is said", async () => {
    const s = sessions('no hit 9 in the list');
    registerLogpointHitLinks(s.sessionOf);
    await open(logpointHitLink('s2', 9));
    assert.deepEqual(stubWindow.shown, [{ kind: 'warning', text: 'Coroscope: no hit 9 in the list' }]);
  });
});
