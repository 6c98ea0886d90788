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

{{/*
The image: image.ref (reference chart key) wins; otherwise repository and tag (default: appVersion), a tag
starting with sha256: being a digest.
*/}}
{{- define "calico-pilot.image" -}}
{{- $ref := dig "ref" "" .Values.image -}}
{{- if $ref -}}
{{- $ref -}}
{{- else -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if hasPrefix "sha256:" $tag -}}
{{- printf "%s@%s" .Values.image.repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
A port: the calico-pilot key when set, else the reference key evaluated as a template (its default names
usablePorts). Argument: dict "root" $ "own" <value or nil> "ref" <value> "key" <name for errors>.
*/}}
{{- define "calico-pilot.port" -}}
{{- $port := "" -}}
{{- if not (kindIs "invalid" .own) -}}
{{- $port = toString .own -}}
{{- else -}}
{{- $port = tpl (toString .ref) .root | trim -}}
{{- end -}}
{{- if not (regexMatch "^[0-9]+$" $port) -}}
{{- fail (printf "values: %s must be a port number (or a template yielding one), got %q" .key $port) -}}
{{- end -}}
{{- if or (lt (atoi $port) 1) (gt (atoi $port) 65535) -}}
{{- fail (printf "values: %s must be between 1 and 65535, got %s" .key $port) -}}
{{- end -}}
{{- $port -}}
{{- end -}}

{{- define "calico-pilot.metricsPort" -}}
{{- include "calico-pilot.port" (dict "root" . "own" (dig "metricsPort" nil .Values.controller) "ref" .Values.metricsPort "key" "metricsPort") -}}
{{- end -}}

{{- define "calico-pilot.healthPort" -}}
{{- include "calico-pilot.port" (dict "root" . "own" (dig "healthPort" nil .Values.controller) "ref" .Values.healthPort "key" "healthPort") -}}
{{- end -}}

{{/* A reference key when it is set, else calico-pilot's own (argument: list <reference value> <own value>). */}}
{{- define "calico-pilot.either" -}}
{{- $ref := index . 0 -}}
{{- if kindIs "invalid" $ref -}}
{{- index . 1 -}}
{{- else -}}
{{- $ref -}}
{{- end -}}
{{- end -}}

{{/* The name of the ConfigMap holding imageVectorOverwrite (the controller's and the admission's). */}}
{{- define "calico-pilot.imageVectorOverwriteName" -}}
{{- printf "%s-imagevector-overwrite" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
imageVectorOverwrite, validated: the value as given (byte for byte, so the ConfigMap and the checksum
annotations of both Deployments agree), or "" when unset; the render fails when it is not an image vector.
One definition for both Deployments, so they never disagree on what is accepted.
*/}}
{{- define "calico-pilot.imageVectorOverwrite" -}}
{{- $overwrite := index .Values "imageVectorOverwrite" | default "" -}}
{{- if $overwrite -}}
{{- $parsed := fromYaml $overwrite -}}
{{- if hasKey $parsed "Error" -}}
{{- fail (printf "values: imageVectorOverwrite is not YAML: %s" $parsed.Error) -}}
{{- end -}}
{{- if not (kindIs "slice" (get $parsed "images")) -}}
{{- fail "values: imageVectorOverwrite must be an image vector: a YAML document with a list 'images'" -}}
{{- end -}}
{{- end -}}
{{- $overwrite -}}
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
