import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isProgramLoopState,
  MAX_LOGPOINT_MARKS,
  narrowLogpointMarks,
  narrowPanelInit,
  narrowProgress,
  narrowRunStatus,
  narrowSnapshot,
  narrowTimeline,
  parsePanelRequest,
  PANEL_PROTOCOL_VERSION,
} from '../../protocol/webview-protocol';
import { fullSnapshot, makeTask } from '../webview/fixtures-tasks';

describe('panel protocol: narrowing what the webview asks', () => {
  it('accepts well-formed requests', () => {
    assert.deepEqual(parsePanelRequest('taskDetail', { taskId: 3 }), { method: 'taskDetail', params: { taskId: 3 } });
    assert.deepEqual(parsePanelRequest('control', { action: 'stepTask', taskId: 2 }), {
      method: 'control',
      params: { action: 'stepTask', taskId: 2 },
    });
    assert.deepEqual(parsePanelRequest('control', { action: 'pause', taskId: 2 }), {
      method: 'control',
      params: { action: 'pause' },
    });
    assert.deepEqual(parsePanelRequest('openSource', { position: { file: '/a.ts', line: 3, column: 1, extra: 1 } }), {
      method: 'openSource',
      params: { position: { file: '/a.ts', line: 3, column: 1 } },
    });
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
    const p = narrowProgress({
      done: 3,
      queued: 'x',
      errorsByKind: { A: 1, B: 'no' },
      recent: [{ url: 'http://a/', status: 200, title: '<b>t</b>' }, { nope: 1 }],
    });
    assert.ok(p !== null);
    assert.equal(p.done, 3);
    assert.equal(p.queued, 0);
    assert.deepEqual(p.errorsByKind, { A: 1 });
    assert.deepEqual(p.recent, [{ url: 'http://a/', status: 200, title: '<b>t</b>' }]);
  });

  it('refuses an initial state of another protocol version', () => {
    const init = {
      protocolVersion: PANEL_PROTOCOL_VERSION,
      status: { phase: 'idle', runId: null, title: '', detail: '', tick: 0 },
      snapshot: null,
      progress: [],
      exceptions: [],
      lints: [],
      pages: [],
      lastProgress: null,
    };
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
    sockets: [
      { fd: 3, events: 'write', callback: 'bound connected', socket: '<Socket fd=3 connected raddr=127.0.0.1:5000>' },
    ],
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
    const init = narrowPanelInit({
      protocolVersion: PANEL_PROTOCOL_VERSION,
      status: { phase: 'paused', runId: 1, title: 'sample', detail: '', tick: 0 },
      snapshot: null,
      programLoops: [loop, { kind: 'broken' }],
    });
    assert.deepEqual(init?.programLoops, [loop]);
  });
});

