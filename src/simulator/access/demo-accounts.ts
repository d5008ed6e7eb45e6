/**
 * The accounts the demo preset holds beside root@pam, so every access read has something to show:
 * an operators group with one member who signs in with TOTP and keeps recovery keys. The member
 * has no password (nobody can log in as them) and no ACL (they can do nothing).
 */
import { newUser, type AccessStore } from './store.js';

/** A fixed, published TOTP secret: the account cannot log in, it only gives the TFA reads an entry. */
const DEMO_TOTP_SECRET = 'JBSWY3DPEHPK3PXP';

export function seedDemoAccounts(store: AccessStore): void {
  const userid = 'ops@pve';
  const user = newUser(userid, { comment: 'Night-shift operator', email: 'ops@example.org', totpSecret: DEMO_TOTP_SECRET });
  user.recoveryCodes = ['4b1e-9c2d-77aa', 'c0de-51f3-08be'];
  user.groups.add('operators');
  store.users.set(userid, user);
  store.groups.set('operators', { groupid: 'operators', comment: 'On-call operators', members: new Set([userid]) });
}
