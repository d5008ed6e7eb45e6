/**
 * A model with one more GET, in the project's own words: a GET that reveals a secret, privileged
 * by its class (as some PVE GETs are). The tests of a GET whose path is known only at run time
 * use it to reach a GET that can need approval.
 */
import { ApiModel, type Operation } from '../../src/schema/model.js';

export function withSecretGet(model: ApiModel): ApiModel {
  const secretGet: Operation = {
    ...(model.get('GET', '/version') as Operation),
    key: 'GET /nodes/{node}/keys',
    path: '/nodes/{node}/keys',
    pathParams: ['node'],
    params: [{ name: 'node', type: 'string', optional: false, inPath: true }],
    risk: 'privileged',
  };
  return new ApiModel([...model.operations, secretGet], 'test-secret-get', { kind: 'string' }, model.paths);
}
