import { sha256 } from '@noble/hashes/sha2.js';
import type { Sha256 } from './types';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Portable SHA-256 (pure JS). Hosts with a native digest pass their own `Sha256` for speed. */
export const sha256Hex: Sha256 = (chunks) => {
  const h = sha256.create();
  for (const c of chunks) h.update(c);
  const d = h.digest();
  let s = '';
  for (const b of d) s += HEX[b];
  return s;
};

/** The `sha256:<hex>` form used by `SidecarPtr.hash`. */
export function ptrHash(hex: string): string {
  return `sha256:${hex}`;
}
