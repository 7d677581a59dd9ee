// The inspector panel's HTML document: a strict Content Security Policy (`default-src
// 'none'`; the one script and the stylesheet only from the extension's own webview
// resources, the script also bound to a fresh nonce; no inline script or style attribute),
// the stylesheet (our CSS and the codicon font, bundled by esbuild to dist/webview/main.css)
// and the script (dist/webview/main.js). Everything else the panel shows is built by the
// script with DOM calls; nothing from the runtime passes through this template.
//
// Pure: no vscode import (tested as it is).

import { randomBytes } from 'node:crypto';

export interface PanelHtmlInput {
  /** webview.cspSource. */
  cspSource: string;
  /** webview.asWebviewUri(dist/webview/main.js).toString(). */
  scriptUri: string;
  /** webview.asWebviewUri(dist/webview/main.css).toString(). */
  styleUri: string;
  nonce?: string;
}

/** A nonce: 128 random bits, base64 without padding characters that need escaping. */
export function makeNonce(): string {
  return randomBytes(16)
    .toString('base64')
    .replace(/[+/=]/g, (c) => (c === '+' ? '-' : c === '/' ? '_' : ''));
}

/** Escapes text for an HTML attribute value or text node. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function panelHtml(input: PanelHtmlInput): string {
  const nonce = input.nonce ?? makeNonce();
  const csp = contentSecurityPolicy(input.cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeHtml(input.styleUri)}">
<title>Coroscope Inspector</title>
</head>
<body>
<div id="app" role="application" aria-label="Coroscope Inspector"></div>
<script nonce="${escapeHtml(nonce)}" src="${escapeHtml(input.scriptUri)}"></script>
</body>
</html>`;
}
