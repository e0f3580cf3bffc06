import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkPluginDirectory,
  nodePluginIo,
  RootResolver,
  readPluginPackage,
  type PluginIo,
} from '../../src/runtime/usecases/plugin-package.js';
import { PLUGIN_FIXTURES, checkOne, outcomes } from '../conformance/plugin/helpers.js';

const MANIFEST = '{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"linked"}';
const MCP = (servers: object): string =>
  JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json', mcpServers: servers });
const SKILL = (name: string): string => `---\nname: ${name}\ndescription: A linked skill.\n---\n`;

const bases: string[] = [];
afterAll(() => bases.forEach((b) => rmSync(b, { recursive: true, force: true })));

/** A temp dir holding `pkg/` (the package) and `outside/` (never to be read). */
function layout(files: Record<string, string>, links: Record<string, string> = {}): { root: string; base: string } {
  const base = mkdtempSync(join(tmpdir(), 'veronikai-plugin-rt-'));
  bases.push(base);
  const root = join(base, 'pkg');
  mkdirSync(root);
  mkdirSync(join(base, 'outside/x'), { recursive: true });
  writeFileSync(join(base, 'outside/plugin.json'), MANIFEST);
  writeFileSync(join(base, 'outside/mcp.json'), MCP({}));
  writeFileSync(join(base, 'outside/x/SKILL.md'), SKILL('x'));
  writeFileSync(join(base, 'outside/server'), '#!/bin/sh\n');
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    if (p.endsWith('/')) mkdirSync(join(root, p), { recursive: true });
    else writeFileSync(join(root, p), text);
  }
  for (const [p, target] of Object.entries(links)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    symlinkSync(target, join(root, p));
  }
  return { root, base };
}

/** An io that records every path it is asked about. */
function recording(): { io: PluginIo; seen: string[] } {
  const seen: string[] = [];
  const wrap = <K extends keyof PluginIo>(k: K): PluginIo[K] =>
    ((p: string, ...rest: unknown[]) => {
      seen.push(p);
      return (nodePluginIo[k] as (...a: unknown[]) => unknown)(p, ...rest);
    }) as PluginIo[K];
  return {
    io: {
      realpath: wrap('realpath'),
      statKind: wrap('statKind'),
      lstatKind: wrap('lstatKind'),
      readlink: wrap('readlink'),
      list: wrap('list'),
      read: wrap('read'),
    },
    seen,
  };
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root + sep);
}

describe('symbolic links that escape the root', () => {
  const cases: Array<{ name: string; files: Record<string, string>; links: Record<string, string>; rule: string; location: string }> = [
    {
      name: 'manifest (relative)',
      files: {},
      links: { 'plugin.json': '../outside/plugin.json' },
      rule: 'PLG-002',
      location: 'plugin.json',
    },
    { name: 'manifest (absolute)', files: {}, links: { 'plugin.json': '/etc/hostname' }, rule: 'PLG-002', location: 'plugin.json' },
    { name: 'skills/', files: { 'plugin.json': MANIFEST }, links: { skills: '../outside' }, rule: 'PLG-002', location: 'skills' },
    {
      name: 'a skill directory',
      files: { 'plugin.json': MANIFEST, 'skills/': '' },
      links: { 'skills/x': '../../outside/x' },
      rule: 'PLG-002',
      location: 'skills/x',
    },
    {
      name: 'a skill file',
      files: { 'plugin.json': MANIFEST, 'skills/x/': '' },
      links: { 'skills/x/SKILL.md': '../../../outside/x/SKILL.md' },
      rule: 'PLG-002',
      location: 'skills/x/SKILL.md',
    },
    {
      name: 'mcp.json',
      files: { 'plugin.json': MANIFEST },
      links: { 'mcp.json': '../outside/mcp.json' },
      rule: 'PLG-002',
      location: 'mcp.json',
    },
    {
      name: 'command',
      files: { 'plugin.json': MANIFEST, 'mcp.json': MCP({ s: { type: 'stdio', command: './bin/server' } }) },
      links: { bin: '../outside' },
      rule: 'PLG-018',
      location: 'mcp.json#/mcpServers/s/command',
    },
    {
      name: 'cwd',
      files: { 'plugin.json': MANIFEST, 'mcp.json': MCP({ s: { type: 'stdio', command: 'npx', cwd: './data' } }) },
      links: { data: '../outside' },
      rule: 'PLG-019',
      location: 'mcp.json#/mcpServers/s/cwd',
    },
    {
      name: 'cwd through ${PLUGIN_ROOT}',
      files: { 'plugin.json': MANIFEST, 'mcp.json': MCP({ s: { type: 'stdio', command: 'npx', cwd: '${PLUGIN_ROOT}/data/x' } }) },
      links: { data: '/tmp' },
      rule: 'PLG-019',
      location: 'mcp.json#/mcpServers/s/cwd',
    },
  ];
  for (const c of cases) {
    it(`${c.name}: fails ${c.rule} only, and nothing outside is read`, () => {
      const { root } = layout(c.files, c.links);
      const rec = recording();
      const r = checkOne(root, { io: rec.io });
      expect(outcomes(r, 'fail')).toEqual([c.rule]);
      expect(r.findings.map((f) => f.location)).toEqual([c.location]);
      expect(r.findings[0]!.message).toMatch(/outside the plugin root/);
      const real = realpathSync(root);
      for (const p of rec.seen.slice(1)) expect(inside(real, p), p).toBe(true);
    });
  }
});

