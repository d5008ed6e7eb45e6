/** Property names as TypeScript writes them, shared by both declaration back-ends so their text agrees. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A property name is written bare when it is an identifier, quoted otherwise (`'ssh-public-keys'`). */
export function isBareName(name: string): boolean {
  return IDENTIFIER.test(name);
}
