package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// multus returns the multus thin plugin with its CRD and RBAC. It chains to Calico's conflist.
func multus(o *values.Options) ([]client.Object, error) {
	if !o.Multus {
		return nil, nil
	}
	return []client.Object{
		multusCRD(),
		clusterRole(NameMultus, nil,
			// Multus reads the attachment definitions pods ask for.
			rule([]string{"k8s.cni.cncf.io"}, []string{"*"}, []string{"*"}),
			// It records the network status on pods.
			rule(core, []string{"pods", "pods/status"}, []string{"get", "update"}),
			rule([]string{"", "events.k8s.io"}, []string{"events"}, []string{"create", "patch", "update"}),
		),
		clusterRoleBinding(NameMultus, NameMultus, nil, saSubject(layoutOf(o), NameMultus)),
		serviceAccount(layoutOf(o), NameMultus),
		multusDaemonSet(o),
	}, nil
}

func multusCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   typeMeta("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
		ObjectMeta: meta(NameMultusCRD, "", systemComponent(nil)),
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "k8s.cni.cncf.io",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "network-attachment-definitions", Singular: "network-attachment-definition",
				Kind: "NetworkAttachmentDefinition", ShortNames: []string{"net-attach-def"},
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Description: "NetworkAttachmentDefinition is a CRD schema specified by the Network Plumbing Working Group to express the intent for attaching pods to one or more logical or physical networks.",
					Type:        "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"apiVersion": {Type: "string"},
						"kind":       {Type: "string"},
						"metadata":   {Type: "object"},
						"spec": {
							Type: "object",
							Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"config": {Type: "string", Description: "NetworkAttachmentDefinition config is a JSON-formatted CNI configuration"},
							},
						},
					},
				}},
			}},
		},
	}
}

func multusDaemonSet(o *values.Options) *appsv1.DaemonSet {
	// The critical-component label on the DaemonSet and its pods makes the shoot resource manager
	// keep the node's critical-components-not-ready taint until multus runs there; tolerating every
	// NoSchedule taint lets the pod land while the taint is still on.
	labels := systemComponent(map[string]string{"app": NameMultus, "name": NameMultus, LabelCriticalComponent: "true"})
	podLabels := systemComponent(map[string]string{
		"app": NameMultus, "name": NameMultus, LabelCriticalComponent: "true",
		// Multus reads pods and NetworkAttachmentDefinitions from the API server.
		"networking.gardener.cloud/to-apiserver": "allowed",
		"networking.gardener.cloud/to-dns":       "allowed",
	})
	hostPath := func(name, path string) corev1.Volume { return hostPathVolume(name, path, nil) }
	var inits []corev1.Container
	inits = append(inits, corev1.Container{
		Name:            "install-multus-cni",
		Image:           o.Images.Multus,
		Command:         []string{"/install_multus", "--type", "thin"},
		Resources:       requests("10m", "15Mi"),
		SecurityContext: privileged(),
		VolumeMounts:    []corev1.VolumeMount{{Name: "cnibin", MountPath: "/host/opt/cni/bin"}},
	})
	if o.MultusInstallCNIPlugins {
		inits = append(inits, corev1.Container{
			Name:  "install-cni-plugins",
			Image: o.Images.CNIPlugins,
			// The image is the Dockerfile's cni-plugins target: the plugins are in CNIPluginsSourceDir.
			Command:         []string{"/bin/sh", "-c", installCNIPluginsScript},
			Resources:       requests("10m", "15Mi"),
			SecurityContext: privileged(),
			VolumeMounts:    []corev1.VolumeMount{{Name: "cnibin", MountPath: "/host/opt/cni/bin"}},
		})
	}
	ds := &appsv1.DaemonSet{
		TypeMeta:   typeMeta("apps/v1", "DaemonSet"),
		ObjectMeta: meta(NameMultus, layoutOf(o).Namespace, labels),
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": NameMultus}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: intOrInt(2)},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					HostNetwork:                   true,
					NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:                   tolerations(),
					ServiceAccountName:            NameMultus,
					PriorityClassName:             "system-node-critical",
					TerminationGracePeriodSeconds: ptr.To[int64](10),
					InitContainers:                inits,
					Containers: []corev1.Container{{
						Name:    "kube-multus",
						Image:   o.Images.Multus,
						Command: []string{"/thin_entrypoint"},
						Args: []string{
							"--cleanup-config-on-exit",
							"--cni-bin-dir=/host/opt/cni/bin",
							"--cni-conf-dir=/host/etc/cni/net.d",
							"--cni-version=0.3.1",
							"--multus-autoconfig-dir=/host/etc/cni/net.d",
							"--multus-cni-conf-dir=/etc/cni/multus/net.d",
							"--multus-conf-file=auto",
							"--multus-log-file=/var/log/multus.log",
							"--multus-log-level=error",
							"--multus-log-to-stderr=true",
							"--multus-master-cni-file-name=10-calico.conflist",
							"--readiness-indicator-file=/etc/cni/net.d/10-calico.conflist",
						},
						Resources:       requests("100m", "200Mi"),
						SecurityContext: privileged(),
						VolumeMounts: []corev1.VolumeMount{
							{Name: "cni", MountPath: "/host/etc/cni/net.d"},
							{Name: "cnibin", MountPath: "/host/opt/cni/bin"},
							{Name: "cni-readiness", MountPath: "/etc/cni/net.d", ReadOnly: true},
						},
					}},
					Volumes: []corev1.Volume{
						hostPath("cni", "/etc/cni/net.d"),
						hostPath("cnibin", "/opt/cni/bin"),
						hostPath("cni-readiness", "/etc/cni/net.d"),
					},
				},
			},
		},
	}
	// If a previous deployment used another (immutable) selector, the resource manager re-creates
	// the DaemonSet instead of failing: the thin plugin keeps no state.
	ds.Annotations = map[string]string{resourcesv1alpha1.AnnotationDeleteOnInvalidUpdate: "true"}
	return ds
}
