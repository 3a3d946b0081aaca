/**
 * A one-cluster client configuration for the audit tests: the webhook backend's
 * `--audit-webhook-config-file` and kubectl's configuration (with a bearer token).
 */
export function auditKubeconfig(server: string, caPem: string, token?: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: audit",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString("base64")}`,
    "users:",
    "- name: apiserver",
    token ? `  user: {token: ${token}}` : "  user: {}",
    "contexts:",
    "- name: default",
    "  context: {cluster: audit, user: apiserver}",
    "current-context: default",
    "",
  ].join("\n");
}
