import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceState } from './types.js';

export interface SourceStateStore {
  load(source: string): Promise<SourceState>;
  save(source: string, state: SourceState): Promise<void>;
}

/** Source state as small JSON files in the data directory, written atomically. */
export class FileSourceStateStore implements SourceStateStore {
  constructor(private readonly dir: string) {}

  async load(source: string): Promise<SourceState> {
    try {
      return JSON.parse(await readFile(this.path(source), 'utf8')) as SourceState;
    } catch {
      return {};
    }
  }

  async save(source: string, state: SourceState): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = `${this.path(source)}.tmp`;
    await writeFile(tmp, JSON.stringify(state, null, 2));
    await rename(tmp, this.path(source));
  }

  private path(source: string): string {
    return join(this.dir, `${source.replace(/[^a-z0-9-]/gi, '_')}.json`);
  }
}

export class MemorySourceStateStore implements SourceStateStore {
  readonly states = new Map<string, SourceState>();
  async load(source: string): Promise<SourceState> {
    return structuredClone(this.states.get(source) ?? {});
  }
  async save(source: string, state: SourceState): Promise<void> {
    this.states.set(source, structuredClone(state));
  }
}
