import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, FIXTURES, HAVE_CORPUS } from '../conformance/helpers.js';
import { ROOT } from '../helpers/cli.js';
import { readAction, runCompositeAction } from '../helpers/composite-action.js';

/**
 * The package as an owner gets it: `npm pack` (which builds first) gives a tarball of compiled
 * JavaScript, the run-time schemas, migrations and broker build file, the README and the licence,
 * and nothing else; installed into an empty project from the local npm cache, `npx veronikai`
 * answers --version, checks a real agent card (text, SARIF and JUnit), prints the help of
 * inspect and probe, and migrates an embedded warehouse; `check` loads no warehouse engine, Kafka
 * client or API module (seen by a module-resolution hook). The GitHub Action (action.yml) runs
 * its steps locally in that project, against fixtures copied into it, with npm offline: its
 * pinned package is the installed one. Slow: one pack and one install per run.
 */

const PACK_TIMEOUT_MS = 15 * 60_000;
const work = mkdtempSync(join(tmpdir(), 'veronikai-packed-'));
const app = join(work, 'owner-project');
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = 120_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, LOG_LEVEL: 'silent', NO_COLOR: '1', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => (clearTimeout(timer), reject(err)));
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

// '--' ends npx's own options: `--version` and `--help` go to veronikai.
const npx = (...args: string[]) => run('npx', ['--no', '--', 'veronikai', ...args], app);

const card = HAVE_CORPUS
  ? join(
      CORPUS,
      'a2a-cards',
      readdirSync(join(CORPUS, 'a2a-cards'))
        .filter((f) => f.endsWith('.json'))
        .sort()[0]!,
    )
  : join(FIXTURES, 'a2a', 'struct-003-skill-tags-42.json');
let files: string[] = [];

beforeAll(async () => {
  const pack = await run('npm', ['pack', '--pack-destination', work, '--silent'], ROOT, PACK_TIMEOUT_MS);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (pack.code !== 0 || !tarball)
    throw new Error(`npm pack failed (${pack.code}): ${pack.stderr.slice(-4000)}\n${pack.stdout.slice(-4000)}`);
  const list = await run('tar', ['-tzf', join(work, tarball)], work);
  files = list.stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));

  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'owner-project', version: '1.0.0', private: true }, null, 2));
  const install = await run('npm', ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund'], app, PACK_TIMEOUT_MS);
  if (install.code !== 0) throw new Error(`npm install of the tarball failed (${install.code}): ${install.stderr.slice(-4000)}`);
}, 2 * PACK_TIMEOUT_MS);

