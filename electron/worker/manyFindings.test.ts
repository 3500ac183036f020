/**
 * A `check` reply stays bounded however many findings a file has: a file of 130,000
 * garbage lines gave `internal_error` (the findings were spread into push and overflowed the
 * stack); now the reply lists MAX_REPLY_FINDINGS of them and counts the rest.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_REPLY_FINDINGS, parseReply } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { MANY, writeGarbageSidecar, writeManyMessageSnapshot } from '../../tools/testing/manyLines';
import { SessionService } from './service';

const tmp = tempDir('session-inspector-many-findings-');
afterAll(() => tmp.cleanup());

const services: SessionService[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.close();
});

async function opened(paths: string[]): Promise<SessionService> {
  const s = new SessionService();
  services.push(s);
  const reply = await s.open({ paths, generation: 1 });
  if (!reply.ok) throw new Error(`open failed: ${reply.error.code}: ${reply.error.message}`);
  return s;
}

describe('many findings through the worker', () => {
  it('130,000 garbage lines: check answers the first MAX_REPLY_FINDINGS findings and counts the rest, by code', async () => {
    const s = await opened([writeGarbageSidecar(tmp.path('garbage.sidecar.jsonl'))]);
    const reply = parseReply('check', s.handle('check', {}));
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    const report = reply.value;
    expect(report.findings).toHaveLength(MAX_REPLY_FINDINGS);
    expect(report.findings_omitted).toBe(MANY - MAX_REPLY_FINDINGS);
    expect(report.findings_by_code).toEqual({ malformed_line: MANY });
    expect(report.summary.errors).toBe(MANY);
    // The first ones, in line order: the garbage starts at line 3.
    expect(report.findings.map((f) => f.line)).toEqual(Array.from({ length: MAX_REPLY_FINDINGS }, (_, k) => k + 3));
    expect(s.info?.load_findings).toBe(MANY);
  });

  it('a report with few findings is sent whole, without the counts', async () => {
    const s = await opened([writeGarbageSidecar(tmp.path('few.sidecar.jsonl'), 3)]);
    const reply = s.handle('check', {});
    if (!reply.ok) throw new Error(reply.error.message);
    expect(reply.value.findings).toHaveLength(3);
    expect(reply.value).not.toHaveProperty('findings_omitted');
    expect(reply.value).not.toHaveProperty('findings_by_code');
  });

  it('a snapshot of 130,000 messages opens and checks; 130,000 invalid ones are counted', async () => {
    const good = await opened([writeManyMessageSnapshot(tmp.path('many.session.json'))]);
    expect(good.info?.messages).toBe(MANY);
    const clean = good.handle('check', {});
    if (!clean.ok) throw new Error(clean.error.message);
    expect(clean.value.findings).toEqual([]);

    const bad = await opened([writeManyMessageSnapshot(tmp.path('invalid.session.json'), MANY, true)]);
    const reply = parseReply('check', bad.handle('check', {}));
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    expect(reply.value.findings).toHaveLength(MAX_REPLY_FINDINGS);
    expect(reply.value.findings_by_code).toEqual({ malformed_line: MANY });
    expect(reply.value.findings_omitted).toBe(MANY - MAX_REPLY_FINDINGS);
  });
});
