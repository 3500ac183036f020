import { describe, expect, it } from 'vitest';
import { WORKER_SESSION_METHODS, parseParams } from '../../../shared/index';
import { handlers, parseRequest } from './index';

describe('the handler table', () => {
  it('has one handler for each session method of the contract, and nothing else', () => {
    expect(Object.keys(handlers).sort()).toEqual([...WORKER_SESSION_METHODS].sort());
    for (const method of WORKER_SESSION_METHODS) expect(typeof handlers[method]).toBe('function');
  });

  it('parses a request as the contract does: defaults filled in, invalid params refused with the same message', () => {
    const raw = { searchId: 's', query: 'needle' };
    expect(parseRequest('search', raw)).toEqual({ ok: true, method: 'search', params: { searchId: 's', query: 'needle', mode: 'substring', case_sensitive: true } });
    for (const [method, bad] of [['rows', { start: 5, end: 1 }], ['expand', { id: 7 }], ['verify', { ids: 'r1' }], ['search', {}]] as const) {
      const contract = parseParams(method, bad);
      expect(contract.ok).toBe(false);
      expect(parseRequest(method, bad)).toEqual(contract);
    }
    expect(parseRequest('log', undefined)).toEqual({ ok: true, method: 'log', params: {} });
  });
});