describe('links inside the root are followed with real .. semantics', () => {
  it('manifest, skills and a skill reached through in-root links', () => {
    const { root } = layout(
      { 'meta/plugin.json': MANIFEST, 'library/x/SKILL.md': SKILL('x'), 'library/y/SKILL.md': SKILL('y') },
      { 'plugin.json': 'meta/plugin.json', skills: 'library', 'library/z': 'y' },
    );
    const r = checkOne(root);
    expect(r.result).toBe('fail'); // library/z is a link named z whose SKILL.md says y
    expect(r.findings.map((f) => f.location)).toEqual(['skills/z/SKILL.md#/name']);
    expect(r.components.skills).toEqual({ state: 'invalid', discovered: 3, valid: 2 });
  });

  it('a path whose text stays inside but whose real .. leaves the root fails', () => {
    // deep/a/b/l -> ../../.. is the root; ./deep/a/b/l/../x is lexically deep/a/b/x, really the root's parent.
    const { root } = layout(
      { 'plugin.json': MANIFEST, 'deep/a/b/': '', 'mcp.json': MCP({ s: { type: 'stdio', command: './deep/a/b/l/../server' } }) },
      { 'deep/a/b/l': '../../..' },
    );
    const r = checkOne(root);
    expect(outcomes(r, 'fail')).toEqual(['PLG-018']);
  });

  it('a path whose text leaves but whose real .. stays inside passes', () => {
    // l -> d1/d2/d3; ./l/../../tool is lexically ../tool, really d1/tool.
    const { root } = layout(
      {
        'plugin.json': MANIFEST,
        'd1/d2/d3/': '',
        'd1/tool': '#!/bin/sh\n',
        'mcp.json': MCP({ s: { type: 'stdio', command: './l/../../tool', cwd: './l/..' } }),
      },
      { l: 'd1/d2/d3' },
    );
    const r = checkOne(root);
    expect(r.result).toBe('pass');
    const snap = readPluginPackage(root);
    expect(snap.paths!['l/../../tool']).toEqual({ status: 'inside', kind: 'file', real: 'd1/tool' });
    expect(snap.paths!['l/..']).toEqual({ status: 'inside', kind: 'directory', real: 'd1/d2' });
  });

  it('broken and looping links fail; a missing tail is not judged', () => {
    const { root } = layout(
      {
        'plugin.json': MANIFEST,
        'mcp.json': MCP({
          a: { type: 'stdio', command: './bin/gone' },
          b: { type: 'stdio', command: './loop1' },
          c: { type: 'stdio', command: './not/built/yet' },
        }),
      },
      { 'bin/gone': 'nowhere', loop1: 'loop2', loop2: 'loop1' },
    );
    const r = checkOne(root);
    expect(r.findings.map((f) => [f.ruleId, f.pointer])).toEqual([
      ['PLG-018', '/mcpServers/a/command'],
      ['PLG-018', '/mcpServers/b/command'],
    ]);
    expect(r.findings[0]!.message).toMatch(/broken symbolic link/);
    const dangling = layout({}, { 'mcp.json': 'missing.json', 'plugin.json': 'also-missing.json' });
    const d = checkOne(dangling.root);
    expect(outcomes(d, 'fail')).toEqual(['PLG-002']);
  });

  it('the resolver never steps outside: .. from the root is an escape before any lstat', () => {
    const { root } = layout({ 'plugin.json': MANIFEST });
    const rec = recording();
    const real = realpathSync(root);
    const res = new RootResolver(real, rec.io);
    expect(res.resolve('../outside/plugin.json')).toMatchObject({ status: 'escape' });
    expect(res.resolve('a/../../x')).toMatchObject({ status: 'escape' });
    expect(res.resolve('missing/../plugin.json')).toEqual({ status: 'inside', kind: 'file', real: 'plugin.json' });
    for (const p of rec.seen) expect(inside(real, p), p).toBe(true);
  });
});

