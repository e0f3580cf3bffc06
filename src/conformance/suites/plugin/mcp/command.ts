import { own, quote } from '../../../../core/json-util.js';
import { commandKey, hasPlaceholder, PLUGIN_ROOT_PLACEHOLDER } from '../../../plugin/paths.js';
import type { Rule } from '../../../rule.js';
import { fail, unable } from '../run.js';
import { ap } from '../spec.js';
import type { ServerInput } from './input.js';

/** PLG-018: a stdio command is one executable token: a bare name, or a ./ path inside the package (§7.2.1). */

export const COMMAND: Rule<ServerInput, boolean> = {
  id: 'PLG-018',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-017'],
  title: 'stdio command is one executable token inside the package',
  description:
    'A stdio command is not a bare executable name or a ./ plugin-relative path (a shell string, an absolute or ../ path, a placeholder), or its ./ path resolves outside the plugin root or through a broken link; that server is skipped.',
  ...ap('§7.2.1 stdio (command); §4.1', 'stdio'),
  check: checkCommand,
};

function checkCommand({ run, base, name, entry }: ServerInput): boolean {
  const command = own(entry, 'command') as string; // PLG-017 passed
  const P = `${base}/command`;
  const bad = (why: string): false => {
    fail(run, COMMAND, 'mcp.json', P, `Server ${quote(name)}: command ${quote(command, 80)} ${why}; the server is skipped.`);
    return false;
  };
  const incomplete = (reason: string): false => {
    unable(run, COMMAND, `mcp.json#${P}`, reason);
    return false;
  };
  if (hasPlaceholder(command))
    return bad(
      `contains a placeholder, but command is never expanded (§7.2.1, §9.2); use a ./ path for a bundled executable and pass ${PLUGIN_ROOT_PLACEHOLDER} in args`,
    );
  if (command.startsWith('./')) {
    const key = commandKey(command);
    if (key === null) return bad('names no file (a ./ path needs a file name after ./)');
    const res = run.snap.paths?.[key];
    if (!res) return incomplete(`the path ${quote(command, 80)} was not resolved`);
    if (res.status === 'escape') return bad(`resolves outside the plugin root (${res.detail})`);
    if (res.status === 'broken') return bad(`leads through a broken symbolic link (${res.detail})`);
    if (res.status === 'error') return incomplete(`the path ${quote(command, 80)} could not be inspected: ${res.detail}`);
    if (res.kind === 'missing' && /\s/.test(command))
      return bad(
        'names no file in the package and reads as a command line with arguments: command is one executable token, args go in args',
      );
  } else {
    if (command.includes('/') || command.includes('\\'))
      return bad('is neither a bare executable name nor a plugin-relative path beginning with ./ (absolute and ../ paths are not allowed)');
    if (/\s/.test(command))
      return bad('reads as a shell command string: command must be a single executable token, with its arguments in args');
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(command)) return bad('contains control characters');
    if (command === '.' || command === '..') return bad('is not an executable name');
  }
  run.rec.pass(COMMAND);
  return true;
}
