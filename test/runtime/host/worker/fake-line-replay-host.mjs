// A stand-in for a line replay host process (runtime/host/replay-host/), forked by
// LineReplayHost.fork in line-replay-host-moments.test.ts (and -start, -log-hits): it speaks the
// host's RPC framing (one JSON message a line on fd 4) and answers every move with a moment id. A move whose id starts
// with "honest" is echoed; any other move (one with no id too) is answered with another asker's
// id, as a confused or stale replay host would. A logpoint list whose message is "slow" is answered
// after SLOW_MS; `arrivals` answers the requests received so far, each with how many were under way.
import { createReadStream, createWriteStream } from 'node:fs';

const fd = Number(process.argv.find((a) => a.startsWith('--client-fd='))?.slice('--client-fd='.length) ?? 4);
const input = createReadStream('', { fd, autoClose: false });
const output = createWriteStream('', { fd, autoClose: false });
const send = (m) => output.write(`${JSON.stringify(m)}\n`);

const MOVES = new Set(['seekTick', 'pastLine', 'pastHitLine', 'pastHit']);
const LINE = { file: '/src/app.ts', line: 7, column: 1 };

/** Logpoint lists replayed (pastLog): each answer's one hit is in tick n for the nth (line-replay-host-log-hits). */
let logs = 0;
/** How long a "slow" logpoint list replays (line-replay-host-turns). */
const SLOW_MS = 300;
/** The requests received, in order, each with the number of others not answered yet when it came. */
const arrivals = [];
let underWay = 0;

function answer(method, params) {
  if (method === 'arrivals') return { arrivals };
  if (method === 'pastLog') return { hits: [{ bp: 0, tick: ++logs, taskId: 1, count: 1, message: 'listed' }] };
  if (!MOVES.has(method)) return {};
  const asked = params?.moment;
  const moment = typeof asked === 'string' && asked.startsWith('honest') ? asked : 'someone-else:1';
  if (method === 'seekTick') return { runId: 1, tick: params.tick, ticks: 9, moment };
  if (method === 'pastHit') return { landed: 'none', breakpoints: [], from: 0, to: 9, moment };
  return { landed: 'line', line: LINE, moment };
}

let buffered = '';
input.on('data', (chunk) => {
  buffered += chunk.toString('utf8');
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim() === '') continue;
    const m = JSON.parse(line);
    if (m.kind !== 'request') continue;
    if (m.method !== 'arrivals') arrivals.push({ method: m.method, beside: underWay });
    underWay++;
    const slow = m.method === 'pastLog' && m.params?.logpoints?.[0]?.logMessage === 'slow';
    const respond = () => {
      underWay--;
      send({ kind: 'response', id: m.id, ok: true, result: answer(m.method, m.params) });
    };
    if (slow) setTimeout(respond, SLOW_MS);
    else respond();
  }
});
process.on('disconnect', () => process.exit(0));
