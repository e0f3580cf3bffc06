import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, parseDuration, parseSourceSettings, UsageError } from '../src/config.js';

describe('the opt-out file', () => {
  const dirs: string[] = [];
  const tempDir = (): string => (dirs.push(mkdtempSync(join(tmpdir(), 'veronikai-optout-'))), dirs.at(-1)!);
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is validated at start through the configuration', () => {
    const dir = tempDir();
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify([{ match: 'host:a.example', mode: 'hidden', reason: 'r' }]));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[{"match": 1}]');
    expect(loadConfig({ dataDir: dir }, { VERONIKAI_OPT_OUT_FILE: good }).optOutFile).toBe(good);
    expect(() => loadConfig({ dataDir: dir }, { VERONIKAI_OPT_OUT_FILE: bad })).toThrow(UsageError);
    expect(() => loadConfig({ dataDir: dir, optOutFile: join(dir, 'missing.json') }, {})).toThrow(/cannot be read/);
  });

  it('takes a BOM, and refuses an unknown key or a wildcard over a public suffix, naming the setting', () => {
    const dir = tempDir();
    const write = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
    const bom = write('bom.json', '\ufeff' + JSON.stringify([{ match: 'host:a.example', mode: 'hidden' }]));
    expect(loadConfig({ dataDir: dir }, { VERONIKAI_OPT_OUT_FILE: bom }).optOutFile).toBe(bom);
    const unknown = write('unknown.json', JSON.stringify([{ match: 'host:a.example', mode: 'hidden', why: 'typo' }]));
    expect(() => loadConfig({ dataDir: dir }, { VERONIKAI_OPT_OUT_FILE: unknown })).toThrow(/VERONIKAI_OPT_OUT_FILE.*unknown key "why"/);
    const suffix = write('suffix.json', JSON.stringify([{ match: 'host:*.com', mode: 'hidden' }]));
    expect(() => loadConfig({ dataDir: dir }, { VERONIKAI_OPT_OUT_FILE: suffix })).toThrow(
      /VERONIKAI_OPT_OUT_FILE.*whole public suffix "com"/,
    );
  });
});

describe('per-source settings', () => {
  it('reads switches, budgets and pacing from the environment and flags', () => {
    const s = parseSourceSettings(
      { disableSource: ['neuronto'], maxPages: ['smithery=5'], pageDelay: ['*=0'] },
      {
        VERONIKAI_SOURCES_DISABLED: 'smithery, hf-spaces',
        VERONIKAI_SOURCES_TERMS_FORBID: 'a2a-registry',
        VERONIKAI_SOURCE_PAGE_DELAY: 'neuronto=2s,hf-spaces=250ms',
      },
    );
    expect(s).toEqual({
      disabled: ['smithery', 'hf-spaces', 'neuronto'],
      termsForbidden: ['a2a-registry'],
      maxPages: { smithery: 5 },
      pageDelayMs: { neuronto: 2000, 'hf-spaces': 250, '*': 0 },
    });
    expect(() => parseSourceSettings({ maxPages: ['smithery=0'] }, {})).toThrow(/whole number/);
    expect(() => parseSourceSettings({ pageDelay: ['smithery=fast'] }, {})).toThrow(/duration such as/);
    expect(() => parseSourceSettings({ disableSource: ['smithry'] }, {})).toThrow(/unknown source "smithry"/);
    expect(() => parseSourceSettings({ maxPages: ['smithry=3'] }, {})).toThrow(/unknown source "smithry"/);
    expect(parseSourceSettings({ maxPages: ['*=*'] }, {}).maxPages).toEqual({ '*': Number.POSITIVE_INFINITY });
  });
});

describe('configuration', () => {
  it('reads a setting from its flag, else its variable, else its default', () => {
    expect(loadConfig({}, {}).apiPort).toBe(8787);
    expect(loadConfig({}, { VERONIKAI_PORT: '9000' }).apiPort).toBe(9000);
    expect(loadConfig({ port: '9001' }, { VERONIKAI_PORT: '9000' }).apiPort).toBe(9001);
    expect(loadConfig({}, { VERONIKAI_DAILY_BUDGET: '25' }).budget).toBe(25);
    expect(() => loadConfig({}, { VERONIKAI_SAMPLE_SIZE: 'many' })).toThrow(/VERONIKAI_SAMPLE_SIZE/);
  });

  it('checks source names once, for every setting that names a source', () => {
    expect(() => loadConfig({ sourceUrl: ['mcp-registri=http://127.0.0.1:1'] }, {})).toThrow(/unknown source "mcp-registri"/);
    expect(() => loadConfig({}, { VERONIKAI_SOURCE_URLS: 'nope=http://127.0.0.1:1' })).toThrow(/unknown source "nope"/);
    expect(() => loadConfig({}, { VERONIKAI_SOURCES_TERMS_FORBID: 'nope' })).toThrow(/unknown source "nope"/);
  });

  it('refuses credentials inside a configured URL, pointing at the settings for them', () => {
    expect(() => loadConfig({ warehouse: 'http://admin:secret@127.0.0.1:8123' }, {})).toThrow(/VERONIKAI_CLICKHOUSE_PASSWORD/);
    expect(() => loadConfig({ sourceUrl: ['mcp-registry=http://admin:TOPSECRET@127.0.0.1:1/'] }, {})).toThrow(/must not carry credentials/);
    const c = loadConfig({ warehouse: 'http://127.0.0.1:8123', clickhouseUser: 'reader' }, { VERONIKAI_CLICKHOUSE_PASSWORD: 'pw' });
    expect(c.warehouse).toEqual({
      kind: 'server',
      url: 'http://127.0.0.1:8123',
      database: 'veronikai',
      username: 'reader',
      password: 'pw',
    });
  });

  it('takes the public URL from --public-url or VERONIKAI_PUBLIC_URL, as an http(s) base URL', () => {
    expect(loadConfig({}, {}).publicUrl).toBeNull();
    expect(loadConfig({}, { VERONIKAI_PUBLIC_URL: 'https://index.example/' }).publicUrl).toBe('https://index.example');
    expect(loadConfig({ publicUrl: 'https://index.example/veronikai/' }, { VERONIKAI_PUBLIC_URL: 'https://other.example' }).publicUrl).toBe(
      'https://index.example/veronikai',
    );
    for (const bad of [
      'index.example',
      'ftp://index.example',
      'https://u:p@index.example',
      'https://index.example/?x=1',
      'https://index.example/#top',
    ]) {
      expect(() => loadConfig({ publicUrl: bad }, {}), bad).toThrow(UsageError);
      expect(() => loadConfig({ publicUrl: bad }, {}), bad).toThrow(/public URL \(VERONIKAI_PUBLIC_URL \/ --public-url\)/);
    }
  });

  it('parses every duration one way, with a unit', () => {
    expect(parseDuration('250ms', 'x')).toBe(250);
    expect(parseDuration('2s', 'x')).toBe(2000);
    expect(parseDuration('24h', 'x')).toBe(86_400_000);
    expect(parseDuration('7d', 'x')).toBe(7 * 86_400_000);
    expect(parseDuration('0', 'x', { min: 0 })).toBe(0);
    expect(() => parseDuration('5', 'x')).toThrow(/duration such as/);
    expect(() => parseDuration('30d', '--every')).toThrow(/--every must be between/);
    expect(() => parseDuration('11s', '--timeout', { max: 10_000 })).toThrow(/between/);
  });
});
