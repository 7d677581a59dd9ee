// The webview's side of the panel protocol: the VS Code webview API (acquireVsCodeApi: called
// once), a Transport over window messages, and the typed RpcEndpoint over it (requests of
// PanelMethods to the extension, events of PanelEvents from it).
//
// Invariants: messages are `unknown` until rpc.ts parses them as wire messages and a
// narrower of webview-protocol.ts accepts their body; acquireVsCodeApi is called exactly once.

import { RpcEndpoint, type Transport } from '../protocol/rpc';
import type { PanelEvents, PanelMethods, WebviewMethods } from '../protocol/webview-protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

let api: VsCodeApi | null = null;

export function vscodeApi(): VsCodeApi {
  api ??= acquireVsCodeApi();
  return api;
}

export type PanelClient = RpcEndpoint<PanelMethods, WebviewMethods, PanelEvents, Record<string, never>>;

export function connect(): PanelClient {
  const vs = vscodeApi();
  const transport: Transport = {
    send: (message) => vs.postMessage(message),
    onMessage: (receive) => window.addEventListener('message', (e: MessageEvent<unknown>) => receive(e.data)),
    onClose: () => undefined,
  };
  const client: PanelClient = new RpcEndpoint<PanelMethods, WebviewMethods, PanelEvents, Record<string, never>>(
    transport,
  );
  client.onProtocolError = (problem) => console.warn(`coroscope panel: ${problem}`);
  return client;
}
