/** Small Claude Code sessions written into a temporary folder, for the cache and the benchmark. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lines of one small session: `turns` user prompts each answered once. */
export function smallSession(k: number, turns = 2): string {
  const id = `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`;
  const lines: unknown[] = [];
  let parent: string | null = null;
  for (let t = 0; t < turns; t++) {
    const u = `${id}-u${t}`;
    const a = `${id}-a${t}`;
    const time = new Date(Date.UTC(2026, 0, 1) + k * 60_000 + t * 1000).toISOString();
    lines.push({ type: 'user', sessionId: id, cwd: `/work/project-${k % 7}`, gitBranch: 'main', timestamp: time, uuid: u, parentUuid: parent, isSidechain: false, message: { role: 'user', content: `prompt ${t} of session ${k}: list the files` } });
    lines.push({ type: 'assistant', sessionId: id, cwd: `/work/project-${k % 7}`, timestamp: time, uuid: a, parentUuid: u, isSidechain: false, message: { id: `msg_${k}_${t}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: `answer ${t} to session ${k}` }] } });
    parent = a;
  }
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** `count` small sessions under `dir`, in project folders of 50; returns their paths. */
export function writeSmallSessions(dir: string, count: number): string[] {
  const paths: string[] = [];
  for (let k = 0; k < count; k++) {
    const folder = join(dir, `-work-project-${Math.floor(k / 50)}`);
    if (k % 50 === 0) mkdirSync(folder, { recursive: true });
    const path = join(folder, `session-${k}.jsonl`);
    writeFileSync(path, smallSession(k));
    paths.push(path);
  }
  return paths;
}