describe('panel protocol: time travel (timeline, seek, the viewed tick)', () => {
  it('narrows timeline and seek requests', () => {
    assert.deepEqual(parsePanelRequest('timeline', {}), { method: 'timeline', params: {} });
    assert.deepEqual(parsePanelRequest('timeline', { sinceTick: 40 }), {
      method: 'timeline',
      params: { sinceTick: 40 },
    });
    assert.deepEqual(parsePanelRequest('seek', { tick: 12 }), { method: 'seek', params: { tick: 12 } });
    assert.deepEqual(parsePanelRequest('seek', { tick: null }), { method: 'seek', params: { tick: null } });
    assert.deepEqual(parsePanelRequest('seek', { tick: 3, moment: 'webview x:2' }), {
      method: 'seek',
      params: { tick: 3, moment: 'webview x:2' },
    });
    assert.equal(typeof parsePanelRequest('seek', { tick: 3, moment: 2 }), 'string');
    assert.equal(typeof parsePanelRequest('seek', { tick: 3, moment: '' }), 'string');
    assert.equal(
      narrowRunStatus({
        phase: 'finished',
        runId: 2,
        title: 't',
        detail: '',
        tick: 9,
        viewedTick: 4,
        momentId: 'panel:3',
      })?.momentId,
      'panel:3',
    );
    assert.deepEqual(parsePanelRequest('command', { command: 'openRecording' }), {
      method: 'command',
      params: { command: 'openRecording' },
    });
    for (const [m, p] of [
      ['timeline', { sinceTick: -1 }],
      ['timeline', { sinceTick: 1.5 }],
      ['seek', {}],
      ['seek', { tick: '3' }],
      ['seek', { tick: -2 }],
    ] as const) {
      assert.equal(typeof parsePanelRequest(m, p), 'string', `${m} ${JSON.stringify(p)}`);
    }
  });

  it('keeps the viewed tick and the recording in the status', () => {
    const s = narrowRunStatus({
      phase: 'finished',
      runId: 2,
      title: 't',
      detail: '',
      tick: 9,
      viewedTick: 4,
      recorded: true,
      recordingFile: '/x.corotrace',
    });
    assert.equal(s?.viewedTick, 4);
    assert.equal(s?.recorded, true);
    assert.equal(s?.recordingFile, '/x.corotrace');
    const own = { phase: 'finished', runId: 3, title: 't', detail: '', tick: 0 };
    assert.equal(narrowRunStatus({ ...own, notRecorded: 'a loop of its own' })?.notRecorded, 'a loop of its own');
    assert.equal(narrowRunStatus({ ...own, notRecorded: 7 })?.notRecorded, undefined);
    assert.equal(
      narrowRunStatus({ phase: 'finished', runId: 2, title: 't', detail: '', tick: 9, viewedTick: -1 })?.viewedTick,
      undefined,
    );
  });

  it('narrows a timeline, dropping lanes with malformed or unordered segments and unknown marks', () => {
    const seg = (fromTick: number, toTick: number, state = 'suspended'): Record<string, unknown> => ({
      fromTick,
      toTick,
      state,
      awaiting: '<img src=x>',
      awaitDetail: '<Socket fd=3 raddr=127.0.0.1:80>',
      wokenTick: 7,
      wokenBy: 'io',
    });
    const t = narrowTimeline({
      runId: 4,
      ticks: 9,
      sinceTick: 0,
      live: false,
      lanes: [
        {
          taskId: 1,
          name: 'crawl',
          parentId: null,
          createdTick: 0,
          endTick: null,
          endState: null,
          segments: [seg(1, 4), { ...seg(4, 9, 'running'), open: true, wokenBy: 'aliens' }],
        },
        { taskId: 2, name: 'bad', createdTick: 0, segments: [seg(5, 6), seg(1, 2)] },
        { taskId: 3, name: 'bad state', createdTick: 0, segments: [seg(1, 1, 'done')] },
        { taskId: 5, name: 'backwards', createdTick: 0, segments: [seg(4, 3)] },
        {
          taskId: 4,
          name: 'cancelled',
          parentId: 1,
          createdTick: 1,
          endTick: 5,
          endState: 'cancelled',
          cancelledTick: 5,
          cancelledBy: { kind: 'task', taskId: 1 },
          segments: [],
        },
      ],
      marks: [
        { tick: 3, kind: 'io', detail: 'data 300 bytes' },
        { tick: 4, kind: 'rm -rf', taskId: 1 },
      ],
      tickTimes: [0, 'x', -3, 2],
    });
    assert.ok(t !== null);
    assert.deepEqual(
      t.lanes.map((l) => l.taskId),
      [1, 4],
    );
    assert.equal(t.lanes[0]!.segments[0]!.awaiting, '<img src=x>');
    assert.equal(t.lanes[0]!.segments[0]!.awaitDetail, '<Socket fd=3 raddr=127.0.0.1:80>');
    assert.equal(t.lanes[0]!.segments[1]!.open, true);
    assert.equal(t.lanes[0]!.segments[1]!.wokenBy, undefined);
    assert.deepEqual(t.lanes[1]!.cancelledBy, { kind: 'task', taskId: 1 });
    assert.equal(t.lanes[1]!.endState, 'cancelled');
    assert.deepEqual(
      t.marks.map((m) => m.kind),
      ['io'],
    );
    assert.deepEqual(t.tickTimes, [0, 0, 0, 2]);
    assert.equal(t.runId, 4);
    assert.equal(narrowTimeline({ lanes: [] }), null);
  });
});

