{{- define "admission.name" -}}gardener-extension-admission-calico{{- end -}}

{{- define "admission.image" -}}
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
The labels of every object and pod: the reference admission's, exactly (docs/deployment.md, "Swapping
the admission"), the selector's two labels and nothing else.
*/}}
{{- define "admission.labels" -}}
{{ include "admission.selector" . }}
{{- end -}}

{{/*
The selector of the Deployment, Service and PDB: the reference admission's, never to be changed: its
name (gardener-extension-admission-calico) and the release's (the Extension's name, e.g.
networking-calico, under gardener-operator). gardener-operator replaces the reference's objects with
these in the same ManagedResource; a Deployment's selector is immutable (a different one fails the
update after the Service was already switched to it: no endpoints, every calico Shoot write denied),
and with the same one the Service keeps selecting the reference's pods until the rolling update has
replaced them with ready calico-pilot pods (docs/deployment.md, "Swapping the admission").
*/}}
{{- define "admission.selector" -}}
app.kubernetes.io/name: {{ include "admission.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* replicas: the reference's replicaCount wins when set. */}}
{{- define "admission.replicas" -}}
{{- $rc := index .Values "replicaCount" -}}{{- if kindIs "invalid" $rc -}}{{ .Values.replicas }}{{- else -}}{{ $rc }}{{- end -}}
{{- end -}}

{{/* Ports: the reference's metricsPort, healthPort and webhookConfig.serverPort. */}}
{{- define "admission.metricsPort" -}}{{ .Values.metricsPort | int }}{{- end -}}
{{- define "admission.healthPort" -}}{{ .Values.healthPort | int }}{{- end -}}
{{- define "admission.serverPort" -}}{{ .Values.webhookConfig.serverPort | int }}{{- end -}}

{{/* The part to render: "runtime", "virtual" or fail. */}}
{{- define "admission.part" -}}
{{- $g := index .Values "gardener" | default dict -}}
{{- $virtual := dig "virtualCluster" dict $g -}}
{{- if dig "serviceAccount" "name" "" $virtual -}}
virtual
{{- else if hasKey $g "runtimeCluster" -}}
runtime
{{- else -}}
{{- fail "values: gardener.runtimeCluster (runtime part) or gardener.virtualCluster.serviceAccount (virtual garden part) must be set; gardener-operator injects them when it deploys this chart through an Extension" -}}
{{- end -}}
{{- end -}}

{{/* The name of the ConfigMap holding imageVectorOverwrite. */}}
{{- define "admission.imageVectorOverwriteName" -}}{{ include "admission.name" . }}-imagevector-overwrite{{- end -}}

{{/*
imageVectorOverwrite, validated as the controller chart (deploy/calico-pilot) validates it, with the same
messages: the value as given (byte for byte: ConfigMap and checksum), or "" when unset; the render fails
when it is not an image vector.
*/}}
{{- define "admission.imageVectorOverwrite" -}}
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
