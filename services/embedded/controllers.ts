/**
 * The controllers `npm start` runs in process (services/embedded/main.ts), as
 * `--controllers` items of the controller manager: namespace deletion, garbage
 * collection, ClusterRole aggregation, the CSR flow of node TLS bootstrap, the
 * ServiceCIDR controller and the legacy service account token cleaner (on by default
 * in the platform's controller manager; its period is the flag's default, one year).
 * The controllers that add objects to every namespace (default service accounts,
 * the root CA ConfigMap) are left to the controller-manager process.
 */
export const EMBEDDED_CONTROLLERS: readonly string[] = [
  "garbagecollector",
  "namespace",
  "clusterrole-aggregation",
  "csrapproving",
  "csrsigning",
  "csrcleaner",
  "service-cidr-controller",
  "legacy-service-account-token-cleaner",
];
