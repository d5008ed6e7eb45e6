/** Paths in the config file are relative to the config file's directory. */
import { isAbsolute, resolve } from 'node:path';

/** A config key's path made absolute against the config file's directory. */
export function absolute(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/** What a config section's resolution reports: the key and what is wrong with it. */
export type ConfigIssues = Array<{ key: string; message: string }>;
