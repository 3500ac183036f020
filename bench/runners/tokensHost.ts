/**
 * The tokens group's child (bench/tokens.ts): one measurement in a fresh process.
 * - `decode`: the baseline — read the file in 1 MiB blocks and decode it as UTF-8 (streaming), nothing kept;
 * - `estimate`: estimateSource over the same file (sampled above 8 MiB, as the app and CLI do);
 * - `exact`: estimateSource counting every byte of the first `exactBytes` (the tokenizer's own speed);
 * - `view` / `viewPlain`: loadSession, then `view --at N`'s output (N the last call unless given) with / without the token estimates.
 * Reports the wall time of the step and the process's peak RSS.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { ByteSource } from '../../shared/format/types';
import { samplePlan } from '../../shared/tokens/estimate';
import { viewOutput } from '../../electron/cli/view';
import { loadSession } from '../../electron/loader/session';
import { estimateSource } from '../../electron/tokens/counter';
import { elapsedMs, memoryStatus, readInput, runMain } from './common';

interface Input {
  mode: 'decode' | 'estimate' | 'exact' | 'view' | 'viewPlain';
  path: string;
  exactBytes?: number;
  at?: number;
}

export interface TokensRunResult {
  ms: number;
  bytes: number;
  tokens?: number;
  sampled?: boolean;
  peakRss: number;
}

function fileSource(fd: number): ByteSource {
  const length = fstatSync(fd).size;
  return {
    length,
    read(start, end) {
      const out = Buffer.allocUnsafe(end - start);
      let at = 0;
      while (at < out.length) {
        const n = readSync(fd, out, at, out.length - at, start + at);
        if (n <= 0) break;
        at += n;
      }
      return out.subarray(0, at);
    },
  };
}

runMain(async (): Promise<TokensRunResult> => {
  const input = readInput<Input>();
  if (input.mode === 'view' || input.mode === 'viewPlain') {
    const loaded = await loadSession([input.path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const started = performance.now();
    const out = JSON.stringify(viewOutput(loaded.session, input.at ?? loaded.session.calls.length, undefined, { estimates: input.mode === 'view' }));
    const ms = elapsedMs(started);
    loaded.session.close();
    return { ms, bytes: out.length, peakRss: memoryStatus().peakRss };
  }
  const fd = openSync(input.path, 'r');
  try {
    const source = fileSource(fd);
    const started = performance.now();
    if (input.mode === 'decode') {
      const decoder = new TextDecoder('utf-8');
      let chars = 0;
      for (let at = 0; at < source.length; at += 1 << 20) chars += decoder.decode(source.read(at, Math.min(source.length, at + (1 << 20))), { stream: true }).length;
      return { ms: elapsedMs(started), bytes: source.length, tokens: chars, peakRss: memoryStatus().peakRss };
    }
    const exact = Math.min(source.length, input.exactBytes ?? source.length);
    const est = input.mode === 'exact' ? estimateSource({ length: exact, read: (s, e) => source.read(s, e) }, {}, samplePlan(exact, { above: Number.POSITIVE_INFINITY })) : estimateSource(source);
    return { ms: elapsedMs(started), bytes: input.mode === 'exact' ? exact : source.length, tokens: est.tokens, sampled: est.sampled === true, peakRss: memoryStatus().peakRss };
  } finally {
    closeSync(fd);
  }
});
