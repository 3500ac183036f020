/**
 * zod 4 compiles object parsers with `new Function` unless told not to, and probes for it once by
 * trying. Under the page's CSP (`script-src 'self'`, no `unsafe-eval`) the probe throws, zod falls
 * back, but the browser still reports a `script-src` eval violation on every load: noise that would
 * hide a real attack in the reports. Jitless, zod never probes.
 *
 * Invariant: this module is evaluated before any schema parses. main.tsx imports it first, and ES
 * modules run in import order; zod reads the setting at each schema's first parse.
 */
import { z } from 'zod';

z.config({ jitless: true });
