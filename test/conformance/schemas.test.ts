import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMAS } from '../../src/conformance/index.js';
import { ROOT } from './helpers.js';

/** The vendored schemas are the pinned files, and the engine's required-field tables match them. */

const sha256 = (p: string) =>
  createHash('sha256')
    .update(readFileSync(join(ROOT, p)))
    .digest('hex');
const sources = readFileSync(join(ROOT, 'schemas', 'protocol', 'SOURCES.md'), 'utf8');

describe('vendored protocol schemas', () => {
  const rows = [...sources.matchAll(/^\| ([^|]+?) \| [^|]+ \| [^|]+ \| [^|]+ \| [0-9a-f]{40} \| [^|]+ \| ([0-9a-f]{64}) \|$/gm)];

  it('SOURCES.md lists every vendored file with a sha256 that matches', () => {
    expect(rows.length).toBe(3);
    for (const [, file, hash] of rows) expect(sha256(join('schemas', 'protocol', file!)), file).toBe(hash);
  });

  it('the engine names each pinned file with its sha256', () => {
    for (const s of Object.values(SCHEMAS)) {
      expect(sha256(s.file), s.file).toBe(s.sha256);
      expect(rows.some(([, file, hash]) => `schemas/protocol/${file}` === s.file && hash === s.sha256)).toBe(true);
    }
  });
});

const SHARED_SPECS = resolve(ROOT, '..', 'shared', 'specs');

describe.skipIf(!existsSync(join(SHARED_SPECS, 'mcp-registry')))(
  'MCP server.json schemas (referenced in ../shared/specs, not copied)',
  () => {
    it('have the sha256 that SOURCES.md records', () => {
      const refs = [...sources.matchAll(/^\| (mcp-registry\/[^ |]+) \| ([0-9a-f]{64}) \|$/gm)];
      expect(refs.length).toBe(6);
      for (const [, file, hash] of refs) {
        expect(
          createHash('sha256')
            .update(readFileSync(join(SHARED_SPECS, file!)))
            .digest('hex'),
          file,
        ).toBe(hash);
      }
    });
  },
);

type Table = ReadonlyArray<readonly [string, string]>;
const asMap = (t: Table) => Object.fromEntries([...t].sort(([a], [b]) => (a < b ? -1 : 1)));

function jsonSchemaTable(
  schema: {
    definitions: Record<
      string,
      { required?: string[]; properties: Record<string, { type?: string; $ref?: string; items?: { type?: string; $ref?: string } }> }
    >;
  },
  def: string,
) {
  const d = schema.definitions[def]!;
  const out: Record<string, string> = {};
  for (const name of d.required ?? []) {
    const p = d.properties[name]!;
    if (p.type === 'string') out[name] = 'string';
    else if (p.type === 'array') out[name] = p.items?.type === 'string' ? 'array<string>' : 'array<object>';
    else if (p.$ref || p.type === 'object') out[name] = 'object';
    else out[name] = `?${p.type}`;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe('required-field tables match the pinned JSON Schemas (0.2.5, 0.3.0)', () => {
  for (const family of ['0.2', '0.3'] as const) {
    const s = SCHEMAS[family];
    const schema = JSON.parse(readFileSync(join(ROOT, s.file), 'utf8'));
    it(`A2A ${s.version}`, () => {
      expect(asMap(s.card)).toEqual(jsonSchemaTable(schema, 'AgentCard'));
      expect(asMap(s.skill)).toEqual(jsonSchemaTable(schema, 'AgentSkill'));
      expect(asMap(s.provider)).toEqual(jsonSchemaTable(schema, 'AgentProvider'));
      expect(asMap(s.interfaces.fields)).toEqual(jsonSchemaTable(schema, 'AgentInterface'));
      expect(schema.definitions.AgentCard.properties[s.interfaces.key]).toBeDefined();
    });
  }
});

function protoTable(proto: string, message: string): Record<string, string> {
  const start = proto.indexOf(`message ${message} {`);
  expect(start, `message ${message}`).toBeGreaterThanOrEqual(0);
  let depth = 0;
  let end = start;
  for (let i = proto.indexOf('{', start); i < proto.length; i++) {
    if (proto[i] === '{') depth++;
    else if (proto[i] === '}' && --depth === 0) {
      end = i;
      break;
    }
  }
  const body = proto.slice(start, end);
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/^\s*(repeated\s+)?([\w.]+)\s+(\w+)\s*=\s*\d+\s*\[[^\]]*field_behavior\)\s*=\s*REQUIRED[^\]]*\];/gm)) {
    const [, repeated, type, snake] = m;
    const camel = snake!.replace(/_([a-z])/g, (_x, c: string) => c.toUpperCase());
    const scalar = type === 'string';
    out[camel] = repeated ? (scalar ? 'array<string>' : 'array<object>') : scalar ? 'string' : 'object';
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe('required-field tables match the pinned 1.0.1 proto (field_behavior = REQUIRED, camelCase JSON names)', () => {
  const s = SCHEMAS['1.0'];
  const proto = readFileSync(join(ROOT, s.file), 'utf8');
  it('A2A 1.0.1', () => {
    expect(asMap(s.card)).toEqual(protoTable(proto, 'AgentCard'));
    expect(asMap(s.skill)).toEqual(protoTable(proto, 'AgentSkill'));
    expect(asMap(s.provider)).toEqual(protoTable(proto, 'AgentProvider'));
    expect(asMap(s.interfaces.fields)).toEqual(protoTable(proto, 'AgentInterface'));
  });
});
