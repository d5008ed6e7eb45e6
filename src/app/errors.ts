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

/**
 * The server is stopping (a signal, the client closed stdin, the listener closed): new runs are
 * refused before anything is compiled or sent, and runs in flight are cancelled with this reason.
 */
export class ServerStoppingError extends Error {
  readonly code = 'server-stopping';
  constructor() {
    super('the server is stopping: nothing was run for this call; retry it against the restarted server');
    this.name = 'ServerStoppingError';
  }
}
