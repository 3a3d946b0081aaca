{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "cp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified name; components append "-store", "-apiserver", "-redis" (kept under 63). */}}
{{- define "cp.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "cp.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The recommended labels of every object; pass (dict "ctx" $ "component" "store"). */}}
{{- define "cp.labels" -}}
helm.sh/chart: {{ include "cp.chart" .ctx }}
{{ include "cp.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: {{ include "cp.name" .ctx }}
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The immutable subset used by selectors. */}}
{{- define "cp.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cp.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "cp.storeName" -}}{{ include "cp.fullname" . }}-store{{- end }}
{{- define "cp.storeHeadless" -}}{{ include "cp.fullname" . }}-store-peers{{- end }}
{{- define "cp.apiserverName" -}}{{ include "cp.fullname" . }}-apiserver{{- end }}
{{- define "cp.redisName" -}}{{ include "cp.fullname" . }}-redis{{- end }}
{{- define "cp.controllerManagerName" -}}{{ include "cp.fullname" . }}-controller-manager{{- end }}

{{/* The controller manager's user in the token file: the platform's name under the profile. */}}
{{- define "cp.controllerManagerUser" -}}
{{- printf "system:%s-controller-manager" (eq .Values.profile "kubernetes" | ternary "kube" "plat") }}
{{- end }}

{{/* Stable DNS name of store pod $i: <sts>-<i>.<headless>.<ns>.svc.<domain>; pass (dict "ctx" $ "i" 0). */}}
{{- define "cp.storeHost" -}}
{{- printf "%s-%d.%s.%s.svc.%s" (include "cp.storeName" .ctx) (int .i) (include "cp.storeHeadless" .ctx) .ctx.Release.Namespace .ctx.Values.clusterDomain }}
{{- end }}

{{/* --initial-cluster: every member by name and stable peer URL. */}}
{{- define "cp.initialCluster" -}}
{{- $ctx := . }}
{{- $members := list }}
{{- range $i := until (int .Values.store.replicas) }}
{{- $members = append $members (printf "%s-%d=https://%s:%d" (include "cp.storeName" $ctx) $i (include "cp.storeHost" (dict "ctx" $ctx "i" $i)) (int $ctx.Values.store.peerPort)) }}
{{- end }}
{{- join "," $members }}
{{- end }}

{{/* --store-endpoints: every member's client endpoint host:port. */}}
{{- define "cp.storeEndpoints" -}}
{{- $ctx := . }}
{{- $eps := list }}
{{- range $i := until (int .Values.store.replicas) }}
{{- $eps = append $eps (printf "%s:%d" (include "cp.storeHost" (dict "ctx" $ctx "i" $i)) (int $ctx.Values.store.clientPort)) }}
{{- end }}
{{- join "," $eps }}
{{- end }}

{{- define "cp.redisUrl" -}}
{{- if .Values.externalRedis.url }}
{{- .Values.externalRedis.url }}
{{- else }}
{{- printf "rediss://:$(REDIS_PASSWORD)@%s.%s.svc.%s:%d" (include "cp.redisName" .) .Release.Namespace .Values.clusterDomain (int .Values.redis.port) }}
{{- end }}
{{- end }}

{{/* The back-end TLS Secret (store-tls-secret.yaml), mounted at /etc/store-tls. */}}
{{- define "cp.storeTlsSecretName" -}}{{ include "cp.fullname" . }}-store-pki{{- end }}

{{/* Flags of a TLS client of the built-in Redis (store and apiserver); none for an external Redis. */}}
{{- define "cp.redisTlsArgs" -}}
{{- if not .Values.externalRedis.url }}
- --redis-ca-file=/etc/store-tls/ca.crt
- --redis-cert-file=/etc/store-tls/client.crt
- --redis-key-file=/etc/store-tls/client.key
{{- end }}
{{- end }}

{{/* REDIS_PASSWORD for $(REDIS_PASSWORD) in the built-in Redis URL. */}}
{{- define "cp.redisPasswordEnv" -}}
{{- if not .Values.externalRedis.url }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "cp.storeTlsSecretName" . }}
      key: redis-password
{{- end }}
{{- end }}

{{- define "cp.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "cp.apiserverName" .)) .Values.apiserver.tls.existingSecret }}
{{- end }}

{{- define "cp.authSecretName" -}}
{{- default (printf "%s-auth" (include "cp.apiserverName" .)) .Values.auth.existingSecret }}
{{- end }}

{{- define "cp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "cp.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* DNS names of the API Service, for the serving certificate and the issuer. */}}
{{- define "cp.apiserverDnsNames" -}}
{{- $svc := include "cp.apiserverName" . }}
{{- $ns := .Release.Namespace }}
{{- list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) "localhost" | toJson }}
{{- end }}

{{- define "cp.serviceAccountIssuer" -}}
{{- default (printf "https://%s.%s.svc.%s" (include "cp.apiserverName" .) .Release.Namespace .Values.clusterDomain) .Values.apiserver.serviceAccountIssuer }}
{{- end }}

{{- define "cp.image" -}}
{{- printf "%s:%s" .image.repository (default .ctx.Chart.AppVersion .image.tag) }}
{{- end }}

{{/* Preferred (or required) anti-affinity spreading pods of one component over nodes. */}}
{{- define "cp.antiAffinity" -}}
{{- if eq .mode "hard" }}
podAntiAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: {{ .topologyKey }}
      labelSelector:
        matchLabels:
          {{- include "cp.selectorLabels" . | nindent 10 }}
{{- else if eq .mode "soft" }}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: {{ .topologyKey }}
        labelSelector:
          matchLabels:
            {{- include "cp.selectorLabels" . | nindent 12 }}
{{- end }}
{{- end }}

{{/* The controller manager's client configuration: the API Service's in-cluster HTTPS address,
the chart's CA and its token, as files mounted from the TLS and auth Secrets. */}}
{{- define "cp.controllerManagerKubeconfig" -}}
apiVersion: v1
kind: Config
clusters:
  - name: {{ include "cp.fullname" . }}
    cluster:
      server: {{ printf "https://%s.%s.svc.%s:%d" (include "cp.apiserverName" .) .Release.Namespace .Values.clusterDomain (int .Values.apiserver.service.port) }}
      certificate-authority: /etc/controller-manager/tls/ca.crt
users:
  - name: {{ include "cp.controllerManagerUser" . }}
    user:
      tokenFile: /etc/controller-manager/auth/controller-manager-token
contexts:
  - name: controller-manager
    context:
      cluster: {{ include "cp.fullname" . }}
      user: {{ include "cp.controllerManagerUser" . }}
current-context: controller-manager
{{- end }}
