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

{{- define "admission.labels" -}}
app.kubernetes.io/name: calico-pilot
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: admission
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "admission.selector" -}}
app.kubernetes.io/name: calico-pilot
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: admission
{{- end -}}

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
