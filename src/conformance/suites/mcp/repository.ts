import { flag } from '../../findings.js';
import { isObject, jsonType, own, sanitize, type JsonObject } from '../../../core/json-util.js';
import { isValidHttpUrl } from '../../mcp-quality.js';
import type { Rule } from '../../rule.js';
import type { McpInput } from './input.js';
import { serverJson } from './spec.js';

/**
 * MCP-Q-012 and 101: a listed repository URL is a valid http(s) URL, and a repository or a
 * website is listed. An empty repository url ("") counts as none listed (the registry's own
 * examples carry it), not as an invalid one.
 */

export const REPOSITORY_URL: Rule<McpInput> = {
  id: 'MCP-Q-012',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Repository URL valid',
  description: 'The listed repository url is not a valid absolute http(s) URL.',
  ...serverJson('repository.url'),
  check: checkRepository,
};

export const REPOSITORY_OR_WEBSITE: Rule<McpInput> = {
  id: 'MCP-Q-101',
  suite: 'mcp',
  component: 'server.json',
  severity: 'warn',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Repository or website listed',
  description: 'Neither a repository url nor a websiteUrl is listed.',
  ...serverJson('repository, websiteUrl'),
  check: checkRepository,
};

function checkRepository({ rec, doc }: McpInput): void {
  rec.pass(REPOSITORY_URL, REPOSITORY_OR_WEBSITE);
  const server = doc as JsonObject;
  const repo = own(server, 'repository');
  let repoListed = false;
  if (repo !== undefined && repo !== null) {
    if (!isObject(repo)) {
      repoListed = true;
      flag(rec, REPOSITORY_URL, 'document', '/repository', `repository must be an object with a url, found ${jsonType(repo)}`);
    } else {
      const url = own(repo, 'url');
      if (url !== undefined && url !== '') {
        repoListed = true;
        if (!isValidHttpUrl(url)) {
          flag(
            rec,
            REPOSITORY_URL,
            'document',
            '/repository/url',
            typeof url === 'string'
              ? `repository url ${JSON.stringify(sanitize(url, 100))} is not a valid http(s) URL`
              : `repository url must be a string, found ${jsonType(url)}`,
          );
        }
      }
    }
  }
  const website = own(server, 'websiteUrl');
  const websiteListed = typeof website === 'string' && website.trim() !== '';
  if (!repoListed && !websiteListed) flag(rec, REPOSITORY_OR_WEBSITE, 'document', '', 'no repository url and no websiteUrl are listed');
}
