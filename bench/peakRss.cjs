// Preloaded (`node -r bench/peakRss.cjs …`) into a command the policy group times: at exit, the
// process's peak RSS (VmHWM, KiB) on stderr after a marker, for bench/policy.ts to read.
'use strict';
// A preload runs in every thread of the process too (a pass's scan-ahead thread, a counting thread):
// only the main thread's exit is the process's, whose VmHWM is the figure.
if (require('node:worker_threads').isMainThread) process.on('exit', () => {
  try {
    const status = require('node:fs').readFileSync('/proc/self/status', 'utf8');
    const kib = /VmHWM:\s+(\d+)/.exec(status);
    if (kib) require('node:fs').writeSync(2, `\n@@peak-rss-kib ${kib[1]}\n`);
  } catch {
    // no /proc: no figure
  }
});
