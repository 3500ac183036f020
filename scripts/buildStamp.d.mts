// Types of scripts/buildStamp.mjs for the TypeScript that imports it (its test).
export const INPUT_DIRS: readonly string[];
export function filesUnder(root: string, dir: string): string[];
export function inputsDigest(root: string): string;
export function isCurrent(root: string, name: string, digest: string): boolean;
export function clearStamp(root: string, name: string): void;
export function writeStamp(root: string, name: string, digest: string, outputs: readonly string[]): void;
