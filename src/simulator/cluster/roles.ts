/**
 * The units and guest roles the generated clusters are made of: what each role runs, how big it is,
 * which pool and tags it has, and how often it is running.
 */
import type { GuestType } from './types.js';

export const MiB = 1024 ** 2;
export const GiB = 1024 ** 3;
export const TiB = 1024 ** 4;
export const DAY = 86_400;

export interface Role {
  name: string;
  type: GuestType;
  tags: string;
  pool: 'production' | 'development' | 'infra';
  memory: number;
  cores: number;
  diskGiB: number;
  /** Share of guests of this role that are running. */
  running: number;
  ostype: string;
}

export const ROLES: readonly Role[] = [
  { name: 'web', type: 'qemu', tags: 'prod;web', pool: 'production', memory: 4096, cores: 2, diskGiB: 32, running: 0.9, ostype: 'l26' },
  { name: 'db', type: 'qemu', tags: 'db;prod', pool: 'production', memory: 16384, cores: 4, diskGiB: 128, running: 0.9, ostype: 'l26' },
  { name: 'app', type: 'qemu', tags: 'app;prod', pool: 'production', memory: 8192, cores: 4, diskGiB: 64, running: 0.8, ostype: 'l26' },
  { name: 'cache', type: 'lxc', tags: 'cache;prod', pool: 'production', memory: 2048, cores: 2, diskGiB: 8, running: 0.9, ostype: 'debian' },
  { name: 'dns', type: 'lxc', tags: 'dns;infra', pool: 'infra', memory: 512, cores: 1, diskGiB: 4, running: 1, ostype: 'debian' },
  { name: 'proxy', type: 'lxc', tags: 'infra;proxy', pool: 'infra', memory: 1024, cores: 2, diskGiB: 8, running: 0.9, ostype: 'alpine' },
  { name: 'mon', type: 'lxc', tags: 'infra;monitoring', pool: 'infra', memory: 4096, cores: 2, diskGiB: 32, running: 0.9, ostype: 'debian' },
  { name: 'ci-runner', type: 'qemu', tags: 'ci;dev', pool: 'development', memory: 8192, cores: 4, diskGiB: 64, running: 0.5, ostype: 'l26' },
  { name: 'dev', type: 'qemu', tags: 'dev', pool: 'development', memory: 4096, cores: 2, diskGiB: 48, running: 0.4, ostype: 'l26' },
  { name: 'win', type: 'qemu', tags: 'dev;windows', pool: 'development', memory: 8192, cores: 4, diskGiB: 80, running: 0.3, ostype: 'win11' },
];
