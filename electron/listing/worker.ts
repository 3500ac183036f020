/**
 * The folder listing's thread (./thread.ts), bundled to dist/listing.cjs: scans each folder it is
 * sent (./scan.ts, heads only, read-only) and answers.
 */
import { parentPort } from 'node:worker_threads';
import type { ScanReply, ScanRequest } from './thread';
import { scanFolder } from './scan';

const port = parentPort;
if (!port) throw new Error('listing/worker.ts runs as a worker_threads worker of a folder listing');

port.on('message', (request: ScanRequest) => {
  const gate = request.gate ? new Int32Array(request.gate) : undefined;
  const beforeFile = gate
    ? (): void => {
        Atomics.store(gate, 1, 1);
        Atomics.notify(gate, 1);
        Atomics.wait(gate, 0, 0);
      }
    : undefined;
  let reply: ScanReply;
  try {
    reply = { id: request.id, ok: true, scan: scanFolder(request.root, request.maxScanned, beforeFile) };
  } catch (e) {
    reply = { id: request.id, ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
});
