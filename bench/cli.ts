/**
 * What `veronikai check` on one agent card costs an owner: the CPU time (user + system) and
 * peak resident memory of the compiled CLI, as the installed package runs it, beside a bare
 * `node -e 0` measured in the same run.
 *
 *   npm run bench -- cli [runs per command, default 9]
 *
 * The CLI is compiled (tsc -p tsconfig.build.json) into a temporary directory laid out like the
 * package (bin/, dist/, package.json; node_modules linked to this checkout's), so bin/veronikai.js
 * runs dist/ exactly as after an install. Each child reports its own resource usage as it exits
 * (a preloaded module writes process.resourceUsage() to a pipe), the bare baseline included, so
 * both carry the same small preload. Runs alternate between the commands, so load from other
 * processes weighs on each alike; the figures are medians. Absolute times depend on the machine
 * and what else runs on it; the ratio is the figure to compare.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 9);
if (!Number.isInteger(runs) || runs < 1) throw new Error('runs per command must be a positive integer');

/** Goals: check on one card within this many times the CPU of a bare node, and under this peak RSS. */
const RATIO_GOAL = 6;
const RSS_GOAL_MB = 160;

function pickCard(): { path: string; source: string } {
  const corpus = resolve(root, '..', 'shared', 'corpus', 'a2a-cards');
  if (existsSync(corpus)) {
    const files = readdirSync(corpus)
      .filter((f) => f.endsWith('.json'))
      .sort();
    if (files.length > 0) return { path: join(corpus, files[0]!), source: `shared corpus card ${files[0]!}` };
  }
  const fixtures = join(root, 'test', 'fixtures', 'conformance', 'a2a');
  const file = readdirSync(fixtures)
    .filter((f) => f.endsWith('.json'))
    .sort()[0];
  if (!file) throw new Error('no agent card to check: neither the shared corpus nor the fixtures have one');
  console.log('NOTE: the shared corpus is absent; checking a fixture card instead.');
  return { path: join(fixtures, file), source: `fixture ${file}` };
}

/** Writes this process's resource usage to fd 3 as it exits. */
const REPORT_USAGE =
  "import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.resourceUsage(); writeSync(3, JSON.stringify({ cpuUs: u.userCPUTime + u.systemCPUTime, maxRssKb: u.maxRSS })); });";
const PRELOAD = ['--import', `data:text/javascript,${encodeURIComponent(REPORT_USAGE)}`];

interface Usage {
  cpuMs: number;
  rssMb: number;
}

function measure(args: string[], okStatus: number[], mustPrint: string): Usage {
  const res = spawnSync(process.execPath, [...PRELOAD, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
  const out = res.stdout?.toString() ?? '';
  if (res.status === null || !okStatus.includes(res.status) || !out.includes(mustPrint)) {
    throw new Error(`node ${args.join(' ')} exited ${res.status ?? res.signal}: ${(res.stderr?.toString() ?? '').slice(0, 2000)}`);
  }
  const usage = JSON.parse(String(res.output[3] ?? '')) as { cpuUs: number; maxRssKb: number };
  return { cpuMs: usage.cpuUs / 1000, rssMb: usage.maxRssKb / 1024 };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const stage = mkdtempSync(join(tmpdir(), 'veronikai-bench-cli-'));
try {
  console.log('compiling the CLI (tsc -p tsconfig.build.json) into a package layout…');
  const tsc = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(root, 'tsconfig.build.json'),
      '--outDir',
      join(stage, 'dist'),
      '--sourceMap',
      'false',
    ],
    {
      stdio: 'inherit',
      timeout: 600_000,
    },
  );
  // tsc emits despite type errors (exit 2); the measurement still holds for the code it emitted.
  if (!existsSync(join(stage, 'dist', 'cli', 'main.js'))) throw new Error(`tsc exited ${tsc.status ?? tsc.signal} and emitted no CLI`);
  if (tsc.status !== 0) console.log(`NOTE: tsc reported type errors (exit ${tsc.status ?? tsc.signal}); measuring what it emitted.`);
  mkdirSync(join(stage, 'bin'));
  copyFileSync(join(root, 'bin', 'veronikai.js'), join(stage, 'bin', 'veronikai.js'));
  copyFileSync(join(root, 'package.json'), join(stage, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir');
  const bin = join(stage, 'bin', 'veronikai.js');
  const card = pickCard();

  const commands: Record<string, { args: string[]; ok: number[]; prints: string }> = {
    bare: { args: ['-e', 'console.log("bare")'], ok: [0], prints: 'bare' },
    check: { args: [bin, 'check', card.path], ok: [0, 1], prints: 'rules:' },
    help: { args: [bin, '--help'], ok: [0], prints: 'Commands:' },
    'inspect --help': { args: [bin, 'inspect', '--help'], ok: [0], prints: 'Usage: veronikai inspect' },
  };
  const results: Record<string, Usage[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (const c of Object.values(commands)) measure(c.args, c.ok, c.prints); // warm the file cache
  for (let i = 0; i < runs; i++) {
    for (const [name, c] of Object.entries(commands)) results[name]!.push(measure(c.args, c.ok, c.prints));
  }

  console.log(`card: ${card.source}; ${runs} runs per command, alternating; Node ${process.version}`);
  const fig: Record<string, { cpu: number; rss: number; rssMax: number }> = {};
  for (const [name, us] of Object.entries(results)) {
    fig[name] = { cpu: median(us.map((u) => u.cpuMs)), rss: median(us.map((u) => u.rssMb)), rssMax: Math.max(...us.map((u) => u.rssMb)) };
    console.log(
      `  ${name.padEnd(16)} CPU ${fig[name]!.cpu.toFixed(0).padStart(5)} ms (median)   peak RSS ${fig[name]!.rss.toFixed(0)} MB (median), ${fig[name]!.rssMax.toFixed(0)} MB (max)`,
    );
  }
  const ratio = fig.check!.cpu / fig.bare!.cpu;
  const verdict = ratio <= RATIO_GOAL && fig.check!.rssMax < RSS_GOAL_MB ? 'within' : 'OUTSIDE';
  console.log(
    `cli: check/bare = ${ratio.toFixed(2)} (CPU of check on one card ${fig.check!.cpu.toFixed(0)} ms vs node -e 0 ${fig.bare!.cpu.toFixed(0)} ms, medians of ${runs}; ` +
      `peak RSS ${fig.check!.rssMax.toFixed(0)} MB (max of ${runs}); ${verdict} the goals ≤ ${RATIO_GOAL}× and < ${RSS_GOAL_MB} MB)`,
  );
} finally {
  rmSync(stage, { recursive: true, force: true });
}
