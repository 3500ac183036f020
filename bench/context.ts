/** What every benchmark group gets from bench/run.ts. */
import type { Fixture } from './fixtures';

export interface BenchContext {
  fixture: Fixture;
  /** Runs per measurement (medians are reported). */
  runs: number;
  /** A progress line on stderr (the table alone goes to stdout). */
  log(line: string): void;
}
