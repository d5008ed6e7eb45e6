/** search_api: free-text search over the API model's operations, one compact line per hit. */
export { ApiSearch, DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_CHARS, SearchOptionsSchema, type SearchOptions } from './engine.js';
export { SearchQueryError } from './errors.js';
export { LINE_TOKEN_BUDGET, formatHit, type SearchHit } from './hit.js';
export { helperLine, type SdkHelper } from './helpers.js';
