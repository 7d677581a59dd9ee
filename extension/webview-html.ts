// The inspector panel's HTML document: a strict Content Security Policy (`default-src
// 'none'`; the one script and the stylesheet only from the extension's own webview
// resources, the script also bound to a fresh nonce; no inline script or style attribute),
// the stylesheet (our CSS and the codicon font, bundled by esbuild to dist/webview/main.css)
// and the script (dist/webview/main.js). Everything else the panel shows is built by the
// script with DOM calls; nothing from the runtime passes through this template.
// A page whose script never ran is loaded again with the same script and stylesheet inlined,
// each bound to the nonce (`inline`): in VS Code for the web, a webview's service worker now
// and then serves none of its resources (inspector-panel.ts).
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
  /** The script and stylesheet's own text, put in the page instead of loaded (absent: loaded). */
  inline?: InlinedResources;
}

/** dist/webview/main.js and main.css as text, and the webview URI of their folder (their relative URLs'). */
export interface InlinedResources {
  readonly script: string;
  readonly style: string;
  readonly base: string;
}

/** Text put inside a `<tag>` element: its closing tag cannot occur in it (`<\/tag` means the same in JS and CSS). */
function insideElement(text: string, tag: 'script' | 'style'): string {
  return text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');
}

/** `path`, relative to the folder `base` (a URL, with or without its closing slash). */
function against(base: string, path: string): string {
  return `${base.replace(/\/$/, '')}/${path.replace(/^\.\//, '')}`;
}

/** A script's or stylesheet's source map comment, naming a file beside it, made to name it against `base`. */
function rebaseSourceMap(text: string, base: string): string {
  return text.replace(/sourceMappingURL=(?![a-z][a-z0-9+.-]*:)(\S+?\.map)/i, (_m, file: string) => {
    return `sourceMappingURL=${against(base, file)}`;
  });
}

/** The stylesheet's relative URLs (the codicon font) made absolute against `base`, its folder. */
export function rebaseStyleUrls(style: string, base: string): string {
  return style.replace(/url\((['"]?)(?![a-z][a-z0-9+.-]*:|\/|#)([^'")]+)\1\)/gi, (_m, q: string, path: string) => {
    return `url(${q}${against(base, path)}${q})`;
  });
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

export function contentSecurityPolicy(cspSource: string, nonce: string, inlineStyle = false): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    inlineStyle ? `style-src ${cspSource} 'nonce-${nonce}'` : `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function panelHtml(input: PanelHtmlInput): string {
  const nonce = input.nonce ?? makeNonce();
  const inline = input.inline;
  const csp = contentSecurityPolicy(input.cspSource, nonce, inline !== undefined);
  const style =
    inline === undefined
      ? `<link rel="stylesheet" href="${escapeHtml(input.styleUri)}">`
      : `<style nonce="${escapeHtml(nonce)}">${insideElement(rebaseSourceMap(rebaseStyleUrls(inline.style, inline.base), inline.base), 'style')}</style>`;
  const script =
    inline === undefined
      ? `<script nonce="${escapeHtml(nonce)}" src="${escapeHtml(input.scriptUri)}"></script>`
      : `<script nonce="${escapeHtml(nonce)}">${insideElement(rebaseSourceMap(inline.script, inline.base), 'script')}</script>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${style}
<title>Coroscope Inspector</title>
</head>
<body>
<div id="app" role="application" aria-label="Coroscope Inspector"></div>
${script}
</body>
</html>`;
}
