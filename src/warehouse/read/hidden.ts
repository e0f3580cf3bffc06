/**
 * Agents whose owners asked to be hidden, as subqueries every public read leaves out. The agent
 * pages and the search read `opt_out != 'hidden'` on the agents row itself; the figures the API
 * serves (run samples, census, daily totals), the corrections log and the change history use these.
 */

/** The keys of hidden agents (agents, read with FINAL). */
export const HIDDEN_AGENT_KEYS = "(SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')";

/**
 * The ids of the agents whose owners asked to be hidden, read through their own postings
 * ('opt_out:hidden', clickhouse/0023: every hidden agent has one) and checked against their newest
 * search row (an agent no longer hidden keeps its old posting): as many rows as hidden agents,
 * whatever the index holds.
 */
export const HIDDEN_AGENT_IDS = `(SELECT agent_id FROM agent_search_rows FINAL
   WHERE agent_id IN (SELECT agent_id FROM agent_search_terms WHERE term = 'opt_out:hidden') AND opt_out = 'hidden')`;
