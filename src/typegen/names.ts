import ts from 'typescript';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A property name as written in a declaration: bare when it is an identifier, quoted otherwise (`'ssh-public-keys'`). */
export function propertyName(name: string): ts.PropertyName {
  return IDENTIFIER.test(name) ? ts.factory.createIdentifier(name) : ts.factory.createStringLiteral(name, true);
}
