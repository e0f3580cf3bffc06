import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WarehouseError } from '../../src/warehouse/errors.js';
import { ALLOWED_TABLE_FUNCTIONS, classifiedFunctions, functionRefusal } from '../../src/warehouse/guard/functions.js';
import { publicSchema } from '../../src/warehouse/guard/schema.js';
import { EmbeddedRawReader } from '../../src/warehouse/raw-reader.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow } from '../helpers/warehouse-rows.js';

// The guard on the real engine: a public reader (the public ClickHouse interface's session) and
// an owner's reader beside the writer on one data directory. Every form of every forbidden
// statement must be refused before it runs, however it is spelled.

/** The characters the engine's lexer skips as whitespace besides ASCII's. */
const UNICODE_SPACES = [
  '\u0085',
  '\u00a0',
  '\u180e',
  ...Array.from({ length: 14 }, (_, i) => String.fromCharCode(0x2000 + i)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u2060',
  '\u3000',
  '\ufeff',
];

async function text(reader: EmbeddedRawReader, sql: string, params: Record<string, string> = {}): Promise<string> {
  let out = '';
  for await (const chunk of reader.stream(sql, { format: 'TSV', params })) out += Buffer.from(chunk.bytes).toString('utf8');
  return out;
}

async function refusal(p: Promise<unknown>): Promise<WarehouseError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WarehouseError);
    return err as WarehouseError;
  }
  throw new Error('expected the statement to be refused, but it ran');
}

