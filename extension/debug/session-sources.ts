// LoadedSources: the TypeScript files of the host's bundle (from its source map), plus the
// files frames showed (each announced once with a `loadedSource` event).
//
// Invariants: the source map is read once; a file is listed once.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LoadedSourceEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { FrameDraft } from './dap-mapping';
import type { SessionCore } from './session-core';

export class LoadedSources {
  constructor(private readonly core: SessionCore) {}

  // Loaded sources.
  private loadedSources: Map<string, DebugProtocol.Source> | null = null;

  /** The TypeScript files of the host's bundle (from its source map), plus those frames showed. */
  private sources(): Map<string, DebugProtocol.Source> {
    if (this.loadedSources !== null) return this.loadedSources;
    const out = new Map<string, DebugProtocol.Source>();
    try {
      const mapPath = `${this.core.options.hostScript}.map`;
      const map: unknown = JSON.parse(readFileSync(mapPath, 'utf8'));
      const m = (typeof map === 'object' && map !== null ? map : {}) as { sources?: unknown; sourceRoot?: unknown };
      const root = resolve(dirname(mapPath), typeof m.sourceRoot === 'string' ? m.sourceRoot : '');
      if (Array.isArray(m.sources)) {
        for (const s of m.sources as unknown[]) {
          if (typeof s !== 'string' || s.includes('node_modules') || !/\.[cm]?ts$/.test(s)) continue;
          const path = resolve(root, s);
          if (existsSync(path)) out.set(path, { name: path.split(/[\\/]/).pop()!, path });
        }
      }
    } catch {
      // No source map next to the host: only the files frames show.
    }
    this.loadedSources = out;
    return out;
  }

  noteSources(drafts: readonly FrameDraft[]): void {
    const known = this.sources();
    for (const d of drafts) {
      const s = d.frame.source;
      if (s?.path === undefined || known.has(s.path)) continue;
      const source: DebugProtocol.Source = { name: s.name ?? s.path, path: s.path };
      known.set(s.path, source);
      this.core.sendEvent(new LoadedSourceEvent('new', source));
    }
  }

  loadedSourcesRequest(response: DebugProtocol.LoadedSourcesResponse): void {
    response.body = {
      sources: [...this.sources().values()].map((s) => ({
        ...s,
        path: s.path === undefined ? undefined : this.core.convertDebuggerPathToClient(s.path),
      })),
    };
    this.core.sendResponse(response);
  }
}
