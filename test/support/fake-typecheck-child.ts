/**
 * A stand-in for the type-check process's entry: it starts and loads declaration sets like the
 * real one, then answers every other request with `onRequest` (JavaScript run with the request as
 * `m`), for tests of a child that misbehaves. Returns the entry file's path.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeFakeTypecheckChild(dir: string, name: string, onRequest: string): string {
  const file = path.join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `process.send({ type: 'ready', pid: process.pid });
process.on('message', (m) => {
  if (m.type === 'load') process.send({ type: 'loaded', id: m.id, ms: 1, rssMb: 1 });
  else { ${onRequest} }
});
process.on('disconnect', () => process.exit(0));
`,
  );
  return file;
}
