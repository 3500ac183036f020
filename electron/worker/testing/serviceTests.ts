/** Tests: SessionServices made and opened for a test file, each closed after its test, and sidecars written for them. */
import { afterAll, afterEach } from 'vitest';
import type { ChatMessage, ParsedParams, Reduction } from '../../../shared/index';
import { methods } from '../../../shared/index';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../../tools/testing/files';
import { SessionService } from '../service';

/** The value of an ok reply; fails the test with the error otherwise. */
export function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

/** Params as the contract parses them (defaults filled in). */
export function params<M extends keyof typeof methods>(method: M, raw: unknown): ParsedParams<M> {
  return methods[method].params.parse(raw) as ParsedParams<M>;
}

/**
 * Registers the closing of every service made after each test, and the removal of the temporary
 * folder after the file; returns how to make a service, open one, and write a sidecar.
 */
export function serviceFixture(prefix: string) {
  const tmp = tempDir(prefix);
  afterAll(() => tmp.cleanup());
  const services: SessionService[] = [];
  afterEach(() => {
    for (const s of services.splice(0)) s.close();
  });
  const service = (): SessionService => {
    const s = new SessionService();
    services.push(s);
    return s;
  };
  /** A service with `paths` open; fails the test when the open does. */
  const opened = async (paths: string[], generation = 1): Promise<SessionService> => {
    const s = service();
    const reply = await s.open({ paths, generation });
    if (!reply.ok) throw new Error(`open failed: ${reply.error.code}: ${reply.error.message}`);
    return s;
  };
  let fileCount = 0;
  const sidecar = (view: ChatMessage[], log: Reduction[], header = makeHeader()): string =>
    writeSidecar(tmp.path(`s${++fileCount}.sidecar.jsonl`), [header, ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
  return { tmp, service, opened, sidecar };
}
