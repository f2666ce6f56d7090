{{/* The chart's name. */}}
{{- define "plat.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every resource name: <release>-<chart>, or fullnameOverride. */}}
{{- define "plat.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "plat.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "plat.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of the apiserver pods. */}}
{{- define "plat.apiserver.selectorLabels" -}}
app.kubernetes.io/name: {{ include "plat.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: apiserver
{{- end }}

{{/* Selector labels of the controller-manager pods. */}}
{{- define "plat.controllerManager.selectorLabels" -}}
app.kubernetes.io/name: {{ include "plat.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller-manager
{{- end }}

{{- define "plat.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret with tls.crt, tls.key and ca.crt. */}}
{{- define "plat.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "plat.fullname" .)) .Values.tls.existingSecret }}
{{- end }}

{{/* The Secret with tokens.csv, admin-token and controller-manager-token. */}}
{{- define "plat.authSecretName" -}}
{{- default (printf "%s-auth" (include "plat.fullname" .)) .Values.auth.existingSecret }}
{{- end }}

{{/* The Secret with the service-account token signing key under service-account.key. */}}
{{- define "plat.serviceAccountKeySecretName" -}}
{{- default (printf "%s-service-account-key" (include "plat.fullname" .)) .Values.serviceAccountTokens.existingSecret }}
{{- end }}

{{/* --service-account-issuer: serviceAccountTokens.issuer, default https://<the Service's DNS name>. */}}
{{- define "plat.serviceAccountIssuer" -}}
{{- default (printf "https://%s" (include "plat.serviceHost" .)) .Values.serviceAccountTokens.issuer }}
{{- end }}

{{/*
  The controller-manager's own user, as the apiserver names it from --api-domain: system:kube-controller-manager
  under k8s.io, else system:<the domain's first label>-controller-manager (system:plat-controller-manager).
*/}}
{{- define "plat.controllerManagerUser" -}}
{{- $prefix := ternary "kube" (splitList "." .Values.apiDomain | first) (eq .Values.apiDomain "k8s.io") }}
{{- printf "system:%s-controller-manager" $prefix }}
{{- end }}

{{/* The Service's in-cluster DNS name. */}}
{{- define "plat.serviceHost" -}}
{{- printf "%s.%s.svc" (include "plat.fullname" .) .Release.Namespace }}
{{- end }}

{{/* The label matchers of the apiservers' series in Prometheus: prometheusRule.selector, default the ServiceMonitor's job. */}}
{{- define "plat.metricsSelector" -}}
{{- default (printf "job=%q" (include "plat.fullname" .)) .Values.prometheusRule.selector }}
{{- end }}
