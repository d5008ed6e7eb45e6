/** Defaults of the OAuth resource server, shared by the config validator and the server. */
export const DEFAULT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export const DEFAULT_SCOPES = { read: 'pve:read', write: 'pve:write', approve: 'pve:approve' } as const;
