// The webview's side of the panel protocol (webview/host-bridge.ts): requests go out through the
// VS Code API's postMessage as wire messages, answers and events come back as window messages,
// and a malformed message is reported, never thrown.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { connect, vscodeApi } from '../../webview/host-bridge';
import { closeDom, openDom } from './dom-env';

afterEach(() => closeDom());

describe('the host bridge', () => {
  it('asks VS Code for its API once, however often it is used', () => {
    openDom();
    let asked = 0;
    const api = (globalThis as unknown as { acquireVsCodeApi: () => unknown }).acquireVsCodeApi;
    (globalThis as unknown as { acquireVsCodeApi: () => unknown }).acquireVsCodeApi = () => {
      asked++;
      return api();
    };
    const first = vscodeApi();
    connect();
    assert.equal(vscodeApi(), first);
    assert.equal(asked, 1);
  });

  it('sends a request as a wire message and resolves it with the answer of the same id', async () => {
    const page = openDom();
    const client = connect();
    const answer = client.request('taskDetail', { taskId: 5 });
    assert.deepEqual(page.posted, [{ kind: 'request', id: 1, method: 'taskDetail', params: { taskId: 5 } }]);
    page.deliver({ kind: 'response', id: 2, ok: true, result: 'not this one' });
    page.deliver({ kind: 'response', id: 1, ok: true, result: { frames: [] } });
    assert.deepEqual(await answer, { frames: [] });
  });

  it("rejects a request with the extension's error", async () => {
    const page = openDom();
    const client = connect();
    const answer = client.request('graph', {});
    page.deliver({ kind: 'response', id: 1, ok: false, error: { message: 'no run', code: 'noRun' } });
    await assert.rejects(answer, { message: 'no run' });
  });

  it('delivers events to their listeners, and reports a malformed message without throwing', () => {
    const page = openDom();
    const client = connect();
    const problems: string[] = [];
    client.onProtocolError = (p) => problems.push(p);
    const bodies: unknown[] = [];
    client.on('status', (b) => bodies.push(b));
    page.deliver({ kind: 'event', event: 'status', body: { phase: 'paused' } });
    page.deliver({ kind: 'event', event: 'lint', body: {} });
    page.deliver('garbage');
    page.deliver({ kind: 'telepathy' });
    assert.deepEqual(bodies, [{ phase: 'paused' }]);
    assert.equal(problems.length, 2);
  });
});
