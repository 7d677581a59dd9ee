// A type-level test, checked by `npm run typecheck` (never run): HostMethods and HostEvents
// have no index signature, so a misspelled method or event name, or params of the wrong
// shape, do not type-check at a caller of an RpcEndpoint over them. If one of the
// `@ts-expect-error` lines below stops being an error, the typecheck fails.

import type { HostEvents, HostMethods } from '../../protocol/host-protocol';
import type { HostAndReplayHostMethods } from '../../protocol/replay-host-protocol';
import type { RpcEndpoint } from '../../protocol/rpc';

type Client = RpcEndpoint<HostMethods, Record<string, never>, HostEvents, Record<string, never>>;

export async function misspelledNamesDoNotTypeCheck(client: Client): Promise<void> {
  const snapshot = await client.request('snapshot', { since: 1 });
  const version: number = snapshot.version;
  void version;
  // @ts-expect-error: a misspelled method name
  await client.request('snapshto', {});
  // @ts-expect-error: a field of the wrong type
  await client.request('stepTask', { taskId: '1' });
  // @ts-expect-error: a misspelled event name
  client.on('finishd', () => undefined);
}

export function aServerCannotServeAnUnknownMethod(
  server: RpcEndpoint<Record<string, never>, HostMethods, Record<string, never>, HostEvents>,
): void {
  server.handle('pause', () => ({ tick: 0 }));
  // @ts-expect-error: not a method of HostMethods
  server.handle('pasue', () => ({ tick: 0 }));
  // @ts-expect-error: not an event of HostEvents
  server.emit('progres', { done: 0 });
}

export async function theReplayHostMethodsAreNotPublic(
  client: Client,
  inside: RpcEndpoint<HostAndReplayHostMethods, Record<string, never>, HostEvents, Record<string, never>>,
): Promise<void> {
  // @ts-expect-error: an internal replay-host method is not in the public host protocol
  await client.request('pastLine', {
    tick: 1,
    taskId: 1,
    stop: { frames: [], locals: [], locations: [] },
    move: 'back',
  });
  // A live host's worker asks it over the protocol that adds them (protocol/replay-host-protocol.ts).
  await inside.request('replayLineTick', { tick: 1 });
}
