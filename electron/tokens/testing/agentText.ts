/** Generated text for the estimator's tests and the tokens benchmark (bench/tokens.ts). */

/** Seeded text like a coding agent's tool output: prose, code, JSON lines, paths, hashes. */
export function agentText(bytes: number, seed: number): string {
  let x = seed >>> 0 || 1;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
  const words = 'the of and to in is that for it with as was on be function return const let if else import export class new await error file path line value type'.split(' ');
  const word = () => words[Math.floor(rnd() * words.length)] as string;
  const parts: string[] = [];
  let n = 0;
  while (n < bytes) {
    const k = rnd();
    const s =
      k < 0.4
        ? `${Array.from({ length: 6 + Math.floor(rnd() * 20) }, word).join(' ')}.\n`
        : k < 0.7
          ? `  ${word()}(${Math.floor(rnd() * 1000)}, "${word()}") { return x${Math.floor(rnd() * 50)} + 1; }\n`
          : k < 0.85
            ? `${JSON.stringify({ id: Math.floor(rnd() * 1e9), name: word(), ok: rnd() < 0.5 })}\n`
            : k < 0.95
              ? `/home/user/project/src/${word()}/${word()}.ts:${Math.floor(rnd() * 900)}\n`
              : `${Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(rnd() * 16)]).join('')}\n`;
    parts.push(s);
    n += s.length;
  }
  return parts.join('');
}
