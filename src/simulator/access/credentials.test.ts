import { describe, expect, it } from 'vitest';
import { extractAuthValue, extractCredentials, splitTokenValue, uriUnescape } from './credentials.js';

describe('credential extraction', () => {
  it('reads the value after "=" or a space, up to ";", percent-decoded', () => {
    expect(extractAuthValue('a=1; PVEAuthCookie=PVE%3Aroot%40pam%3AX; b=2', 'PVEAuthCookie')).toBe('PVE:root@pam:X');
    expect(extractAuthValue('PVEAPIToken root@pam!t=s', 'PVEAPIToken')).toBe('root@pam!t=s');
    expect(extractAuthValue('xPVEAuthCookie=1', 'PVEAuthCookie')).toBeUndefined();
    expect(extractAuthValue('pveauthcookie=1', 'PVEAuthCookie')).toBeUndefined();
  });

  it('prefers a ticket (cookie, then Authorization) over a token', () => {
    expect(extractCredentials('PVEAuthCookie=t1', 'PVEAuthCookie=t2')).toEqual({ ticket: 't1' });
    expect(extractCredentials(undefined, 'PVEAuthCookie=t2')).toEqual({ ticket: 't2' });
    expect(extractCredentials(undefined, 'PVEAPIToken=u@pam!x=s')).toEqual({ apiToken: 'u@pam!x=s' });
    expect(extractCredentials(undefined, undefined)).toEqual({});
  });

  it('splits token values at the last "=" and keeps malformed escapes', () => {
    expect(splitTokenValue('u@pam!x=a=b')).toEqual({ tokenid: 'u@pam!x=a', secret: 'b' });
    expect(splitTokenValue('nothing')).toBeUndefined();
    expect(uriUnescape('100%%41%zz')).toBe('100%A%zz');
  });
});
