/** The API's paging and window limits, in one place (the schemas and the routes read them). */

export const STATS_DAYS_DEFAULT = 30;
export const STATS_DAYS_MAX = 400;
export const AGENT_SEARCH_DEFAULT = 50;
export const AGENT_SEARCH_MAX = 500;
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 500;
export const SEARCH_DEFAULT = 20;
/** Hits on one page of GET /search; pages reach as far as the candidates scored (SEARCH_OFFSET_MAX). */
export const SEARCH_MAX = 50;
export const SEARCH_OFFSET_MAX = 100;
export const SEARCH_QUERY_MAX = 500;
