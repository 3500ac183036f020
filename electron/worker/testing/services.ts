/** Tests: SessionServices opened on files, each closed after its test. */
import { afterEach } from 'vitest';
import { SessionService } from '../service';

/** Registers the closing of every service it opens after each test; returns `opened(path)`. */
export function openedServices(): (path: string) => Promise<SessionService> {
  const services: SessionService[] = [];
  afterEach(() => {
    for (const s of services.splice(0)) s.close();
  });
  return async (path) => {
    const s = new SessionService();
    services.push(s);
    const reply = await s.open({ paths: [path], generation: 1 });
    if (!reply.ok) throw new Error(`open failed: ${reply.error.message}`);
    return s;
  };
}
