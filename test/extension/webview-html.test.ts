import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentSecurityPolicy, escapeHtml, makeNonce, panelHtml } from '../../extension/webview-html';

describe('inspector panel HTML', () => {
  const html = panelHtml({
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    scriptUri: 'https://x/dist/webview/main.js',
    styleUri: 'https://x/dist/webview/main.css',
    nonce: 'abc123',
  });

  it('has a strict CSP: nothing by default, our script by nonce, our styles and font only', () => {
    const csp = (/http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '').replace(/&#39;/g, "'");
    const resources = 'https://file+.vscode-resource.vscode-cdn.net';
    assert.deepEqual(csp.split('; '), [
      "default-src 'none'",
      `img-src ${resources} data:`,
      `style-src ${resources}`,
      `font-src ${resources}`,
      "script-src 'nonce-abc123'",
    ]);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  });

  it('loads exactly one script, with the nonce, and no inline code or style', () => {
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(html, /<script nonce="abc123" src="https:\/\/x\/dist\/webview\/main\.js"><\/script>/);
    assert.doesNotMatch(html, /style="/);
    assert.doesNotMatch(html, / on\w+="/);
  });

  it('escapes what it interpolates', () => {
    assert.equal(
      escapeHtml(`<img src=x onerror="alert('1')"> & co`),
      '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co',
    );
    const hostile = panelHtml({ cspSource: 'a', scriptUri: '"><script>alert(1)</script>', styleUri: 's', nonce: 'n' });
    assert.equal(hostile.match(/<script/g)?.length, 1);
    assert.equal(contentSecurityPolicy('x', 'n').includes("default-src 'none'"), true);
  });

  it('makes a fresh, unguessable nonce each time', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.notEqual(a, b);
    assert.match(a, /^[A-Za-z0-9_-]{20,}$/);
  });
});
