/**
 * `npm run bench -- NAME [args…]`: runs one benchmark, `bench/NAME.ts`. Each prints its
 * figures and ends with one line `NAME: <ratio> = R (…)`, the ratio measured against a
 * baseline in the same run. Without a name it lists the benchmarks.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const names = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();
const [name, ...rest] = process.argv.slice(2);
if (!name || !names.includes(name)) {
  process.stderr.write(
    `${name ? `unknown benchmark "${name}"\n` : ''}usage: npm run bench -- NAME [args]\nbenchmarks: ${names.join(', ')}\n`,
  );
  process.exit(name ? 2 : 0);
}
// The benchmark reads its own arguments from argv, as when run on its own.
process.argv = [process.argv[0]!, join(here, `${name}.ts`), ...rest];
await import(pathToFileURL(join(here, `${name}.ts`)).href);
