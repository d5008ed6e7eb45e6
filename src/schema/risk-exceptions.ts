/**
 * Reviewed exceptions to the risk rules in risk.ts: single operations whose effect differs from what
 * their method and path family suggest. Each entry must change the outcome of the rules (risk.test.ts
 * checks that and that the operation exists), so the table cannot silently rot.
 * Rationale for every class is in docs/risk-classes.md.
 */
import type { OperationKey, RiskClass } from './model.js';

export interface RiskException {
  risk: RiskClass;
  reason: string;
}

export const RISK_EXCEPTIONS: Readonly<Partial<Record<OperationKey, RiskException>>> = {
  // POSTs that only ask the guest agent something.
  'POST /nodes/{node}/qemu/{vmid}/agent/ping': { risk: 'read', reason: 'only checks that the guest agent answers' },
  'POST /nodes/{node}/qemu/{vmid}/agent/fsfreeze-status': { risk: 'read', reason: 'only reports the guest file-system freeze state' },

  // GETs that hand out secrets or arbitrary file contents.
  'GET /nodes/{node}/qemu/{vmid}/agent/file-read': { risk: 'privileged', reason: 'reads any file inside the guest (e.g. /etc/shadow)' },
  'GET /nodes/{node}/storage/{storage}/file-restore/download': {
    risk: 'privileged',
    reason: 'extracts any file from a guest backup',
  },
  'GET /nodes/{node}/qemu/{vmid}/agent/exec-status': {
    risk: 'privileged',
    reason: 'returns the output of a command anybody ran in the guest, by its process ID',
  },
  'GET /cluster/acme/plugins/{id}': { risk: 'privileged', reason: 'returns the DNS plugin configuration including its API credentials' },

  // Irreversible although not DELETE.
  'POST /nodes/{node}/qemu/{vmid}/template': { risk: 'destructive', reason: 'converting to a template cannot be undone' },
  'POST /nodes/{node}/lxc/{vmid}/template': { risk: 'destructive', reason: 'converting to a template cannot be undone' },
  'PUT /nodes/{node}/qemu/{vmid}/unlink': { risk: 'destructive', reason: 'unlinks and can delete disk images' },
  'POST /nodes/{node}/stopall': { risk: 'destructive', reason: 'stops every guest on the node (hard stop after the timeout)' },

  // DELETE that removes nothing.
  'DELETE /cluster/sdn/lock': { risk: 'write', reason: 'releases the SDN configuration lock; no configuration is removed' },
};
