/** Runs the command line in-process, capturing what it prints: the CLI tests' one way in. */
import type { LoadOptions } from '../../loader/session';
import { main } from '../main';
import { writeJson } from '../output';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], loadOptions?: LoadOptions): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  // Bytes as the process's writer takes them (UTF-8 text copied from a file), decoded into the same capture.
  const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), stdoutBytes: (b) => (stdout += Buffer.from(b).toString('utf8')) }, loadOptions);
  return { code, stdout, stderr };
}

/**
 * What the command line prints of `value` (writeJson, its pieces and the bytes it copies from a
 * file decoded as runCli decodes them): a command's document built in-process, printed as it would be.
 */
export function printedJson(value: unknown): string {
  let text = '';
  writeJson(value, (t) => (text += t), (b) => (text += Buffer.from(b).toString('utf8')));
  return text;
}
