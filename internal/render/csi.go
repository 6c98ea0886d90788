package render

import (
	"path"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// The CSI driver (csi.tigera.io) gives pods an ephemeral volume through which Calico's application
// layer policy reaches them (docs/components/csi-node-driver.md). It asks the Kubernetes API for
// nothing: its ServiceAccount has no RBAC.

// kubeletDir is the kubelet's root directory, where it finds plugins and their registration sockets.
const kubeletDir = "/var/lib/kubelet"

// csiDriver returns the CSI driver's objects when it is on: ServiceAccount, DaemonSet and CSIDriver.
func csiDriver(o *values.Options) ([]client.Object, error) {
	if !o.Components.CSIDriver {
		return nil, nil
	}
	l := layoutOf(o)
	n := l.ComponentsOf().CSIDriver
	return []client.Object{
		componentServiceAccount(l, n.Workload.ServiceAccount),
		csiDaemonSet(o, l, n),
		&storagev1.CSIDriver{
			TypeMeta:   typeMeta("storage.k8s.io/v1", "CSIDriver"),
			ObjectMeta: meta(n.Driver, "", nil),
			Spec: storagev1.CSIDriverSpec{
				// The operator's spec: the driver mounts inline (ephemeral) volumes and needs the pod's
				// identity to do so.
				AttachRequired:       ptr.To(true),
				PodInfoOnMount:       ptr.To(true),
				VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecycleEphemeral},
				FSGroupPolicy:        ptr.To(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy),
			},
		},
	}, nil
}

func csiDaemonSet(o *values.Options, l layout.Layout, n layout.CSIDriver) *appsv1.DaemonSet {
	podLabels := componentLabels(n.Workload)
	// The operator's third pod label, kept so a taken-over pod template keeps its labels.
	podLabels["name"] = n.Workload.Name
	socketDir := path.Join(kubeletDir, "plugins", n.Driver)
	bidirectional := corev1.MountPropagationBidirectional
	return &appsv1.DaemonSet{
		TypeMeta:   typeMeta("apps/v1", "DaemonSet"),
		ObjectMeta: meta(n.Workload.Name, l.Namespace, nil),
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: selectorOf(n.Workload)},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: intOrInt(1)},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName: n.Workload.ServiceAccount,
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					// Every node that runs pods, as calico-node.
					Tolerations:       append([]corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}}, tolerations()...),
					PriorityClassName: "system-node-critical",
					Containers: []corev1.Container{
						{
							Name:  "calico-csi",
							Image: o.Images.CalicoCSI,
							Args:  []string{"--nodeid=$(KUBE_NODE_NAME)", "--loglevel=$(LOG_LEVEL)"},
							Env:   []corev1.EnvVar{env("LOG_LEVEL", "warn"), envNodeName("KUBE_NODE_NAME")},
							VolumeMounts: []corev1.VolumeMount{
								{Name: "varrun", MountPath: "/var/run"},
								{Name: "socket-dir", MountPath: "/csi"},
								// Volumes it mounts for pods must reach the kubelet's mount namespace.
								{Name: "kubelet-dir", MountPath: kubeletDir, MountPropagation: &bidirectional},
							},
							SecurityContext: privilegedRootContext(),
						},
						{
							Name:  "csi-node-driver-registrar",
							Image: o.Images.CalicoNodeDriverRegistrar,
							Args:  []string{"--v=5", "--csi-address=$(ADDRESS)", "--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)"},
							Env: []corev1.EnvVar{
								env("ADDRESS", "/csi/csi.sock"),
								// The driver's socket as the kubelet sees it on the host.
								env("DRIVER_REG_SOCK_PATH", path.Join(socketDir, "csi.sock")),
								envNodeName("KUBE_NODE_NAME"),
							},
							VolumeMounts: []corev1.VolumeMount{
								{Name: "registration-dir", MountPath: "/registration"},
								{Name: "socket-dir", MountPath: "/csi"},
							},
							SecurityContext: privilegedRootContext(),
						},
					},
					Volumes: []corev1.Volume{
						hostPathVolume("varrun", "/var/run", nil),
						hostPathVolume("kubelet-dir", kubeletDir, ptr.To(corev1.HostPathDirectory)),
						hostPathVolume("socket-dir", socketDir, ptr.To(corev1.HostPathDirectoryOrCreate)),
						hostPathVolume("registration-dir", path.Join(kubeletDir, "plugins_registry"), ptr.To(corev1.HostPathDirectory)),
					},
				},
			},
		},
	}
}
