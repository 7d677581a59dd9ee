import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentSecurityPolicy, escapeHtml, makeNonce, panelHtml, rebaseStyleUrls } from '../../extension/webview-html';

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

  describe('loaded again with its script and stylesheet inlined (a service worker that served neither)', () => {
    const inlined = panelHtml({
      cspSource: 'https://r',
      scriptUri: 'https://x/dist/webview/main.js',
      styleUri: 'https://x/dist/webview/main.css',
      nonce: 'n0',
      inline: {
        script: 'const s = "</script><script>alert(1)</script>"; boot();',
        style:
          '@font-face { src: url("./codicon.ttf?v=1") format("truetype"); } .a { background: url(data:image/png;base64,AA) } .b{} </style>',
        base: 'https://r/ext/dist/webview',
      },
    });

    it('binds both to the nonce; nothing else inline, nothing loosened', () => {
      const csp = (/content="([^"]*)"/.exec(inlined)?.[1] ?? '').replace(/&#39;/g, "'");
      assert.deepEqual(csp.split('; '), [
        "default-src 'none'",
        'img-src https://r data:',
        "style-src https://r 'nonce-n0'",
        'font-src https://r',
        "script-src 'nonce-n0'",
      ]);
      assert.equal(inlined.match(/<script nonce/g)?.length, 1);
      assert.match(inlined, /<script nonce="n0">const s = /);
      assert.match(inlined, /<style nonce="n0">@font-face/);
      assert.doesNotMatch(inlined, /<link /);
      assert.doesNotMatch(inlined, /src="https:\/\/x/);
    });

    it('cannot be closed early by what the script or stylesheet holds', () => {
      assert.equal(inlined.match(/<\/script>/g)?.length, 1);
      assert.equal(inlined.match(/<\/style>/g)?.length, 1);
      assert.match(inlined, /"<\\\/script><script>alert\(1\)<\\\/script>"/);
    });

    it("takes the stylesheet's relative URLs from its folder, others as they are", () => {
      assert.equal(
        rebaseStyleUrls(
          'a{src:url("./f.ttf?x")} b{src:url(g.woff)} c{background:url(data:x)} d{src:url(https://h/i)}',
          'https://r/d/',
        ),
        'a{src:url("https://r/d/f.ttf?x")} b{src:url(https://r/d/g.woff)} c{background:url(data:x)} d{src:url(https://h/i)}',
      );
      assert.match(inlined, /url\("https:\/\/r\/ext\/dist\/webview\/codicon\.ttf\?v=1"\)/);
    });
  });
});
