/**
 * `check --follow FILE...`: checks the session, then keeps checking as the file grows,
 * for an agent's CI watching a run. Output is JSON Lines: `{"finding":…}` once per finding (the
 * ones already there first, then each new one as it appears), `{"notice":…}` when the file was
 * reopened from scratch or deleted, and at the end `{"summary":…}`. It ends on SIGINT/SIGTERM or
 * when the file is deleted; a torn last line is taken (as `truncated_last_line`) before the end,
 * since the file has then stopped growing. Exit status as `check` (1 when an error was found, any
 * finding with --strict).
 */
import type { CheckReport, Finding } from '../../shared/index';
import type { FollowUpdate } from '../loader/follow';
import { SessionFollower } from '../loader/follow';
import type { FollowLoopOptions } from '../loader/followLoop';
import { FollowLoop } from '../loader/followLoop';
import type { LoadOptions } from '../loader/session';
import { FileChangedError } from '../loader/session';
import { CliError } from './errors';
import type { CliIo } from './output';

export interface CheckFollowOptions {
  strict: boolean;
  /** Resolves on SIGINT/SIGTERM (tests pass their own). */
  untilStopped: Promise<void>;
  loop?: FollowLoopOptions;
}

/** The report of the session now, or undefined when a file changed while it was checked (the next look reopens it). */
function report(follower: SessionFollower): CheckReport | undefined {
  try {
    return follower.session.check();
  } catch (e) {
    if (e instanceof FileChangedError) return undefined;
    throw e;
  }
}

export async function runCheckFollow(files: string[], loadOptions: LoadOptions, options: CheckFollowOptions, io: CliIo): Promise<number> {
  const opened = await SessionFollower.open(files, loadOptions);
  if (!opened.ok) throw new CliError(opened.error.code, opened.error.message);
  const follower = opened.follower;
  /** Findings printed so far, by their JSON: a finding is printed once, however often the session is checked. */
  const printed = new Set<string>();
  let failing = false;
  let last: CheckReport | undefined;
  const print = (value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);
  const printNew = () => {
    const now = report(follower);
    if (!now) return;
    last = now;
    for (const f of now.findings) {
      const key = JSON.stringify(f);
      if (printed.has(key)) continue;
      printed.add(key);
      if (options.strict || f.severity === 'error') failing = true;
      print({ finding: f satisfies Finding });
    }
  };
  let deleted: () => void = () => undefined;
  const gone = new Promise<void>((resolve) => (deleted = resolve));
  const onUpdate = (update: FollowUpdate) => {
    if (update.notice) print({ notice: update.notice });
    if (update.notice?.kind === 'deleted') {
      deleted();
      return;
    }
    printNew();
  };
  printNew();
  const loop = new FollowLoop(follower, onUpdate, options.loop ?? {});
  try {
    await Promise.race([options.untilStopped, gone]);
    loop.stop();
    // The follow ends: the file has stopped growing, so a torn last line is taken now.
    const settled = await follower.settle();
    if (settled && !settled.notice) printNew();
    if (last) print({ summary: last.summary });
  } finally {
    loop.stop();
    follower.close();
  }
  return failing ? 1 : 0;
}
