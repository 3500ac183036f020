/**
 * The provider-request export of the contract (shared/contract.ts puts its method in the one
 * table): `Export call…` in the app (SPEC §16, docs/export.md "Provider requests"). The worker
 * answers it from the open session, as `export --call N --as PROVIDER` prints it. Pure: no I/O.
 */
import { z } from 'zod';
import { SESSION_FORMATS } from './fileFormats';
import { PROVIDERS } from './export/providers';

const int = z.number().int().nonnegative();

/** Most UTF-8 bytes of a body the app takes in one reply; a larger one is `too_large` (export it with the CLI). */
export const MAX_EXPORT_CALL_BYTES = 64 * 1024 * 1024;

export const exportCallMethods = {
  /**
   * Call `call`'s input as `provider`'s request body (the provider the session's agent speaks
   * when absent), the originals with `expanded`. `request` is the body as JSON text (2-space
   * indented, what the download holds); `not_recorded`, `adjusted` and `notes` as `export --with-notes`.
   */
  exportCall: {
    params: z.object({ call: z.number().int().min(1), provider: z.enum(PROVIDERS).optional(), expanded: z.boolean().default(false) }),
    result: z.object({
      call: int,
      provider: z.enum(PROVIDERS),
      format: z.enum(SESSION_FORMATS),
      expanded: z.boolean(),
      request: z.string(),
      not_recorded: z.array(z.string()),
      adjusted: z.array(z.string()),
      /** `recorded`: the request as the file records it sent, exported as is (docs/export.md "Recorded requests"); else `converted`. */
      body: z.enum(['recorded', 'converted']),
      /** Where the body comes from (a recorded request exported as is, or why it was not), as `export --with-notes` lists them. */
      notes: z.array(z.string()),
      /** What a download is named: `call-<N>-<provider>[-expanded].json`. */
      filename: z.string(),
    }),
  },
} as const;
