// At a stop on a line, the panel's task detail and the debugger's Variables read the same
// frames (issue 26, item 4; runtime/host/worker/line-task-detail.ts), through a runtime host
// with its line debugger (the bundle): a breakpoint in the generators sample's generatorTour;
// the panel's taskDetail (locals, as the inspector panel asks it) has the running frame on the
// stop's line with the locals lineStack/lineVariables give Variables, names and values alike;
// a local's children read through `variables` are Variables' children of it; the Task scope's
// detail (no locals) and the panel's say the same creation site.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildAdapterAndHost } from '../../../extension/debug/build-adapter';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const GENERATORS = join(ROOT, 'runtime', 'samples', 'generators.ts');

describe('the task detail at a line stop reads the real frames', { timeout: 90_000 }, () => {
  let host: HostClient;
  before(async () => {
    await buildAdapterAndHost();
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host?.close();
  });

  test('the panel and Variables show the same locals, line and creation site', async () => {
    await host.rpc.request('launch', { target: { kind: 'sample', id: 'generators' }, options: { stopOnEntry: true } });
    const line = lineOf(GENERATORS, 'const d = delegating();');
    await host.rpc.request('setBreakpoints', { file: GENERATORS, breakpoints: [{ file: GENERATORS, line }] });
    await host.rpc.request('continue', {});
    const stop = await host.waitFor('paused', (b) => b.line !== undefined, 15000);
    assert.equal(stop.line?.line, line);
    const taskId = stop.taskId!;

    // What the debugger's Variables shows: the innermost real frame's first scope.
    const stack = await host.rpc.request('lineStack', {});
    assert.equal(stack.frames[0]!.name, 'generatorTour');
    const variables = (await host.rpc.request('lineVariables', { handle: stack.frames[0]!.scopes[0]!.handle }))
      .variables;
    assert.ok(variables.length >= 10, variables.map((v) => v.name).join(', '));

    // What the panel shows (extension/inspector-panel.ts asks it so).
    const panel = await host.rpc.request('taskDetail', { taskId, locals: true, fromLogMeanwhile: true });
    const inner = panel.frames[panel.frames.length - 1]!;
    assert.equal(inner.name, 'generatorTour');
    assert.equal(inner.position?.line, line, 'the panel shows the line the thread is on');
    assert.deepEqual(
      inner.locals.map((v) => [v.name, v.value]),
      variables.map((v) => [v.name, v.value]),
    );
    // A local's children, as the panel expands it and as Variables does.
    const transcript = inner.locals.find((v) => v.name === 't')!;
    assert.ok(transcript.handle > 0);
    const panelChildren = (await host.rpc.request('variables', { handle: transcript.handle })).variables;
    const lineChildren = (
      await host.rpc.request('lineVariables', { handle: variables.find((v) => v.name === 't')!.handle })
    ).variables;
    assert.deepEqual(
      panelChildren.map((v) => [v.name, v.value]),
      lineChildren.map((v) => [v.name, v.value]),
    );

    // The Task scope's detail (asked without locals) says the same creation site as the panel's.
    const taskScope = await host.rpc.request('taskDetail', { taskId, locals: false });
    assert.ok(panel.createdAt !== null, 'the panel knows where the task was created');
    assert.deepEqual(taskScope.createdAt, panel.createdAt);

    await host.rpc.request('setBreakpoints', { file: GENERATORS, breakpoints: [] });
    const from = host.events.length;
    await host.rpc.request('continue', {});
    await host.waitFor('finished', () => true, 30000, from);
  });
});
