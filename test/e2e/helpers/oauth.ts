/**
 * OAuth principals for end-to-end tests: an MCP client that gets client-credentials tokens from
 * the test's identity provider (test/http/helpers/oidc.ts) for the server it connects to, as the
 * SDK does it (RFC 9728 metadata, RFC 8707 resource indicator).
 */
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { IdpClient } from '../../http/helpers/oidc.js';
import { connectHttp, type ClientOptions, type Connected } from './mcp.js';

export interface OAuthConnected extends Connected {
  provider: ClientCredentialsProvider;
}

/** `scope` narrows what the token asks for (e.g. only `pve:read` of a client that may write). */
export async function connectOAuth(url: string, issuer: string, client: IdpClient, options: ClientOptions & { scope?: string }): Promise<OAuthConnected> {
  const provider = new ClientCredentialsProvider({ clientId: client.id, clientSecret: client.secret, scope: options.scope ?? client.scope, expectedIssuer: issuer });
  return { ...(await connectHttp(url, provider, options)), provider };
}
