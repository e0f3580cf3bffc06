import { isObject, jsonType, own, ptr, quote } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail, type PluginRun } from '../run.js';
import { ap } from '../spec.js';
import type { ManifestInput } from './input.js';

/** PLG-007: the metadata fields' types and the closed author object; formats are never judged (§5.4). */

export const METADATA: Rule<ManifestInput> = {
  id: 'PLG-007',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-003'],
  title: 'Metadata types and closed author object',
  description:
    'version, description, homepage, repository or license is not a string, keywords is not an array of strings, or author is not an object of only name, email and url strings; the plugin is rejected. Formats (SemVer, URL, email, SPDX) are never judged.',
  ...ap('§5.4 Metadata fields', '54-metadata-fields'),
  check: checkMetadata,
};

function checkMetadata({ run, doc }: ManifestInput): void {
  let ok = true;
  const bad = (pointer: string, message: string): void => {
    fail(run, METADATA, 'plugin.json', pointer, message);
    ok = false;
  };
  for (const field of ['version', 'description', 'homepage', 'repository', 'license']) {
    const v = own(doc, field);
    if (v !== undefined && typeof v !== 'string') bad(ptr(field), `${field} must be a string, not ${jsonType(v)}.`);
  }
  const keywords = own(doc, 'keywords');
  if (keywords !== undefined && !Array.isArray(keywords))
    bad('/keywords', `keywords must be an array of strings, not ${jsonType(keywords)}.`);
  else if (keywords !== undefined) {
    keywords.forEach((k, i) => {
      if (typeof k !== 'string') bad(ptr('keywords', i), `keywords[${i}] must be a string, not ${jsonType(k)}.`);
    });
  }
  if (!checkAuthor(run, own(doc, 'author'))) ok = false;
  if (ok) run.rec.pass(METADATA);
}

/** author: an object of only name, email and url strings; false when it is not. */
function checkAuthor(run: PluginRun, author: unknown): boolean {
  if (author === undefined) return true;
  if (!isObject(author)) {
    fail(run, METADATA, 'plugin.json', '/author', `author must be an object, not ${jsonType(author)}.`);
    return false;
  }
  let ok = true;
  for (const k of Object.keys(author)) {
    const v = own(author, k);
    if (!['name', 'email', 'url'].includes(k))
      fail(
        run,
        METADATA,
        'plugin.json',
        ptr('author', k),
        `author may hold only name, email and url; ${quote(k)} makes the manifest invalid.`,
      );
    else if (typeof v !== 'string')
      fail(run, METADATA, 'plugin.json', ptr('author', k), `author.${k} must be a string, not ${jsonType(v)}.`);
    else continue;
    ok = false;
  }
  return ok;
}
