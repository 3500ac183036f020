/**
 * The `sessions` command's interrupt budget (listingTiering.ts): four times V8's own while the
 * listing runs, V8's own again after it, however it ends; the flags untouched on another V8 or when
 * the user gave the budget. The flags are observed the way they matter: V8 refuses a code cache
 * made under other flags. Each look compiles in a fresh thread (an isolate of its own), whose
 * compilation cache holds nothing yet.
 */
import { Script } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { LISTING_INTERRUPT_BUDGET, MEASURED_V8, V8_OWN_INTERRUPT_BUDGET, listingInterruptBudget, withListingTiering } from './listingTiering';

const PROBE_SOURCE = '(probe) => probe + 1';
/** A code cache made under the flags the process has now. */
const probeMadeNow = (): Buffer => new Script(PROBE_SOURCE, { filename: 'probe.js' }).createCachedData();

/** Whether V8 refuses `probe` under the process's flags as they are now. */
function refused(probe: Buffer): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const look = new Worker(
      `const { Script } = require('node:vm'); const { workerData, parentPort } = require('node:worker_threads');
       parentPort.postMessage(new Script(workerData.source, { filename: 'probe.js', cachedData: Buffer.from(workerData.probe) }).cachedDataRejected === true);`,
      { eval: true, workerData: { source: PROBE_SOURCE, probe } },
    );
    look.once('message', (m: boolean) => resolve(m));
    look.once('error', reject);
  });
}

describe('the budget a listing runs with', () => {
  it('four times V8’s own on the V8 it was measured on; none on another V8, nor when the user gave one', () => {
    const measured = { v8: `${MEASURED_V8}244.8-node.38`, execArgv: [], env: {} };
    expect(listingInterruptBudget(measured)).toBe(LISTING_INTERRUPT_BUDGET);
    expect(LISTING_INTERRUPT_BUDGET).toBe(4 * V8_OWN_INTERRUPT_BUDGET);
    expect(listingInterruptBudget({ ...measured, v8: '12.4.254.21-node.33' })).toBeUndefined();
    expect(listingInterruptBudget({ ...measured, execArgv: ['--interrupt-budget=1000'] })).toBeUndefined();
    expect(listingInterruptBudget({ ...measured, env: { NODE_OPTIONS: '--max-old-space-size=4096 --interrupt_budget=1000' } })).toBeUndefined();
    expect(listingInterruptBudget({ ...measured, execArgv: ['--interrupt-budget', '1000'] })).toBeUndefined();
    // Other tiering flags are not the budget.
    expect(listingInterruptBudget({ ...measured, execArgv: ['--max-opt=2', '--interrupt-budget-for-maglev=1000'] })).toBe(LISTING_INTERRUPT_BUDGET);
  });
});

describe.skipIf(!process.versions.v8.startsWith(MEASURED_V8) || listingInterruptBudget() === undefined)('a listing on this V8', () => {
  it('runs under other flags than before it, and leaves them as they were: a code cache made before is taken again', async () => {
    const before = probeMadeNow();
    let during: boolean | undefined;
    const answer = await withListingTiering(async () => {
      during = await refused(before);
      return 'listed';
    });
    expect(answer).toBe('listed');
    expect(during).toBe(true);
    expect(await refused(before)).toBe(false);
  });

  it('leaves them as they were when the listing throws', async () => {
    const before = probeMadeNow();
    await expect(
      withListingTiering(async () => {
        expect(await refused(before)).toBe(true);
        throw new Error('the listing failed');
      }),
    ).rejects.toThrow('the listing failed');
    expect(await refused(before)).toBe(false);
  });

  it('changes nothing when the user gave the budget', async () => {
    const before = probeMadeNow();
    const during = await withListingTiering(() => refused(before), { execArgv: ['--interrupt-budget=70000'], env: {} });
    expect(during).toBe(false);
  });
});
