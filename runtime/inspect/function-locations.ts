// FunctionLocations: where a function is defined, as a TypeScript position, read once per
// function through node:inspector (`[[FunctionLocation]]`, an internal property of every
// function object) and mapped through the script's source map.
//
// Line breakpoints use it as their cheap filter: only frames whose generator function lives
// in a file that has breakpoints are worth reading the suspended position of (about 160 µs
// each). Lints use it to say where a never-awaited coroutine's function is.
//
// Invariants: one inspector read per function for the life of the process (a WeakMap cache,
// misses included), so the function stays collectable; reading runs no program code.

import type { Runtime } from 'node:inspector';
import { inspectorSession, type InspectorSession } from './inspector-session';
import { sourcePositions, type SourcePosition, type SourcePositionMapper } from './source-positions';

function isLocationValue(v: unknown): v is { scriptId: string; lineNumber: number; columnNumber: number } {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.scriptId === 'string' && typeof r.lineNumber === 'number' && typeof r.columnNumber === 'number';
}

export class FunctionLocations {
  private readonly cache = new WeakMap<object, SourcePosition | null>();

  constructor(
    private readonly session: InspectorSession = inspectorSession(),
    private readonly positions: SourcePositionMapper = sourcePositions(),
  ) {}

  /** The (mapped) position of the function's definition, or null if V8 gives none. */
  locationOf(fn: object): SourcePosition | null {
    const known = this.cache.get(fn);
    if (known !== undefined) return known;
    let pos: SourcePosition | null = null;
    try {
      pos = this.session.withObjectGroup((group) => {
        const objectId = this.session.objectIdOf(fn, group);
        const props: Runtime.GetPropertiesReturnType = this.session.getProperties({ objectId, ownProperties: true });
        for (const p of props.internalProperties ?? []) {
          if (p.name !== '[[FunctionLocation]]') continue;
          const v: unknown = p.value?.value;
          if (!isLocationValue(v)) continue;
          const info = this.session.scriptInfo(v.scriptId);
          if (info === null || info.url === '') return null;
          return this.positions.map(info.url, v.lineNumber, v.columnNumber, info.sourceMapURL);
        }
        return null;
      });
    } catch {
      pos = null;
    }
    this.cache.set(fn, pos);
    return pos;
  }

  /** The file the function is defined in (TypeScript when mapped), or null. */
  fileOf(fn: object): string | null {
    return this.locationOf(fn)?.file ?? null;
  }
}

let shared: FunctionLocations | null = null;

/** The process's function-location cache. */
export function functionLocations(): FunctionLocations {
  shared ??= new FunctionLocations();
  return shared;
}
