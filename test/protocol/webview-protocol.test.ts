import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isProgramLoopState, narrowPanelInit, narrowProgress, narrowSnapshot, parsePanelRequest, PANEL_PROTOCOL_VERSION } from '../../protocol/webview-protocol';
import { fullSnapshot, makeTask } from '../webview/fixtures-tasks';

describe('panel protocol: narrowing what the webview asks', () => {
  it('accepts well-formed requests', () => {
    assert.deepEqual(parsePanelRequest('taskDetail', { taskId: 3 }), { method: 'taskDetail', params: { taskId: 3 } });
    assert.deepEqual(parsePanelRequest('control', { action: 'stepTask', taskId: 2 }), { method: 'control', params: { action: 'stepTask', taskId: 2 } });
    assert.deepEqual(parsePanelRequest('control', { action: 'pause', taskId: 2 }), { method: 'control', params: { action: 'pause' } });
    assert.deepEqual(parsePanelRequest('openSource', { position: { file: '/a.ts', line: 3, column: 1, extra: 1 } }), { method: 'openSource', params: { position: { file: '/a.ts', line: 3, column: 1 } } });
    assert.deepEqual(parsePanelRequest('ready', undefined), { method: 'ready', params: {} });
  });

  it('refuses malformed ones with a reason', () => {
    for (const [m, p] of [
      ['taskDetail', { taskId: '3' }],
      ['variables', { handle: 0 }],
      ['control', { action: 'rm -rf' }],
      ['control', { action: 'stepTask' }],
      ['openSource', { position: { file: '', line: 1, column: 1 } }],
      ['openSource', { position: { file: '/a', line: 0, column: 1 } }],
      ['command', { command: 'workbench.action.terminal.new' }],
      ['nope', {}],
    ] as const) {
      assert.equal(typeof parsePanelRequest(m, p), 'string', `${m} ${JSON.stringify(p)}`);
    }
  });
});

describe('panel protocol: narrowing what the extension sends', () => {
  it('keeps good tasks of a snapshot and drops malformed ones', () => {
    const s = fullSnapshot(3) as unknown as Record<string, unknown>;
    (s.tasks as unknown[]).push({ id: 'x' }, null, { ...makeTask(9), state: 'exploded' });
    const n = narrowSnapshot(s);
    assert.ok(n !== null);
    assert.equal(n.snapshot.tasks.length, 3);
    assert.equal(n.dropped, 3);
    assert.equal(narrowSnapshot({ version: 1 }), null);
  });

  it('narrows progress and its pages; titles stay strings (shown as text)', () => {
    const p = narrowProgress({ done: 3, queued: 'x', errorsByKind: { A: 1, B: 'no' }, recent: [{ url: 'http://a/', status: 200, title: '<b>t</b>' }, { nope: 1 }] });
    assert.ok(p !== null);
    assert.equal(p.done, 3);
    assert.equal(p.queued, 0);
    assert.deepEqual(p.errorsByKind, { A: 1 });
    assert.deepEqual(p.recent, [{ url: 'http://a/', status: 200, title: '<b>t</b>' }]);
  });

  it('refuses an initial state of another protocol version', () => {
    const init = { protocolVersion: PANEL_PROTOCOL_VERSION, status: { phase: 'idle', runId: null, title: '', detail: '', tick: 0 }, snapshot: null, progress: [], exceptions: [], lints: [], pages: [], lastProgress: null };
    assert.ok(narrowPanelInit(init) !== null);
    assert.equal(narrowPanelInit({ ...init, protocolVersion: 99 }), null);
    assert.equal(narrowPanelInit({ ...init, status: { phase: 'weird' } }), null);
  });
});

describe('program loops in the panel protocol', () => {
  const loop = {
    kind: 'selector',
    title: "the callback crawl's select loop",
    running: 'fd 3 writable: bound connected',
    ready: ['fd 4 readable: bound readResponse'],
    sockets: [{ fd: 3, events: 'write', callback: 'bound connected', socket: '<Socket fd=3 connected raddr=127.0.0.1:5000>' }],
    timers: [{ dueInMs: 9800, callback: 'timeout of the fetch of http://127.0.0.1:5000/' }],
    workers: [{ kind: 'thread', name: 'thread 3', state: 'idle' }],
    notes: ['1 URLs done'],
  };

  it('accepts a loop of the host and refuses malformed ones', () => {
    assert.equal(isProgramLoopState(loop), true);
    assert.equal(isProgramLoopState({ ...loop, running: null }), true);
    assert.equal(isProgramLoopState({ ...loop, sockets: [{ fd: '3' }] }), false);
    assert.equal(isProgramLoopState({ ...loop, workers: [{ kind: 'fiber', name: 'x', state: 'y' }] }), false);
    assert.equal(isProgramLoopState({ ...loop, ready: [1] }), false);
    assert.equal(isProgramLoopState(null), false);
  });

  it('the initial state keeps the well-formed loops only', () => {
    const init = narrowPanelInit({ protocolVersion: PANEL_PROTOCOL_VERSION, status: { phase: 'paused', runId: 1, title: 'sample', detail: '', tick: 0 }, snapshot: null, programLoops: [loop, { kind: 'broken' }] });
    assert.deepEqual(init?.programLoops, [loop]);
  });
});
