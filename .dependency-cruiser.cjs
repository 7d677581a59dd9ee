// The layer rules of docs/ARCHITECTURE.md ("Layers: imports only go downwards"), checked by
// dependency-cruiser on every `npm test` (script `lint:layers`), so CI fails on an import that
// breaks one. Each rule names the layer, what it must not import, and why.
/** @type {import('dependency-cruiser').IConfiguration} */

// The runtime core: the files directly in runtime/ (index.ts, the public face, re-exports
// the layers above it for programs and is exempt).
const CORE = '^runtime/[^/]+\\.ts$';
const CORE_PUBLIC_FACE = '^runtime/index\\.ts$';
const LIBRARIES = '^runtime/(http|crawler|samples|demo-site)/';
const INSPECTOR = '^runtime/(inspect|host|cli|record)/';

module.exports = {
  forbidden: [
    {
      name: 'core-stays-at-the-bottom',
      comment: 'The runtime core (loop, futures, tasks, primitives, sockets, streams) imports only node built-ins and itself: the inspector reads it through runtime/inspection.ts, never the other way.',
      severity: 'error',
      from: { path: CORE, pathNot: CORE_PUBLIC_FACE },
      to: { path: '^(runtime/[^/]+/|protocol/|extension/|webview/)' },
    },
    {
      name: 'libraries-below-the-inspector',
      comment: 'HTTP, the crawlers, the samples and the demo site build on the core only: no inspector, host, CLI or recorder.',
      severity: 'error',
      from: { path: LIBRARIES },
      to: { path: `${INSPECTOR}|^(extension|webview)/` },
    },
    {
      name: 'runtime-never-reaches-the-editor',
      comment: 'Nothing of runtime/ imports the extension, the webview or vscode: the runtime runs in its own process.',
      severity: 'error',
      from: { path: '^runtime/' },
      to: { path: '^(extension|webview)/|^vscode$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'protocol-is-types-and-pure-code',
      comment: 'protocol/ is shared by every side: it imports no runtime, extension, webview or vscode code.',
      severity: 'error',
      from: { path: '^protocol/' },
      to: { path: '^(runtime|extension|webview)/|^vscode$' },
    },
    {
      name: 'extension-talks-to-the-host',
      comment: 'The extension reaches the runtime through the host protocol (a process of its own), never by importing runtime code.',
      severity: 'error',
      from: { path: '^extension/' },
      to: { path: '^(runtime|webview)/' },
    },
    {
      name: 'webview-is-a-browser-page',
      comment: 'The webview runs in a browser frame: DOM and protocol types only, no node, vscode, runtime or extension code.',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^(runtime|extension)/|^vscode$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'webview-no-node-builtins',
      comment: 'Node built-ins do not exist in a webview.',
      severity: 'error',
      from: { path: '^webview/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test/e2e/setup)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