describe('the packed package', { timeout: 120_000 }, () => {
  it('holds the compiled CLI and what it reads at run time, the README and the licence, and nothing else', () => {
    const allowed =
      /^(package\.json|README\.md|LICENSE|bin\/veronikai\.js|dist\/.+\.js|schemas\/avro\/.+\.avsc|clickhouse\/\d{4}_[a-z0-9_]+\.sql|stack\/kafka\/pom\.xml)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/veronikai.js',
      'dist/cli/main.js',
      'dist/cli/command-table.js',
      'dist/cli/commands/check.js',
      'dist/warehouse/migrate.js',
      'schemas/avro/probe.avsc',
      'clickhouse/0001_create_listings.sql',
      'stack/kafka/pom.xml',
    ]) {
      expect(files, f).toContain(f);
    }
    // Every migration and Avro schema of the checkout is in it.
    const sql = readdirSync(join(ROOT, 'clickhouse')).filter((f) => f.endsWith('.sql'));
    expect(files.filter((f) => f.startsWith('clickhouse/')).length).toBe(sql.length);
  });

  it('answers --version with the package version', async () => {
    const r = await npx('--version');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('checks an agent card: text, SARIF and JUnit, exit code as the checker says', async () => {
    const text = await npx('check', card);
    expect([0, 1], text.stderr).toContain(text.code);
    expect(text.stdout).toMatch(/rules: \d+ passed/);
    const sarif = await npx('check', card, '--format', 'sarif');
    expect(sarif.code).toBe(text.code);
    const log = JSON.parse(sarif.stdout) as { version: string; runs: Array<{ invocations: Array<{ exitCode: number }> }> };
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0]!.invocations[0]!.exitCode).toBe(text.code);
    const junit = await npx('check', card, '--format', 'junit');
    expect(junit.code).toBe(text.code);
    expect(junit.stdout).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
  });

  it('prints the help of inspect and probe', async () => {
    const inspect = await npx('inspect', '--help');
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toMatch(/^Usage: veronikai inspect \[options\] <url>/);
    const probe = await npx('probe', '--help');
    expect(probe.code, probe.stderr).toBe(0);
    expect(probe.stdout).toMatch(/^Usage: veronikai probe /);
    const help = await npx('--help');
    expect(help.code).toBe(0);
    for (const name of ['check', 'inspect', 'probe', 'run']) expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('resolves the embedded engine and the migrations from the package, as run does first', async () => {
    const dataDir = join(work, 'data');
    const sql = readdirSync(join(ROOT, 'clickhouse')).filter((f) => /^\d{4}_.+\.sql$/.test(f)).length;
    const first = await npx('migrate', '--data-dir', dataDir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${sql} applied, 0 already applied`);
    const again = await npx('migrate', '--data-dir', dataDir);
    expect(again.stdout).toContain(`0 applied, ${sql} already applied`);
  });

  it('check loads no warehouse engine, Kafka client or API module; run does (the hook sees them)', async () => {
    // A module-resolution hook records every module the installed CLI resolves.
    writeFileSync(
      join(work, 'hooks.mjs'),
      "import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(new URL('./loaded.txt', import.meta.url), r.url + '\\n'); return r; }\n",
    );
    writeFileSync(join(work, 'track.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
    const loaded = async (...args: string[]): Promise<string[]> => {
      rmSync(join(work, 'loaded.txt'), { force: true });
      const r = await run(
        process.execPath,
        ['--import', join(work, 'track.mjs'), join(app, 'node_modules', 'veronikai', 'bin', 'veronikai.js'), ...args],
        app,
      );
      expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
      return readFileSync(join(work, 'loaded.txt'), 'utf8').split('\n').filter(Boolean);
    };
    // runtime's composition opens the heavy parts; its use cases (dist/runtime/usecases) are what a command runs.
    const heavy =
      /\/node_modules\/(chdb|@chdb|kafkajs|fastify|@fastify|@clickhouse)\/|\/veronikai\/dist\/(warehouse|kafka|api|stack)\/|\/veronikai\/dist\/runtime\/(?!usecases\/)/;
    const check = await loaded('check', card);
    expect(check.some((u) => u.endsWith('/veronikai/dist/cli/commands/check.js'))).toBe(true);
    expect(check.filter((u) => heavy.test(u))).toEqual([]);
    const runHelp = await loaded('run', '--help');
    expect(runHelp.some((u) => /\/node_modules\/kafkajs\//.test(u)) && runHelp.some((u) => /\/veronikai\/dist\/warehouse\//.test(u))).toBe(
      true,
    );
  });
});

describe('the GitHub Action, its steps run locally in the owner project', { timeout: 120_000 }, () => {
  const ACTION = join(ROOT, 'action.yml');
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  // Offline: the pinned package must come from the project, never from a registry.
  const env = { npm_config_offline: 'true', LOG_LEVEL: 'silent', NO_COLOR: '1' };
  const act = (inputs: Record<string, string>) => runCompositeAction(ACTION, inputs, { cwd: app, env, actionPath: ROOT });
  const stepsOf = (r: ReturnType<typeof act>) => Object.fromEntries(r.steps.map((s) => [s.name, s]));

  beforeAll(() => {
    mkdirSync(join(app, 'agent cards'), { recursive: true });
    cpSync(join(FIXTURES, 'a2a', 'struct-003-skill-tags-42.json'), join(app, 'agent cards', 'failing card.json'));
    cpSync(join(ROOT, 'test', 'fixtures', 'plugins', 'valid'), join(app, 'plugins', 'valid'), { recursive: true });
  });

  it('pins the package version of this checkout', () => {
    expect(readAction(ACTION).inputs.package!.default).toBe(`veronikai@${version}`);
  });

  it('a failing card: SARIF written and handed to the upload, the action exits 1 as the checker did', () => {
    const r = act({ target: 'agent cards/failing card.json', 'upload-sarif': 'true', category: 'cards' });
    const steps = stepsOf(r);
    expect(steps['Run the VeronikAI check']!.stderr).not.toMatch(/npm (error|ERR)/);
    expect(r.outputs).toEqual({ 'exit-code': '1', report: 'veronikai-report.sarif' });
    expect(r.code).toBe(1);
    expect(steps['Set up Node.js']).toMatchObject({ ran: true, uses: 'actions/setup-node@v4', with: { 'node-version': '20' } });
    expect(steps['Upload the SARIF report to code scanning']).toMatchObject({
      ran: true,
      uses: 'github/codeql-action/upload-sarif@v3',
      with: { sarif_file: 'veronikai-report.sarif', category: 'cards' },
    });
    expect(steps["Exit with the checker's code"]).toMatchObject({ ran: true, code: 1 });
    const log = JSON.parse(readFileSync(join(app, 'veronikai-report.sarif'), 'utf8')) as {
      runs: Array<{ results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: unknown } }> }> }>;
    };
    const struct = log.runs[0]!.results.find((x) => x.ruleId === 'A2A-STRUCT-003')!;
    expect(struct.locations[0]!.physicalLocation.artifactLocation).toEqual({
      uri: 'agent%20cards/failing%20card.json',
      uriBaseId: '%SRCROOT%',
    });
    expect(steps['Run the VeronikAI check']!.stdout).toContain(
      '::error title=VeronikAI check::agent cards/failing card.json failed at least one rule',
    );
    expect(r.summary).toMatch(/`agent cards\/failing card\.json` failed/);
  });

  it('a valid plugin package as JUnit: exit 0, no upload unless asked', () => {
    const r = act({ target: 'plugins/valid', format: 'junit', output: 'reports/plugin.xml' });
    expect(r.code).toBe(0);
    expect(r.outputs).toEqual({ 'exit-code': '0', report: 'reports/plugin.xml' });
    const steps = stepsOf(r);
    expect(steps['Upload the SARIF report to code scanning']!.ran).toBe(false);
    const xml = readFileSync(join(app, 'reports', 'plugin.xml'), 'utf8');
    expect(xml).toMatch(/<testsuites name="veronikai check plugins\/valid" tests="\d+" failures="0" errors="0"/);
  });

  it('a usage error exits 2 with a message and uploads nothing; a rule selection is passed through', () => {
    const bad = act({ target: 'plugins/valid', format: 'html', 'upload-sarif': 'true' });
    expect(bad.code).toBe(2);
    expect(stepsOf(bad)['Run the VeronikAI check']!.stdout).toMatch(
      /::error title=VeronikAI check::format must be sarif, junit, json or terminal/,
    );
    expect(stepsOf(bad)['Upload the SARIF report to code scanning']!.ran).toBe(false);
    const mismatch = act({ target: 'plugins/valid', format: 'junit', 'upload-sarif': 'true' });
    expect(mismatch.code).toBe(2);
    const one = act({ target: 'agent cards/failing card.json', rule: 'A2A-CARD-005', format: 'json', kind: 'card' });
    expect(one.code).toBe(0);
    expect((JSON.parse(readFileSync(join(app, 'veronikai-report.json'), 'utf8')) as { selectedRule: string }).selectedRule).toBe(
      'A2A-CARD-005',
    );
  });
});
