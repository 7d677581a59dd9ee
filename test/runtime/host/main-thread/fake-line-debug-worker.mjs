// A stand-in for the line debugger's worker thread (runtime/host/worker/line-debug-worker-main.ts), started by
// LineDebugBridge in line-debug-bridge.test.ts: it answers each message with `{ got: message }`, posts the
// messages of a `{ say: [...] }` as its own (requests, bridge controls), and, asked to disconnect, says it
// disconnected and exits (the bridge then closes: "the line debugger's worker exited").
import { parentPort, workerData } from 'node:worker_threads';

parentPort.on('message', (m) => {
  if (m?.bridge === 'disconnect') {
    parentPort.postMessage({ bridge: 'disconnected' });
    process.exit(0);
  }
  if (Array.isArray(m?.say)) for (const said of m.say) parentPort.postMessage(said);
  else parentPort.postMessage({ got: m });
});
parentPort.postMessage({ started: { fd: workerData.coroscopeLineDebugFd, script: workerData.coroscopeHostScript } });
