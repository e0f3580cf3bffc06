import { own, quote } from '../../../../core/json-util.js';
import { cwdForm, PLUGIN_DATA_PLACEHOLDER, PLUGIN_ROOT_PLACEHOLDER } from '../../../plugin/paths.js';
import type { Rule } from '../../../rule.js';
import { fail, unable } from '../run.js';
import { ap } from '../spec.js';
import type { ServerInput } from './input.js';

/** PLG-019: a stdio cwd has an allowed form and, expanded, stays inside the plugin root (or the data directory). */

export const CWD: Rule<ServerInput, boolean> = {
  id: 'PLG-019',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-017'],
  title: 'cwd form and containment',
  description:
    "A stdio cwd is not ./…, ${PLUGIN_ROOT}[/…] or ${PLUGIN_DATA}[/…], or after expansion resolves outside the plugin root (or the data directory) or through a broken link; that server is skipped. A ${PLUGIN_DATA} cwd needs the client's data directory and is unable to complete.",
  ...ap('§7.2.1 stdio (cwd); §4.1; §9.2 Placeholder expansion', 'stdio'),
  check: checkCwd,
};

function checkCwd({ run, base, name, entry }: ServerInput): boolean {
  const cwd = own(entry, 'cwd') as string; // judged only when it is a string
  const P = `${base}/cwd`;
  const bad = (why: string): false => {
    fail(run, CWD, 'mcp.json', P, `Server ${quote(name)}: cwd ${quote(cwd, 80)} ${why}; the server is skipped.`);
    return false;
  };
  const incomplete = (reason: string): false => {
    unable(run, CWD, `mcp.json#${P}`, reason);
    return false;
  };
  const form = cwdForm(cwd);
  switch (form.form) {
    case 'invalid':
      return bad(`is none of the allowed forms ./…, ${PLUGIN_ROOT_PLACEHOLDER}[/…] or ${PLUGIN_DATA_PLACEHOLDER}[/…]`);
    case 'data': {
      // `${PLUGIN_DATA}/..` is the data directory's parent whatever the client chose; anything else needs that directory.
      const first = form.rest.split('/').find((s) => s !== '' && s !== '.');
      if (first === '..') return bad('leaves the plugin data directory (its first step is ..)');
      return incomplete(
        `server ${quote(name)}: cwd ${quote(cwd, 80)} is rooted in ${PLUGIN_DATA_PLACEHOLDER}, the client's data directory; whether it stays inside needs that directory, which a static check does not have (never guessed)`,
      );
    }
    case 'root-dynamic':
      return incomplete(
        `server ${quote(name)}: cwd ${quote(cwd, 80)} expands another placeholder inside the path, so where it resolves depends on the client's directories (never guessed)`,
      );
    case 'root': {
      const res = run.snap.paths?.[form.key];
      if (!res) return incomplete(`the path ${quote(cwd, 80)} was not resolved`);
      if (res.status === 'escape') return bad(`resolves outside the plugin root (${res.detail})`);
      if (res.status === 'broken') return bad(`leads through a broken symbolic link (${res.detail})`);
      if (res.status === 'error') return incomplete(`the path ${quote(cwd, 80)} could not be inspected: ${res.detail}`);
      run.rec.pass(CWD);
      return true;
    }
  }
}
