/**
 * The search index of the synthetic agents (synthetic-index.ts), written with INSERT … SELECT as
 * the index writer would write it: the terms and BM25F impacts of each synthetic document come
 * from the real analysis and weights (src/warehouse/search), computed once in JS for the template
 * every synthetic agent shares, and checked against the writer's own output for sample agents
 * (test/api/search.test.ts), so the figures measure the real index layout at any size.
 */
import { FIELD_WEIGHTS, K1, IMPACT_SCALE } from '../../src/warehouse/search/bm25f.js';
import { terms } from '../../src/warehouse/search/analyze.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';

export const AUDIENCES = ['teams', 'developers', 'analysts'];

/** One occurrence's weight in a field of `length` terms (BM25F's w / norm). */
const unit = (f: keyof typeof FIELD_WEIGHTS, length: number) => {
  const { w, b, avg } = FIELD_WEIGHTS[f];
  return w / (1 - b + (b * length) / avg);
};

/** The single term of a word, as the analysis gives it (throws when the template would not hold). */
const one = (word: string): string => {
  const t = terms(word);
  if (t.length !== 1) throw new Error(`synthetic search: "${word}" analyses to ${JSON.stringify(t)}`);
  return t[0]!;
};

/** Adds the search documents, postings, term counts and term facet counts of agents [from, to) (listable ones only). */
export async function addSyntheticSearch(
  wh: Warehouse,
  o: { from: number; to: number; topics: readonly string[]; /** Whether the warehouse has search_term_facets (0038). */ facets: boolean },
): Promise<void> {
  // The template's field lengths, from the analysis of agent 5 (every agent has the same).
  const name = terms('Weather Agent 5');
  const url = terms('a5 example dev mcp');
  const desc = terms('A synthetic weather server with tools for teams number 5');
  if (name.length !== 3 || url.length !== 4 || desc.length !== 7)
    throw new Error(`synthetic search: template analyses to ${JSON.stringify([name, url, desc])}`);
  const [uName, uUrl, uDesc] = [unit('name', 3), unit('url', 4), unit('description', 7)];
  const topicStems = `['${o.topics.map((t) => one(t)).join("','")}']`;
  const audienceStems = `['${AUDIENCES.map(one).join("','")}']`;
  const [agent, example, dev, mcp, synthet, server, tool, number] = [
    'agent',
    'example',
    'dev',
    'mcp',
    'synthetic',
    'server',
    'tools',
    'number',
  ].map(one);
  const n = '(number + {from:UInt64})';
  const id = `substring(lower(hex(SHA256(concat('https://a', toString(${n}), '.example.dev/mcp')))), 1, 16)`;
  // Each term once with its summed field weights (BM25F adds a term's fields): agent n < 997 has its
  // number in its name and, as n % 997, in its description too.
  const parts = `[
      (arrayElement(${topicStems}, ${n} % 10 + 1), ${uName + uDesc}), ('${agent}', ${uName}),
      (toString(${n}), if(${n} < 997, ${uName + uDesc}, ${uName})),
      (concat('a', toString(${n})), ${uUrl}), ('${example}', ${uUrl}), ('${dev}', ${uUrl}), ('${mcp}', ${uUrl}),
      ('${synthet}', ${uDesc}), ('${server}', ${uDesc}), ('${tool}', ${uDesc}), (arrayElement(${audienceStems}, ${n} % 3 + 1), ${uDesc}),
      ('${number}', ${uDesc})]`;
  const withNumber = `if(${n} < 997, ${parts}, arrayPushBack(${parts}, (toString(${n} % 997), ${uDesc})))`;
  const impactOf = (x: string) => `toUInt16(greatest(1, round(${IMPACT_SCALE} * ${x} / (${K1} + ${x}))))`;
  const listable = `${n} % 50 != 49 AND ${n} % 997 != 996`;
  const impacts = `
    SELECT ${id} AS id, ${n} AS n, arrayJoin(${withNumber}) AS tx, tx.1 AS term, ${impactOf('tx.2')} AS impact
    FROM numbers({count:UInt64}) WHERE ${listable}`;
  const BLOCK = 100_000;
  for (let from = o.from; from < o.to; from += BLOCK) {
    const p = { from, count: Math.min(BLOCK, o.to - from) };
    await wh.exec(
      `INSERT INTO search_term_postings (term, rank, agent_id, content, protocol, sources, transports, auth_required)
       SELECT term, ${IMPACT_SCALE} - impact, id, cityHash64(id), if(n % 3 = 0, 'a2a', 'mcp'), ['mcp-registry'], ['streamable-http'], 0
       FROM (${impacts})`,
      p,
    );
    await wh.exec(`INSERT INTO search_terms (term, df) SELECT term, count() FROM (${impacts}) GROUP BY term`, p);
    await wh.exec(`INSERT INTO search_terms (term, df) SELECT '', count() FROM numbers({count:UInt64}) WHERE ${listable}`, p);
    if (o.facets)
      await wh.exec(
        `INSERT INTO search_term_facets (term, protocol, sources, transports, auth_required, agents)
         SELECT term, p, ['mcp-registry'], ['streamable-http'], 0, count()
         FROM (SELECT term, if(n % 3 = 0, 'a2a', 'mcp') AS p FROM (${impacts})) GROUP BY term, p`,
        p,
      );
    await wh.exec(
      `INSERT INTO search_documents (agent_id, agent_key, version, listable, content, card_sha256, protocol, sources, transports, auth_required,
         name, title, description, impacts)
       SELECT id, concat('https://a', toString(n), '.example.dev/mcp'), toUInt64(toUnixTimestamp64Milli(now64(3, 'UTC'))), 1, cityHash64(id), '',
         if(n % 3 = 0, 'a2a', 'mcp'), ['mcp-registry'], ['streamable-http'], 0,
         concat(arrayElement(['${o.topics.join("','")}'], n % 10 + 1), ' Agent ', toString(n)), '',
         concat('A synthetic ', lowerUTF8(arrayElement(['${o.topics.join("','")}'], n % 10 + 1)), ' server with tools for ',
                arrayElement(['${AUDIENCES.join("','")}'], n % 3 + 1), ' number ', toString(n % 997)),
         mapFromArrays(arrayMap(t -> t.1, parts), arrayMap(t -> ${impactOf('t.2')}, parts))
       FROM (SELECT ${id} AS id, ${n} AS n, ${withNumber} AS parts FROM numbers({count:UInt64}) WHERE ${listable})`,
      p,
    );
  }
}
