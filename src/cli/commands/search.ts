import { Option, type Command } from 'commander';
import { SEARCH_LIMIT_MAX, type SearchHit, type SearchState } from '../../warehouse/read/ranked-search.js';
import { searchIndex } from '../../runtime/usecases/search.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { UsageError } from '../../config.js';
import { addSettings, configured, DATA_DIR_EMBEDDED_WAREHOUSE, WAREHOUSE_SETTINGS } from '../settings.js';

/** A text with its matched ranges in brackets, for a terminal. */
function marked(text: string, ranges: ReadonlyArray<readonly [number, number]>): string {
  let out = '';
  let at = 0;
  for (const [s, e] of ranges) {
    if (s < at) continue;
    out += `${text.slice(at, s)}[${text.slice(s, e)}]`;
    at = e;
  }
  return out + text.slice(at);
}

function hitLines(h: SearchHit, i: number, explain: boolean): string {
  const state = [h.uptime ?? 'not checked yet', h.result].filter(Boolean).join(' / ');
  const lines = [
    `${String(i + 1).padStart(2)}. ${marked(h.name, h.highlights.name)}  (${h.protocol}, ${state}, score ${h.score.toFixed(2)})`,
    `    ${h.key}`,
  ];
  if (h.description) lines.push(`    ${marked(h.description, h.highlights.description).replace(/\s+/g, ' ').slice(0, 200)}`);
  if (explain) {
    const e = h.explain;
    lines.push(
      `    relevance ${e.relevance} = ${e.terms.map((p) => `${p.word}→${p.term} (${p.kind}) ${p.part}`).join(' + ')}; phrase ×${(1 + e.phrase).toFixed(3)}; ` +
        `boosts up ${e.boosts.upNow} uptime ${e.boosts.uptime30} conformance ${e.boosts.conformance}`,
    );
  }
  return lines.join('\n');
}

/** `veronikai search "…"`: the index's ranked search, as the API and the dashboard run it. */
export function registerSearchCommand(program: Command): void {
  const cmd = program
    .command('search')
    .description(
      'search the index by what agents do: relevance-ranked over names, descriptions, skills, tags and packages, then by our own measurements (docs/SEARCH.md)',
    )
    .argument('<query...>', 'words or a sentence');
  addSettings(cmd, WAREHOUSE_SETTINGS)
    .addOption(new Option('--protocol <protocol>', 'only this protocol').choices(['a2a', 'mcp']))
    .option('--source <source>', 'only agents a source lists')
    .addOption(new Option('--state <state>', 'latest check or verdict').choices(['up', 'down', 'unknown', 'pass', 'fail']))
    .option('--transport <transport>', 'only agents offering this transport')
    .addOption(new Option('--auth <auth>', 'whether authentication is required').choices(['required', 'none']))
    .option('--limit <n>', `hits (1..${SEARCH_LIMIT_MAX})`, '10')
    .option('--explain', "print each hit's score parts")
    .option('--json', 'print the result as JSON')
    .action(async (words: string[], opts: Record<string, unknown>) => {
      const q = words.join(' ').trim();
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX)
        throw new UsageError(`--limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
      const { config } = configured(opts, 'veronikai-search', DATA_DIR_EMBEDDED_WAREHOUSE);
      const str = (k: string) => (typeof opts[k] === 'string' ? (opts[k] as string) : null);
      try {
        const r = await searchIndex(config, q, {
          limit,
          filters: {
            protocol: str('protocol'),
            source: str('source'),
            state: str('state') as SearchState | null,
            transport: str('transport'),
            auth: str('auth') as 'required' | 'none' | null,
          },
        });
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
          return;
        }
        if (r.hits.length === 0) {
          process.stdout.write('No agents match.\n');
          return;
        }
        process.stdout.write(`${r.hits.map((h, i) => hitLines(h, i, opts.explain === true)).join('\n')}\n`);
        const facets = Object.entries(r.facets)
          .map(
            ([k, v]) =>
              `${k}: ${
                Object.entries(v)
                  .map(([x, n]) => `${x} ${n}`)
                  .join(', ') || '-'
              }`,
          )
          .join(' · ');
        process.stdout.write(
          `\n${r.total} ${r.total === 1 ? 'match' : 'matches'}${r.complete ? '' : ' among the best candidates'} (checker ${r.checkerVersion}). ${facets}\n`,
        );
      } catch (err) {
        if (!(err instanceof WarehouseError)) throw err;
        process.stderr.write(`veronikai search: ${err.kind}${err.code === undefined ? '' : ` (code ${err.code})`}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
