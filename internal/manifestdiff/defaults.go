package manifestdiff

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The API server fills in defaults before it stores a workload, and the workload controllers hash the
// pod template as stored. Two manifests that differ only in a field one of them leaves to its default
// (imagePullPolicy of a tagged image, a probe's periodSeconds, fieldRef.apiVersion) are therefore
// stored identically and roll nothing. k8s.io/api carries no defaulting functions (they live in
// k8s.io/kubernetes, which calico-pilot does not depend on), so the defaults are reproduced here: the
// ones Kubernetes applies to a pod template and to the apps/v1 workloads' update settings.
// test/integration/manifestdiff holds them equal to a real kube-apiserver's (server-side dry-run of
// workloads that leave every one of them unset, and set each to a non-default value).
//
// A pod template gets fewer defaults than a pod: no host ports for a host-network pod's container
// ports and no enableServiceLinks (the API server sets those on pods only; test/integration/manifestdiff found both).
//
// Not reproduced (compared as written): the defaults of volume sources calico-pilot and the reference
// never use (iSCSI, RBD, Azure disk, ScaleIO, ephemeral claim templates), and spec.replicas of a
// Deployment or StatefulSet, which the resource manager keeps from the live object when a manifest
// omits it (the preserve-replicas gate).

// applyDefaults applies the API server's defaults to the typed object obj, if it is a workload kind
// with a pod template.
func applyDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *appsv1.DaemonSet:
		defaultDaemonSetSpec(&o.Spec)
		defaultPodTemplate(&o.Spec.Template)
	case *appsv1.Deployment:
		defaultDeploymentSpec(&o.Spec)
		defaultPodTemplate(&o.Spec.Template)
	case *appsv1.StatefulSet:
		defaultPodTemplate(&o.Spec.Template)
	case *appsv1.ReplicaSet:
		defaultPodTemplate(&o.Spec.Template)
	case *batchv1.Job:
		defaultPodTemplate(&o.Spec.Template)
	case *batchv1.CronJob:
		defaultPodTemplate(&o.Spec.JobTemplate.Spec.Template)
	case *corev1.PodTemplate:
		defaultPodTemplate(&o.Template)
	case *corev1.ReplicationController:
		if o.Spec.Template != nil {
			defaultPodTemplate(o.Spec.Template)
		}
	}
}

// defaultDaemonSetSpec: a rolling update replacing one pod at a time without surge, ten old
// revisions kept.
func defaultDaemonSetSpec(s *appsv1.DaemonSetSpec) {
	if ru := defaultStrategy(&s.UpdateStrategy.Type, appsv1.RollingUpdateDaemonSetStrategyType, &s.UpdateStrategy.RollingUpdate); ru != nil {
		defaultRollingUpdate(&ru.MaxUnavailable, &ru.MaxSurge, intstr.FromInt32(1), intstr.FromInt32(0))
	}
	defaultInt32(&s.RevisionHistoryLimit, 10)
}

// defaultDeploymentSpec: a rolling update with 25% unavailable and 25% surge, ten old revisions, a
// progress deadline of ten minutes. spec.replicas is left alone (see above).
func defaultDeploymentSpec(s *appsv1.DeploymentSpec) {
	if ru := defaultStrategy(&s.Strategy.Type, appsv1.RollingUpdateDeploymentStrategyType, &s.Strategy.RollingUpdate); ru != nil {
		defaultRollingUpdate(&ru.MaxUnavailable, &ru.MaxSurge, intstr.FromString("25%"), intstr.FromString("25%"))
	}
	defaultInt32(&s.RevisionHistoryLimit, 10)
	defaultInt32(&s.ProgressDeadlineSeconds, 600)
}

// defaultStrategy defaults an unset update strategy type to rolling, and returns the strategy's
// rolling update (created if unset) when the strategy is rolling, else nil.
func defaultStrategy[T ~string, R any](typ *T, rolling T, rollingUpdate **R) *R {
	if *typ == "" {
		*typ = rolling
	}
	if *typ != rolling {
		return nil
	}
	if *rollingUpdate == nil {
		*rollingUpdate = new(R)
	}
	return *rollingUpdate
}

// defaultRollingUpdate sets a rolling update's unset bounds.
func defaultRollingUpdate(maxUnavailable, maxSurge **intstr.IntOrString, unavailable, surge intstr.IntOrString) {
	if *maxUnavailable == nil {
		*maxUnavailable = ptr.To(unavailable)
	}
	if *maxSurge == nil {
		*maxSurge = ptr.To(surge)
	}
}

// defaultInt32 sets an unset optional integer.
func defaultInt32(p **int32, v int32) {
	if *p == nil {
		*p = ptr.To(v)
	}
}

// defaultPodTemplate applies the pod spec's, its containers' and its volumes' defaults.
func defaultPodTemplate(t *corev1.PodTemplateSpec) {
	s := &t.Spec
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	// The deprecated serviceAccount field and serviceAccountName are one field to the API server:
	// either names the account, and it returns both.
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		p := &c.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil && vf.FieldRef != nil {
			defaultFieldRef(vf.FieldRef)
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

// defaultProbe sets a probe's (if any) unset timings and thresholds, HTTP path and scheme, and gRPC
// service.
func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHTTPGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr.To("")
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultMode is the file mode of secret, configMap, downwardAPI and projected volumes (0644).
const defaultMode int32 = 0o644

func defaultVolume(v *corev1.Volume) {
	vs := &v.VolumeSource
	if *vs == (corev1.VolumeSource{}) {
		vs.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	switch {
	case vs.HostPath != nil:
		if vs.HostPath.Type == nil {
			vs.HostPath.Type = ptr.To(corev1.HostPathUnset)
		}
	case vs.Secret != nil:
		defaultInt32(&vs.Secret.DefaultMode, defaultMode)
	case vs.ConfigMap != nil:
		defaultInt32(&vs.ConfigMap.DefaultMode, defaultMode)
	case vs.DownwardAPI != nil:
		defaultInt32(&vs.DownwardAPI.DefaultMode, defaultMode)
		defaultDownwardAPIItems(vs.DownwardAPI.Items)
	case vs.Projected != nil:
		defaultInt32(&vs.Projected.DefaultMode, defaultMode)
		for _, src := range vs.Projected.Sources {
			if t := src.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptr.To[int64](3600)
			}
			if src.DownwardAPI != nil {
				defaultDownwardAPIItems(src.DownwardAPI.Items)
			}
		}
	}
}

// defaultDownwardAPIItems defaults the field references of downward API files.
func defaultDownwardAPIItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if f := items[i].FieldRef; f != nil {
			defaultFieldRef(f)
		}
	}
}

// imageTag is the tag of an image reference as Kubernetes reads it for the pull policy: "latest" when
// the reference has neither a tag nor a digest, "" when it has only a digest.
func imageTag(image string) string {
	name, _, hasDigest := strings.Cut(image, "@")
	slash := strings.LastIndex(name, "/")
	if colon := strings.LastIndex(name, ":"); colon > slash {
		return name[colon+1:]
	}
	if hasDigest {
		return ""
	}
	return "latest"
}
