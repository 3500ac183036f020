/** `log` (docs/worker.md): the live reduction log in log order, as the log table shows it. */
import { stubStatedHiddenBytes } from '../../../shared/index';
import { ok } from '../replies';
import type { Handler } from './handler';

/** Each entry with its sidecar line when the log is the sidecar's, and the hidden bytes its stub states. */
export const log: Handler<'log'> = (_request, state) =>
  state.withSession('log', ({ session }) => {
    const lines = session.logLines;
    const entries = session.log.map((reduction, k) => {
      const line = lines?.[k];
      const stated = stubStatedHiddenBytes(reduction.stub);
      return { reduction, ...(line !== undefined ? { line } : {}), ...(stated !== undefined ? { stated_hidden_bytes: stated } : {}) };
    });
    return ok({ entries });
  });