describe('panel protocol: logpoint marks', () => {
  const good = {
    hit: 4,
    logpoint: 0,
    ordinal: 0,
    tick: 12,
    taskId: 3,
    task: 'worker-1',
    time: 2.5,
    message: 'url=/a',
    file: '/w/a.ts',
    line: 7,
  };

  it('narrows a hits list to the fields a mark needs, dropping malformed entries', () => {
    const marks = narrowLogpointMarks([
      good,
      { ...good, hit: 5, taskId: null, task: null },
      { ...good, hit: -1 },
      { ...good, tick: '12' },
      { ...good, taskId: 'x' },
      { ...good, message: 3 },
      null,
      'hit',
    ]);
    assert.deepEqual(marks, [
      { hit: 4, tick: 12, taskId: 3, task: 'worker-1', time: 2.5, message: 'url=/a', file: '/w/a.ts', line: 7 },
      { hit: 5, tick: 12, taskId: null, task: null, time: 2.5, message: 'url=/a', file: '/w/a.ts', line: 7 },
    ]);
    assert.deepEqual(narrowLogpointMarks({ hits: [good] }), [], 'a list, not a body');
    assert.deepEqual(narrowLogpointMarks(undefined), []);
  });

  it('keeps at most MAX_LOGPOINT_MARKS', () => {
    const many = Array.from({ length: MAX_LOGPOINT_MARKS + 5 }, (_, i) => ({ ...good, hit: i }));
    assert.equal(narrowLogpointMarks(many).length, MAX_LOGPOINT_MARKS);
  });

  it('carries the marks in the initial state', () => {
    const init = narrowPanelInit({
      protocolVersion: PANEL_PROTOCOL_VERSION,
      status: { phase: 'finished', runId: 1, title: 't', detail: '', tick: 20 },
      snapshot: null,
      progress: [],
      exceptions: [],
      lints: [],
      pages: [],
      lastProgress: null,
      logpointHits: [good, { bad: true }],
    });
    assert.equal(init?.logpointHits?.length, 1);
    assert.equal(init?.logpointHits?.[0]?.hit, 4);
  });

  it('narrows goToLogpointHit to a hit index', () => {
    assert.deepEqual(parsePanelRequest('goToLogpointHit', { hit: 3 }), {
      method: 'goToLogpointHit',
      params: { hit: 3 },
    });
    for (const hit of [-1, 1.5, '3', undefined])
      assert.equal(typeof parsePanelRequest('goToLogpointHit', { hit }), 'string');
  });

  it('narrows followTask to a task id, and PanelInit.debugged to a boolean', () => {
    assert.deepEqual(parsePanelRequest('followTask', { taskId: 7 }), { method: 'followTask', params: { taskId: 7 } });
    for (const taskId of [-1, 1.5, '7', undefined])
      assert.equal(typeof parsePanelRequest('followTask', { taskId }), 'string');
    const init = {
      protocolVersion: PANEL_PROTOCOL_VERSION,
      status: { phase: 'finished', runId: 1, title: 't', detail: '', tick: 3 },
      snapshot: null,
      progress: [],
      exceptions: [],
      lints: [],
      pages: [],
      lastProgress: null,
    };
    assert.equal(narrowPanelInit({ ...init, debugged: true })?.debugged, true);
    assert.equal(narrowPanelInit({ ...init, debugged: 'yes' })?.debugged, false);
    assert.equal(narrowPanelInit(init)?.debugged, false);
  });
});
