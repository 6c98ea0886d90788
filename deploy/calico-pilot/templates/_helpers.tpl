{{/*
Names. Namespaced objects are named after the release (gardenlet uses the ControllerRegistration name as
release name and installs into extension-<ControllerInstallation>); cluster-scoped objects carry the
namespace too, so two installations in one cluster do not collide.
*/}}
{{- define "calico-pilot.controllerName" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "calico-pilot.admissionName" -}}
{{- printf "%s-admission" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "calico-pilot.clusterScopedName" -}}
{{- printf "calico-pilot:%s:%s" .Release.Namespace .Release.Name -}}
{{- end -}}

{{- define "calico-pilot.webhookConfigurationName" -}}
{{- printf "calico-pilot-%s-%s" .Release.Namespace .Release.Name | trunc 253 | trimSuffix "-" -}}
{{- end -}}

{{- define "calico-pilot.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Labels on every object. */}}
{{- define "calico-pilot.labels" -}}
app.kubernetes.io/name: calico-pilot
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ default .Chart.AppVersion .Values.image.tag | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of a component (argument: dict "root" $ "component" "controller"). */}}
{{- define "calico-pilot.selectorLabels" -}}
app.kubernetes.io/name: calico-pilot
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Pod and container security settings shared by both Deployments: non-root, read-only root fs. */}}
{{- define "calico-pilot.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "calico-pilot.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
  - ALL
{{- end -}}