describe('bounds and odd files', () => {
  it('a file over the byte bound is unable to complete (exit 2), never a failure', () => {
    const { root } = layout({ 'plugin.json': MANIFEST, 'mcp.json': MCP({}) + ' '.repeat(2000) });
    const r = checkOne(root, { limits: { maxFileBytes: 1000 } });
    expect(outcomes(r, 'unable-to-complete')).toEqual(['PLG-013']);
    expect(r.exitCode).toBe(2);
  });

  it('too many entries in skills/ is unable to complete', () => {
    const files: Record<string, string> = { 'plugin.json': MANIFEST };
    for (let i = 0; i < 5; i++) files[`skills/s${i}/SKILL.md`] = SKILL(`s${i}`);
    const { root } = layout(files);
    const r = checkOne(root, { limits: { maxSkillEntries: 3 } });
    expect(outcomes(r, 'unable-to-complete')).toEqual(['PLG-011']);
    expect(r.exitCode).toBe(2);
  });

  it('a FIFO as mcp.json is the wrong kind and is never opened', () => {
    const { root } = layout({ 'plugin.json': MANIFEST });
    try {
      execFileSync('mkfifo', [join(root, 'mcp.json')]);
    } catch {
      return; // no mkfifo here
    }
    const r = checkOne(root);
    expect(outcomes(r, 'fail')).toEqual(['PLG-010']);
  });

  it('refuses a target that is not a directory', () => {
    expect(() => checkPluginDirectory(join(PLUGIN_FIXTURES, 'minimal/plugin.json'))).toThrow(/not a directory/);
    expect(() => checkPluginDirectory(join(PLUGIN_FIXTURES, 'does-not-exist'))).toThrow(/cannot read/);
  });
});

describe('property: random packages never crash the checker and never read outside the root', () => {
  const names = fc.constantFrom('plugin.json', 'mcp.json', 'skills', 'SKILL.md', 'bin', 'data', 'x', 'y', 'a b', '..x');
  const linkTarget = fc.oneof(
    fc.constantFrom(
      '..',
      '../..',
      '../outside',
      '../outside/plugin.json',
      '/etc',
      '/tmp',
      '.',
      'x',
      'y',
      'skills',
      'loop',
      'missing',
      '../pkg/plugin.json',
    ),
    fc.array(fc.constantFrom('..', '.', 'x', 'y', 'skills', 'bin', 'data'), { minLength: 1, maxLength: 4 }).map((s) => s.join('/')),
  );
  const text = fc.oneof(
    fc.constant(MANIFEST),
    fc.constant(SKILL('x')),
    fc.constant('---\na: [\n---\n'),
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .record({
        type: fc.constantFrom('stdio', 'sse', 'streamable-http', 'x'),
        command: fc.constantFrom('./bin/x', 'npx', '../x', './..', './x/../..'),
        cwd: fc.constantFrom('./data', '${PLUGIN_DATA}', '${PLUGIN_ROOT}/..', './x/../../y', 'data'),
        url: fc.constantFrom('https://a.example/', 'http://127.1/'),
      })
      .map((s) => MCP({ s })),
  );
  const entry = fc.record({
    path: fc.array(names, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')),
    kind: fc.constantFrom('file', 'dir', 'link'),
    text,
    target: linkTarget,
  });

  it('holds for 60 random packages', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 14 }),
        fc.option(fc.constantFrom('PLG-002', 'PLG-012', 'PLG-019', 'PLG-020', 'PLG-021'), { nil: undefined }),
        (entries, rule) => {
          const base = mkdtempSync(join(tmpdir(), 'veronikai-plugin-prop-'));
          try {
            const root = join(base, 'pkg');
            mkdirSync(join(base, 'outside'), { recursive: true });
            writeFileSync(join(base, 'outside/plugin.json'), MANIFEST);
            mkdirSync(root);
            for (const e of entries) {
              const p = join(root, e.path);
              try {
                mkdirSync(join(p, '..'), { recursive: true });
                if (e.kind === 'dir') mkdirSync(p, { recursive: true });
                else if (e.kind === 'file') writeFileSync(p, e.text);
                else symlinkSync(e.target, p);
              } catch {
                // a path through a file or an existing entry: skip it
              }
            }
            const rec = recording();
            const r = checkPluginDirectory(root, { io: rec.io, rule });
            expect([0, 1, 2]).toContain(r.exitCode);
            const real = realpathSync(root);
            // The first call is the root's own stat; everything after stays inside its real path.
            for (const p of rec.seen.filter((q) => q !== root)) expect(inside(real, p), p).toBe(true);
          } finally {
            rmSync(base, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
