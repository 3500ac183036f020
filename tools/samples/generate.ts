/**
 * Writes sample sessions for Session Inspector (`npm run generate`, which runs this file with tsx).
 *
 *   npm run generate -- --out DIR [--messages N] [--seed S] [--legacy] [--name STEM]
 *       one generated session: DIR/STEM.sidecar.jsonl and DIR/STEM.session.json. STEM defaults to
 *       "session" ("legacy" with --legacy: gate off, long tool outputs capped in history).
 *   npm run generate -- --out DIR --broken [--seed S]
 *       one deliberately broken sample per integrity finding code (SPEC §5.6), named after the code,
 *       and DIR/manifest.json saying which file should produce which finding.
 *   npm run generate -- --out DIR --all [--seed S]
 *       the committed set: session.*, legacy.* and broken/.
 *   npm run generate -- --out DIR --size SIZE [--seed S] [--name STEM]
 *       one large session for benchmarks (scaleGenerator.ts), streamed to disk with bounded memory:
 *       DIR/STEM.sidecar.jsonl of about SIZE bytes (1GiB, 512MiB, 300MB, plain bytes; 1MiB to 8GiB)
 *       and DIR/STEM.manifest.json (huge outputs, the planted needle's hidden count). STEM defaults
 *       to "large". No snapshot: the sidecar alone is the whole session.
 *
 * To regenerate the committed samples after changing the generator (a test fails until you do):
 *
 *   npm run generate -- --out samples --all
 *
 * It leaves samples/demo.sidecar.jsonl (SPEC §9's hand-written example) alone. Output is a pure
 * function of the arguments: the same seed always gives byte-identical files. Exit status 2 on a
 * usage error.
 */
import { runGenerate } from './generateCli';

process.exitCode = runGenerate(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
