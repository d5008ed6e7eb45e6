/** A search request that cannot be answered as given; the message says what to change. */
export class SearchQueryError extends Error {
  override readonly name = 'SearchQueryError';
}
