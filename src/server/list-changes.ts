/**
 * `notifications/tools/list_changed` when what a session's `tools/list` would answer changed since
 * it was last computed: clients cache the listing and auto-approve tools on its hints, so a hint
 * that changes (a policy reloaded, a cluster that joins) must reach them. Only sessions whose own
 * listing changed are told; a change that leaves it equal sends nothing.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/**
 * Watches `listing` (the session's answer, compared as JSON) on every `subscribe` signal, and
 * also runs `refresh` there (e.g. resources to register; the SDK sends their list_changed). The
 * subscription ends when the session closes.
 */
export function notifyListChanges(server: McpServer, listing: () => unknown, subscribe: (changed: () => void) => () => void, refresh?: () => void): void {
  let last = JSON.stringify(listing());
  const unsubscribe = subscribe(() => {
    refresh?.();
    const now = JSON.stringify(listing());
    if (now === last) return;
    last = now;
    server.sendToolListChanged();
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    unsubscribe();
    closed?.();
  };
}
