/**
 * The inspector panel's webview bundle (dist/webview/main.js + main.css) alone in a page, as
 * VS Code would show it, with a stand-in for the extension: `stub` is a script that defines
 * acquireVsCodeApi (answering the panel's requests over window messages, as VS Code delivers
 * them) before the bundle runs. The page gets a theme's variables (a few of those VS Code
 * gives a webview) and its body class, so the panel looks, and reads its colours, as it
 * would there.
 *
 * Invariants: everything is written to a fresh temporary folder, removed by `dispose()`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const projectRoot = resolve(__dirname, '..', '..', '..');
export const WEBVIEW_BUNDLE = join(projectRoot, 'dist', 'webview', 'main.js');
export const WEBVIEW_STYLES = join(projectRoot, 'dist', 'webview', 'main.css');

export type HarnessTheme = 'dark' | 'light' | 'high-contrast';

const THEMES: Record<HarnessTheme, { bodyClass: string; vars: Record<string, string> }> = {
  // Dark Modern.
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      foreground: '#cccccc',
      descriptionForeground: '#9d9d9d',
      'editor-background': '#1f1f1f',
      'panel-border': '#2b2b2b',
      'list-hoverBackground': '#2a2d2e',
      'list-inactiveSelectionBackground': '#37373d',
      'list-activeSelectionBackground': '#04395e',
      'badge-background': '#616161',
      'badge-foreground': '#f8f8f8',
      'input-background': '#313131',
      'input-foreground': '#cccccc',
      'button-background': '#0078d4',
      'button-foreground': '#ffffff',
      'textLink-foreground': '#4daafc',
      focusBorder: '#0078d4',
      'charts-green': '#89d185',
      'charts-yellow': '#cca700',
      'charts-blue': '#3794ff',
      'charts-purple': '#b180d7',
      'charts-orange': '#d18616',
      'charts-red': '#f14c4c',
      'charts-lines': 'rgba(204, 204, 204, 0.5)',
      'editorCursor-foreground': '#aeafad',
      disabledForeground: 'rgba(204, 204, 204, 0.5)',
    },
  },
  // Light Modern.
  light: {
    bodyClass: 'vscode-light',
    vars: {
      foreground: '#3b3b3b',
      descriptionForeground: '#3b3b3b',
      'editor-background': '#ffffff',
      'panel-border': '#e5e5e5',
      'list-hoverBackground': '#f2f2f2',
      'list-inactiveSelectionBackground': '#e4e6f1',
      'list-activeSelectionBackground': '#e8e8e8',
      'badge-background': '#cccccc',
      'badge-foreground': '#3b3b3b',
      'input-background': '#ffffff',
      'input-foreground': '#3b3b3b',
      'button-background': '#005fb8',
      'button-foreground': '#ffffff',
      'textLink-foreground': '#005fb8',
      focusBorder: '#005fb8',
      'charts-green': '#388a34',
      'charts-yellow': '#bf8803',
      'charts-blue': '#1a85ff',
      'charts-purple': '#652d90',
      'charts-orange': '#d18616',
      'charts-red': '#e51400',
      'charts-lines': 'rgba(59, 59, 59, 0.5)',
      'editorCursor-foreground': '#000000',
      disabledForeground: 'rgba(97, 97, 97, 0.5)',
    },
  },
  // High Contrast (dark).
  'high-contrast': {
    bodyClass: 'vscode-high-contrast',
    vars: {
      foreground: '#ffffff',
      descriptionForeground: 'rgba(255, 255, 255, 0.7)',
      'editor-background': '#000000',
      'panel-border': '#6fc3df',
      'list-inactiveSelectionBackground': 'transparent',
      contrastBorder: '#6fc3df',
      contrastActiveBorder: '#f38518',
      'input-background': '#000000',
      'input-foreground': '#ffffff',
      'button-background': '#000000',
      'button-foreground': '#ffffff',
      focusBorder: '#f38518',
      'charts-green': '#89d185',
      'charts-yellow': '#ffd700',
      'charts-blue': '#3794ff',
      'charts-purple': '#b180d7',
      'charts-orange': '#d18616',
      'charts-red': '#f48771',
      'charts-lines': 'rgba(255, 255, 255, 0.5)',
      'editorCursor-foreground': '#ffffff',
      disabledForeground: '#a5a5a5',
    },
  },
};

export interface WebviewHarness {
  /** The page to open: file://…/index.html */
  readonly url: string;
  dispose(): void;
}

/** Writes the page (the bundle after `stub`) in `theme`; throws when the bundle is not built. */
export function writeWebviewHarness(stub: string, theme: HarnessTheme = 'dark'): WebviewHarness {
  if (!existsSync(WEBVIEW_BUNDLE) || !existsSync(WEBVIEW_STYLES))
    throw new Error('the webview bundle is not built: run `npm run build` first');
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-webview-'));
  writeFileSync(join(dir, 'stub.js'), stub);
  const t = THEMES[theme];
  const vars = Object.entries({
    'font-family': 'system-ui,sans-serif',
    'font-size': '13px',
    'editor-font-family': 'monospace',
    'editor-font-size': '12px',
    ...t.vars,
  })
    .map(([k, v]) => `--vscode-${k}:${v}`)
    .join(';');
  writeFileSync(
    join(dir, 'index.html'),
    `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="file://${WEBVIEW_STYLES}"><style>:root{${vars}}</style></head>` +
      `<body class="${t.bodyClass}"><div id="app"></div><script src="file://${join(dir, 'stub.js')}"></script><script src="file://${WEBVIEW_BUNDLE}"></script></body></html>`,
  );
  return { url: `file://${join(dir, 'index.html')}`, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
