/**
 * Built-in policy presets. Each grants a set of operations; privileged operations are never part
 * of a preset (they are enabled one by one in the policy's `privileged` list).
 *
 * - `read-only` (default): every operation whose risk class is `read`.
 * - `operator`: reads plus guest power, snapshots, backups and guest configuration.
 * - `admin`: every operation that is not privileged.
 */
import type { RiskClass } from '../schema/model.js';

export const PRESET_NAMES = ['read-only', 'operator', 'admin'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export interface PresetDefinition {
  /** Risk classes granted wholesale. */
  riskClasses: readonly RiskClass[];
  /** Operation patterns granted on top (see glob.ts), whatever their (non-privileged) risk. */
  operations: readonly string[];
  /** Risk classes whose writes need human approval unless the policy says otherwise. */
  approval: readonly RiskClass[];
}

const GUEST = '/nodes/*/{qemu,lxc}/*';

export const PRESETS: Record<PresetName, PresetDefinition> = {
  // Approval classes matter for read-only only where allow rules add writes: their destructive
  // escalations (a backup that prunes) still go to a human.
  'read-only': { riskClasses: ['read'], operations: [], approval: ['destructive', 'privileged'] },
  operator: {
    riskClasses: ['read'],
    operations: [
      `POST ${GUEST}/status/{start,stop,shutdown,reboot,reset,suspend,resume}`,
      `POST ${GUEST}/snapshot`,
      `DELETE ${GUEST}/snapshot/*`,
      `PUT ${GUEST}/snapshot/*/config`,
      `POST ${GUEST}/snapshot/*/rollback`,
      'POST /nodes/*/vzdump',
      `PUT,POST ${GUEST}/config`,
    ],
    approval: ['destructive', 'privileged'],
  },
  admin: { riskClasses: ['read', 'write', 'destructive'], operations: [], approval: ['destructive', 'privileged'] },
};
