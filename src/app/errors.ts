/** Errors of the composition layer, phrased for both agents and operators. */

export class UnknownClusterError extends Error {
  constructor(
    readonly cluster: string,
    readonly known: string[],
  ) {
    super(`no cluster named '${cluster}': configured clusters are ${known.join(', ') || '(none)'}`);
    this.name = 'UnknownClusterError';
  }
}
