// The inspector panel's entry point (bundled by esbuild to dist/webview/main.js, an IIFE,
// with its CSS and the codicon font to dist/webview/main.css). It starts the App on #app.

import '@vscode/codicons/dist/codicon.css';
import './styles.css';
import { App } from './app';

const root = document.getElementById('app');
if (root !== null) new App(root);
