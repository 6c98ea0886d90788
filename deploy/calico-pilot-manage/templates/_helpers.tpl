{{/* The name of every object of the chart. */}}
{{- define "manage.name" -}}calico-pilot-manage{{- end -}}

{{- define "manage.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if hasPrefix "sha256:" $tag -}}
{{- printf "%s@%s" .Values.image.repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* Labels on every object. */}}
{{- define "manage.labels" -}}
app.kubernetes.io/name: calico-pilot-manage
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ default .Chart.AppVersion .Values.image.tag | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "manage.selectorLabels" -}}
app.kubernetes.io/name: calico-pilot-manage
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
