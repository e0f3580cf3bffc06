import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { censusOfFrame, readFrameHosts } from '../../runtime/usecases/census-frame.js';
import { renderCensusHtml, renderCensusMarkdown } from '../../stats/census-report.js';
import { addSettings, configured } from '../settings.js';

const csvCell = (v: string | number | boolean | null) => {
  const s = v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** `veronikai census --frame hosts.txt`: the census method for a frame no registry lists. */
export function registerCensusCommand(program: Command): void {
  const cmd = program
    .command('census')
    .description(
      "probe a list of hosts at both well-known A2A card paths, politely, and report the frame's census (the tables of docs/CENSUS.md)",
    )
    .requiredOption('--frame <file>', 'the frame: one host (or URL) a line; # starts a comment');
  addSettings(cmd, ['contact', 'logLevel', 'allowLoopback'])
    .addOption(new Option('--format <format>', 'report output').choices(['md', 'json', 'html']).default('md'))
    .option('--frame-out <file>', 'also write the complete frame (host, path, status, error, card) as CSV')
    .option('--concurrency <n>', 'hosts probed at once', '4')
    .action(async (opts: Record<string, unknown>) => {
      const { config } = configured(opts, 'veronikai-census');
      const hosts = readFrameHosts(String(opts.frame));
      const c = await censusOfFrame(config, hosts, {
        allowLoopback: Boolean(opts.allowLoopback),
        concurrency: Number(opts.concurrency) || 4,
      });
      if (typeof opts.frameOut === 'string') {
        const lines = [
          'host,path,url,status,error_class,card',
          ...c.requests.map((r) => [r.host, r.path, r.url, r.status, r.errorClass, r.card].map(csvCell).join(',')),
        ];
        writeFileSync(opts.frameOut, `${lines.join('\n')}\n`);
      }
      if (opts.format === 'json') {
        process.stdout.write(`${JSON.stringify(c, null, 2)}\n`);
        return;
      }
      const head = `${c.serving} of ${c.hosts} host(s) serve a card: ${c.servingCurrent} at /.well-known/agent-card.json, ${c.servingLegacy} at /.well-known/agent.json, ${c.servingBoth} at both (${c.requests.length} request(s)).`;
      process.stdout.write(
        opts.format === 'html'
          ? renderCensusHtml(c.report).replace('<body>', `<body><p>${head}</p>`)
          : `${head}\n\n${renderCensusMarkdown(c.report)}`,
      );
    });
}