describe('the statement guard on the engine', () => {
  let t: TestWarehouse;
  let publicReader: EmbeddedRawReader;
  let ownerReader: EmbeddedRawReader;
  let secretFile: string;
  let outDir: string;

  beforeAll(async () => {
    t = await withWarehouse('guard');
    const agent = (key: string, optOut: '' | 'hidden') =>
      agentRow({
        agent_id: `id-${key}`,
        agent_key: `https://${key}.example/mcp`,
        name: key,
        endpoint_url: '',
        opt_out: optOut,
        opt_out_reason: optOut ? 'the owner asked privately' : '',
      });
    await t.wh.insert('agents', [agent('shown', ''), agent('hidden', 'hidden')]);
    secretFile = join(t.dir, 'signing.key');
    writeFileSync(secretFile, 'THE-SECRET-KEY\n', { mode: 0o600 });
    outDir = mkdtempSync(join(tmpdir(), 'veronikai-guard-out-'));
    publicReader = new EmbeddedRawReader(join(t.dir, 'warehouse'), { schema: publicSchema(), timeoutMs: 5_000 });
    ownerReader = new EmbeddedRawReader(join(t.dir, 'warehouse'), { timeoutMs: 5_000 });
  });

  afterAll(async () => {
    await publicReader?.close();
    await ownerReader?.close();
    await t?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('serves the public schema: hidden agents left out, the opt-out reason not a column, unqualified names in it', async () => {
    expect(await text(publicReader, 'SELECT name FROM agents ORDER BY name')).toBe('shown\n');
    expect((await refusal(text(publicReader, 'SELECT opt_out_reason FROM agents'))).kind).toBe('unknown_column');
    expect(await text(publicReader, "SELECT name FROM system.tables WHERE name IN ('agents', 'webhook_deliveries')")).toBe('agents\n');
    expect(await text(publicReader, 'SELECT count() > 0 FROM system.columns')).toBe('1\n');
    expect(await text(publicReader, 'SELECT name FROM system.databases')).toBe('veronikai_public\n');
    // The owner keeps the whole schema.
    expect(await text(ownerReader, 'SELECT name FROM agents FINAL ORDER BY name')).toBe('hidden\nshown\n');
  });

  it.each([
    ['an operator table', 'SELECT * FROM default.webhook_deliveries'],
    ['dispute reasons', 'SELECT reason FROM default.corrections'],
    ['the hidden agent through the raw table', "SELECT opt_out_reason FROM default.agents WHERE opt_out = 'hidden'"],
    ['a raw table in a scalar subquery', 'SELECT (SELECT count() FROM default.agents)'],
    ['a raw table behind IN', "SELECT 'x' IN default.agents"],
    ['other sessions', 'SELECT query FROM system.processes'],
    ['the server configuration', 'SELECT * FROM system.server_settings'],
    ['a database listing beyond the public one', 'SHOW TABLES FROM default'],
    ['another database', 'SHOW DATABASES'],
    ['tables by pattern', "SELECT * FROM merge('default', '.*')"],
    ['a description of a raw table', 'DESCRIBE default.webhook_deliveries'],
  ])('refuses %s on the public schema', async (_what, sql) => {
    expect((await refusal(text(publicReader, sql))).kind).toBe('refused');
  });

  it.each([
    ['the scalar file()', (f: string) => `SELECT file('${f}')`],
    ['file() behind U+200B', (f: string) => `SELECT file\u200b('${f}')`],
    ['file() as a table function', (f: string) => `SELECT * FROM file('${f}', 'LineAsString')`],
    ['file() in a CTE', (f: string) => `WITH (SELECT file('${f}')) AS s SELECT s`],
    ['file() in EXPLAIN', (f: string) => `EXPLAIN QUERY TREE SELECT file('${f}')`],
    ['file() in DESCRIBE', (f: string) => `DESCRIBE (SELECT file('${f}'))`],
    ['url()', () => "SELECT * FROM url('http://127.0.0.1:1/x', 'LineAsString')"],
    ['settings', () => 'SELECT 1 SETTINGS readonly = 0'],
    ['a second statement', () => 'SELECT 1; SELECT 2'],
    ['a write', () => 'DROP TABLE agents'],
    ['an introspection function', () => 'SELECT addressToSymbol(toUInt64(1))'],
  ])('refuses %s on both schemas, and the secret never comes back', async (_what, form) => {
    for (const reader of [publicReader, ownerReader]) {
      const err = await refusal(text(reader, form(secretFile)));
      expect(err.message).not.toContain('THE-SECRET-KEY');
    }
  });

  it('refuses INTO OUTFILE in every spelling and writes no file', async () => {
    const target = join(outDir, 'out.txt');
    for (const gap of [' ', '\u2060', '\u00a0', ' /* x */ ', '\n-- c\n']) {
      const err = await refusal(text(publicReader, `SELECT 1 INTO${gap}OUTFILE '${target}' APPEND`));
      expect(err.kind).toBe('refused');
      expect(existsSync(target)).toBe(false);
    }
  });

  it('runs what was checked: the FORMAT clause, parameters, CTEs, aggregate combinators and lambdas', async () => {
    expect(
      await text(publicReader, 'WITH t AS (SELECT {n:UInt8} AS a) SELECT arrayMap(x -> x + a, [1]) AS m FROM t FORMAT JSONEachRow', {
        n: '3',
      }),
    ).toBe('{"m":[4]}\n');
    expect(
      await text(
        publicReader,
        'SELECT countIf(number > 1) AS c, uniqExactMerge(s) AS u FROM (SELECT number, uniqExactState(number) AS s FROM numbers(4) GROUP BY number)',
      ),
    ).toBe('2\t4\n');
    expect(await text(publicReader, 'EXISTS TABLE agents')).toBe('1\n');
    expect(await text(publicReader, 'SELECT version() LIKE {v:String}', { v: '%.%' })).toBe('1\n');
  });

  it(`refuses ${10_000} generated forms of forbidden statements, and runs their harmless twins`, async () => {
    const space = fc.constantFrom(' ', '\t', '\n', '  ', '/**/', '/* x */', '--c\n', ...UNICODE_SPACES);
    const gap = fc.array(space, { minLength: 1, maxLength: 3 }).map((a) => a.join(''));
    const cased = (word: string) =>
      fc.constantFrom(word, word.toUpperCase(), word.toLowerCase(), word[0]!.toUpperCase() + word.slice(1).toLowerCase());
    const quoted = (name: string) => fc.oneof(cased(name), fc.constant(`\`${name}\``), fc.constant(`"${name}"`));
    const target = join(outDir, 'generated.txt');
    const forms = fc.oneof(
      fc.tuple(gap, gap, quoted('file')).map(([a, b, f]) => [`SELECT${a}${f}${b}('${secretFile}')`, `SELECT${a}upper${b}('x')`]),
      fc
        .tuple(gap, gap, gap, cased('into'), cased('outfile'))
        .map(([a, b, c, i, o]) => [`SELECT${a}1${b}${i}${c}${o} '${target}' APPEND`, `SELECT${a}1${b}AS${c}x`]),
      fc
        .tuple(gap, gap, fc.constantFrom('url', 's3', 'remote', 'mysql', 'executable', 'file', 'merge', 'loop').chain(quoted))
        .map(([a, b, f]) => [`SELECT${a}*${b}FROM ${f}('http://127.0.0.1:1/x', 'CSV')`, `SELECT${a}*${b}FROM numbers(1)`]),
      fc
        .tuple(gap, gap, quoted('default'), fc.constantFrom('webhook_deliveries', 'corrections', 'agents').chain(quoted))
        .map(([a, b, d, n]) => [`SELECT${a}count()${b}FROM ${d}.${n}`, `SELECT${a}count()${b}FROM veronikai_public.agents`]),
      fc.tuple(gap, gap, cased('settings')).map(([a, b, s]) => [`SELECT${a}1${b}${s} max_threads = 1`, `SELECT${a}1${b}`]),
      fc.tuple(gap, gap).map(([a, b]) => [`SELECT${a}1;${b}DROP TABLE agents`, `SELECT${a}1;${b}`]),
      fc.tuple(gap, gap, quoted('processes')).map(([a, b, p]) => [`SELECT${a}*${b}FROM system.${p}`, `SELECT${a}*${b}FROM system.one`]),
      fc
        .tuple(gap, gap, quoted('file'))
        .map(([a, b, f]) => [
          `WITH${a}x AS (SELECT ${f}('${secretFile}'))${b}SELECT * FROM x`,
          `WITH${a}x AS (SELECT 1)${b}SELECT * FROM x`,
        ]),
    );
    const samples = fc.sample(forms, { numRuns: 10_000, seed: 20261202 });
    let harmlessRun = 0;
    for (const [i, [forbidden, harmless]] of samples.entries()) {
      let ran = false;
      try {
        await text(publicReader, forbidden!);
        ran = true;
      } catch (err) {
        expect(err, forbidden).toBeInstanceOf(WarehouseError);
      }
      expect(ran, `ran: ${JSON.stringify(forbidden)}`).toBe(false);
      // Every tenth twin runs, so the forms are known to be real SQL to the engine, not noise it rejects.
      if (i % 10 === 0) {
        await text(publicReader, harmless!);
        harmlessRun++;
      }
    }
    expect(samples).toHaveLength(10_000);
    expect(harmlessRun).toBe(1_000);
    expect(existsSync(target)).toBe(false);
  }, 300_000);

  it('classifies every function the engine knows (an upgrade that adds one fails here until it is classified)', async () => {
    const names = (await t.wh.query<{ name: string }>('SELECT name FROM system.functions')).map((r) => r.name.toLowerCase());
    const classified = classifiedFunctions();
    expect(names.filter((n) => !classified.has(n))).toEqual([]);
    for (const dangerous of ['file', 'joinGet', 'dictGet', 'getServerSetting', 'hostName', 'aiGenerate', 'logTrace'])
      expect(functionRefusal(dangerous)).not.toBeNull();
    const tableFunctions = (await t.wh.query<{ name: string }>('SELECT name FROM system.table_functions')).map((r) => r.name);
    expect(ALLOWED_TABLE_FUNCTIONS.filter((n) => !tableFunctions.includes(n))).toEqual([]);
  });
});
